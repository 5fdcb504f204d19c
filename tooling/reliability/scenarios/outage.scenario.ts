// 2. Database outage and 4. slow store. PostgreSQL sits behind a TCP proxy between it and the
// gateway and worker. The outage: the proxy drops every connection and refuses new ones for 30 s
// (6 s reduced) during a stream of credits: the gateway answers 503 (never 2xx without a commit,
// never later than 5 s), /readyz reports it, everything redelivered afterwards is stored once, and
// the worker resumes where it stopped. The slow store: the proxy holds every answer of PostgreSQL
// near the 5 s budget: the gateway answers 503 before the platform's timeout, never after.
// Both need a PostgreSQL server (DATABASE_URL): the embedded PGlite has no server to lose.
import { afterEach, describe, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { sendCredits, sleep, until } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { startStack, type Stack } from '../src/stack.ts';

const PLATFORM_TIMEOUT_MS = 5_000;

describe.skipIf(!process.env.DATABASE_URL)('the store goes away or slows down (PostgreSQL behind a proxy)', () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });

  /** Polls /readyz every 250 ms until stopped; returns the statuses seen. */
  const watchReadiness = (url: string) => {
    const seen: number[] = [];
    let stopped = false;
    const done = (async () => {
      while (!stopped) {
        try {
          seen.push((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(PLATFORM_TIMEOUT_MS) })).status);
        } catch {
          seen.push(0);
        }
        await sleep(250);
      }
    })();
    return {
      seen,
      stop: async () => {
        stopped = true;
        await done;
      },
    };
  };

  it('outage: 503 within 5 s while PostgreSQL is unreachable, /readyz says so, every redelivery stored once, the worker resumes', async () => {
    const events = scaled(1_500, 300);
    const outageMs = scaled(30_000, 6_000);
    const startedAt = performance.now();
    stack = await startStack({ name: 'outage', proxy: true });
    await stack.sandbox.control.setFaults({ body: { deliveries: { concurrency: 4 } } });
    await stack.startWorker({ WORKER_BATCH_SIZE: '50' });

    const load = sendCredits(stack, events, 4);
    await until(() => load.sent >= events / 3, 'a third of the credits being sent');
    stack.proxy!.cut();
    const cutAt = performance.now();
    const readiness = watchReadiness(stack.gatewayUrl);
    const sentBefore = load.sent;
    await sleep(outageMs);
    await readiness.stop();
    stack.proxy!.restore();
    const sentDuring = load.sent - sentBefore;
    const outageSeconds = (performance.now() - cutAt) / 1000;

    await load.done;
    await stack.drainDeliveries(scaled(240_000, 90_000));
    await stack.workerCaughtUp(scaled(120_000, 60_000));
    const stored = await stack.storedEvents();
    const audit = auditDeliveries(await stack.deliveries(), stored);
    const statuses = new Set((await stack.deliveries()).flatMap((d) => d.attempts.map((a) => a.status)));
    const ledger = await stack.withStore(async (db) =>
      Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_credits')).rows[0]!.n),
    );
    const applied = stored.filter((event) => event.applied).length;
    recordScenario(
      deliveryFigures('outage', audit, {
        startedAt,
        applied,
        fiveXxAllowed: true,
        notes: [
          `PostgreSQL cut for ${outageSeconds.toFixed(1)} s while ${sentDuring} credits were triggered; /readyz answered ${readiness.seen.filter((s) => s === 503).length}×503 of ${readiness.seen.length} polls during it`,
          `answers seen: ${[...statuses].map(String).sort().join(', ')}; worker applied ${applied}, ${ledger} credits in the ledger`,
        ],
      }),
    );
    expect(audit.lostAcknowledged).toEqual([]);
    expect(audit.lost).toBe(0);
    expect(audit.duplicated).toBe(0);
    expect(audit.sent).toBe(events);
    // The outage was seen: 503s, and /readyz reported it.
    expect(audit.fiveXx).toBeGreaterThan(0);
    expect([...statuses].filter((s) => s !== null && s >= 500)).toEqual([503]);
    expect(readiness.seen).toContain(503);
    // Never a hang: every attempt answered within the platform's 5 s.
    expect(audit.timedOut).toBe(0);
    expect(audit.longestAnswerMs).toBeLessThan(PLATFORM_TIMEOUT_MS);
    // The worker resumed and applied everything, once.
    expect(applied).toBe(events);
    expect(ledger).toBe(events);
  });

  it('slow store: answers 503 before the platform would time out, never after, and stores every redelivery once', async () => {
    const events = scaled(200, 60);
    const startedAt = performance.now();
    stack = await startStack({ name: 'slow', proxy: true });
    await stack.sandbox.control.setFaults({ body: { deliveries: { concurrency: 4 } } });
    // Each answer from PostgreSQL held 4.5 s: one round trip alone nearly spends the 5 s budget.
    stack.proxy!.setLatency(4_500);
    // The credits go on while the store crawls, and after (each trigger waits for its delivery).
    const load = sendCredits(stack, events, 4);
    const slowFor = scaled(20_000, 10_000);
    await sleep(slowFor);
    stack.proxy!.setLatency(0);
    await load.done;
    await stack.drainDeliveries(scaled(240_000, 120_000));

    const stored = await stack.storedEvents();
    const deliveries = await stack.deliveries();
    const audit = auditDeliveries(deliveries, stored);
    const slowAnswers = deliveries.flatMap((d) => d.attempts).filter((a) => a.status === 503);
    recordScenario(
      deliveryFigures('slow-store', audit, {
        startedAt,
        fiveXxAllowed: true,
        notes: [
          `PostgreSQL's answers held 4.5 s for ${slowFor / 1000} s: ${slowAnswers.length} answers 503, the slowest ${Math.round(Math.max(0, ...slowAnswers.map((a) => a.durationMs)))} ms`,
        ],
      }),
    );
    expect(slowAnswers.length).toBeGreaterThan(0);
    expect(audit.timedOut).toBe(0);
    expect(audit.longestAnswerMs).toBeLessThan(PLATFORM_TIMEOUT_MS);
    expect(audit.lostAcknowledged).toEqual([]);
    expect(audit.lost).toBe(0);
    expect(audit.duplicated).toBe(0);
    expect(audit.sent).toBe(events);
  });
});
