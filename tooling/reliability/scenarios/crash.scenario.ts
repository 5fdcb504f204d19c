// 1. Crash during load. The sandbox delivers a stream of credits with unique ids while the gateway
// is killed with SIGKILL several times and restarted: every delivery answered 2xx must be in the
// store exactly once, and every other one redelivered and stored once. Then the worker is killed
// with SIGKILL several times while it applies them: every event applied exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { sendCredits, sleep, until } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { countApplied, countAppliedEvents, startStack, type Stack } from '../src/stack.ts';

const EVENTS = scaled(2_000, 300);
const GATEWAY_KILLS = scaled(5, 3);
const WORKER_KILLS = scaled(5, 3);

describe('crash during load', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ name: 'crash' });
    // Four deliveries in flight at once, so each kill cuts several mid-request.
    const faults = await stack.sandbox.control.setFaults({ body: { deliveries: { concurrency: 4 } } });
    if (faults.status !== 200) throw new Error('cannot set the sandbox faults');
  });
  afterAll(async () => {
    await stack?.close();
  });

  it(`gateway killed ${GATEWAY_KILLS} times mid-stream: every acknowledged delivery stored once, every other redelivered and stored once`, async () => {
    const started = performance.now();
    const load = sendCredits(stack, EVENTS);
    for (let kill = 1; kill <= GATEWAY_KILLS; kill++) {
      await until(
        () => load.sent >= (EVENTS * kill) / (GATEWAY_KILLS + 1),
        `credit ${Math.round((EVENTS * kill) / (GATEWAY_KILLS + 1))} being sent`,
      );
      await stack.killGateway();
      await sleep(100);
      await stack.startGateway();
    }
    await load.done;
    await stack.drainDeliveries(scaled(240_000, 90_000));

    const stored = await stack.storedEvents();
    const audit = auditDeliveries(await stack.deliveries(), stored);
    recordScenario(
      deliveryFigures('crash-gateway', audit, {
        startedAt: started,
        notes: [`${GATEWAY_KILLS} SIGKILLs mid-stream, each followed by a restart`],
      }),
    );
    expect(audit.lostAcknowledged).toEqual([]);
    expect(audit.lost).toBe(0);
    expect(audit.duplicated).toBe(0);
    expect(audit.fiveXx).toBe(0);
    expect(audit.sent).toBe(EVENTS);
    expect(stored.filter((event) => event.eventType === 'MONEY_IN')).toHaveLength(EVENTS);
    // The kills must have cut deliveries, or this proves nothing.
    expect(audit.unanswered).toBeGreaterThan(0);
  });

  it(`worker killed ${WORKER_KILLS} times mid-batch: every event applied exactly once`, async () => {
    const started = performance.now();
    // Small batches, so the stream takes many and a kill lands inside one.
    const env = { WORKER_BATCH_SIZE: '10' };
    const partial: number[] = [];
    for (let kill = 1; kill <= WORKER_KILLS; kill++) {
      await stack.startWorker(env);
      await sleep(30 + kill * 40);
      await stack.killWorker();
      if (stack.storeKind === 'postgres') partial.push(await stack.withStore(countApplied));
    }
    await stack.startWorker(env);
    await stack.workerCaughtUp(scaled(180_000, 60_000));

    const ledger = await stack.withStore(countAppliedEvents);
    recordScenario({
      scenario: 'crash-worker',
      sent: ledger.events,
      acknowledged: ledger.events,
      stored: ledger.events,
      applied: ledger.applied,
      lost: ledger.events - ledger.creditedEvents,
      duplicated: ledger.credits - ledger.creditedEvents,
      badInputs: 0,
      fiveXx: 0,
      fiveXxAllowed: false,
      longestAnswerMs: 0,
      notes: [
        `${WORKER_KILLS} SIGKILLs in batches of 10; ${ledger.credits} credits for ${ledger.events} events, ${ledger.parked} parked`,
        ...(partial.length > 0
          ? [`events applied when each kill landed: ${partial.join(', ')} of ${ledger.events}`]
          : []),
      ],
      durationMs: performance.now() - started,
    });
    expect(ledger.applied).toBe(ledger.events);
    expect(ledger.parked).toBe(0);
    expect(ledger.credits).toBe(EVENTS);
    expect(ledger.creditedEvents).toBe(EVENTS);
    // On PostgreSQL the kills can be seen landing mid-stream.
    if (partial.length > 0) expect(partial.some((n) => n < ledger.events)).toBe(true);
  });
});
