// Replicas, run the way docs/operations.md says to run them: three gateways behind HAProxy
// (Debian's haproxy, started here on a generated configuration, checking each gateway's /readyz)
// and three workers on one PostgreSQL database. Credits arrive through HAProxy while gateways and
// workers are killed with SIGKILL and restarted at once, then while a rolling restart replaces
// every process one by one (a gateway drained on HAProxy's runtime API, stopped with SIGTERM,
// started, put back and seen UP before the next; a worker stopped, started and seen applying). The
// sender is the sandbox, the platform: a 5xx or a reset is "not acknowledged" and redelivered.
// HAProxy retries what a dying gateway never answered, so the sender rarely sees a failure; a last
// round kills gateways behind an HAProxy that does not retry (no retry-on), where the sender sees
// what they left unanswered (a reset, or a 502) and must redeliver it. Afterwards: nothing
// acknowledged lost, nothing stored or applied twice, every delivery that failed delivered 2xx
// later, every restarted process back in service within 30 s.
import type { Delivery } from '@paykit/contracts';
import { freePort } from '@paykit/testing/ports';
import { record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { startHaproxy, type Haproxy } from '../src/haproxy.ts';
import { describeWithHaproxy } from './with-haproxy.ts';
import { sendCredits, sleep, until } from '../src/load.ts';
import { longestRestarts, recordScenario, type ReplicaFigures } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { countAppliedEvents, startStack, type Stack } from '../src/stack.ts';

const GATEWAYS = 3;
const WORKERS = 3;
/** Credits sent while processes are killed, and at least as many while the rolling restart lasts. */
const KILL_EVENTS = scaled(4_000, 800);
const ROLLING_EVENTS = scaled(4_000, 400);
/** SIGKILLs of gateways and of workers, round robin over the replicas. */
const KILLS = scaled(3, 1);
/** Credits sent, and gateways killed, behind an HAProxy that does not retry. */
const BARE_EVENTS = scaled(2_000, 600);
const BARE_KILLS = scaled(3, 2);
/** A restarted process must be back in service within this, with no manual step. */
const BACK_WITHIN_S = 30;
/** Small batches, so a worker's kill lands inside one. */
const WORKER_ENV = { WORKER_BATCH_SIZE: '20' };

const seconds = (fromMs: number) => Math.round((performance.now() - fromMs) / 100) / 10;

describeWithHaproxy('three gateways behind HAProxy and three workers on one PostgreSQL', () => {
  let haproxy: Haproxy;
  let stack: Stack;
  let haproxyPort: number;
  let gatewayPorts: number[];
  const startBalancer = async (retries: boolean) => {
    haproxy = await startHaproxy({
      port: haproxyPort,
      gatewayPorts,
      retries,
      onOutput: (text) => record('haproxy output', text),
    });
  };
  const restarts: ReplicaFigures['restarts'] = [];

  /** A new worker is in service once its /healthz says a round of its own succeeded. */
  const workerInService = async (index: number) => {
    const deadline = performance.now() + BACK_WITHIN_S * 2_000;
    let last = 'no answer yet';
    while (performance.now() < deadline) {
      const worker = stack.worker(index);
      if (!worker) throw new Error(`worker #${index} is not running`);
      try {
        const health = (await (await fetch(`${worker.url}/healthz`)).json()) as {
          ok?: boolean;
          lastSuccessAt?: string | null;
        };
        if (health.ok && health.lastSuccessAt) return;
        last = JSON.stringify(health);
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      await sleep(25);
    }
    throw new Error(`worker #${index} was not back in service within ${BACK_WITHIN_S * 2} s (${last})`);
  };

  /** SIGKILL while HAProxy has requests on the gateway (so the kill cuts some), restarted at once. */
  const killGateway = async (index: number) => {
    // Polls HAProxy's count of the requests it has on the gateway (a few ms each) for up to 10 s.
    const busyBy = performance.now() + 10_000;
    while (performance.now() < busyBy) {
      if (((await haproxy.servers()).get(`gateway${index + 1}`)?.current ?? 0) > 0) break;
    }
    const from = performance.now();
    await stack.killGateway(index);
    await stack.startGateway(index);
    await haproxy.waitUp(index, BACK_WITHIN_S * 2_000);
    restarts.push({ process: `gateway${index + 1}`, how: 'SIGKILL', seconds: seconds(from) });
  };
  const killWorker = async (index: number) => {
    const from = performance.now();
    await stack.killWorker(index);
    await stack.startWorker(WORKER_ENV, index);
    await workerInService(index);
    restarts.push({ process: `worker${index + 1}`, how: 'SIGKILL', seconds: seconds(from) });
  };
  /** The rolling-restart procedure of docs/operations.md, for one gateway. */
  const rollGateway = async (index: number) => {
    const from = performance.now();
    const name = `gateway${index + 1}`;
    await haproxy.setState(index, 'drain');
    const drained = performance.now() + 10_000;
    while ((await haproxy.servers()).get(name)!.current > 0) {
      if (performance.now() > drained) throw new Error(`${name} still had requests in flight 10 s after the drain`);
      await sleep(25);
    }
    await stack.stopGateway(index);
    await stack.startGateway(index);
    await haproxy.setState(index, 'ready');
    await haproxy.waitUp(index, BACK_WITHIN_S * 2_000);
    restarts.push({ process: name, how: 'rolling restart', seconds: seconds(from) });
  };
  const rollWorker = async (index: number) => {
    const from = performance.now();
    await stack.stopWorker(index);
    await stack.startWorker(WORKER_ENV, index);
    await workerInService(index);
    restarts.push({ process: `worker${index + 1}`, how: 'rolling restart', seconds: seconds(from) });
  };

  beforeAll(async () => {
    gatewayPorts = await Promise.all(Array.from({ length: GATEWAYS }, () => freePort()));
    haproxyPort = await freePort();
    await startBalancer(true);
    stack = await startStack({ name: 'replicas', gatewayPorts, webhookUrl: haproxy.url });
    for (let index = 0; index < GATEWAYS; index++) await haproxy.waitUp(index);
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => stack.startWorker(WORKER_ENV, index)));
    // Six deliveries in flight at once: two per gateway, so a kill cuts some mid-request.
    const faults = await stack.sandbox.control.setFaults({ body: { deliveries: { concurrency: 6 } } });
    if (faults.status !== 200) throw new Error('cannot set the sandbox faults');
  });
  afterAll(async () => {
    await stack?.close();
    await haproxy?.close();
  });

  it(`deliveries through HAProxy while ${KILLS} gateway(s) and ${KILLS} worker(s) are killed and restarted, then every process restarted one by one: nothing lost, nothing applied twice, every failure redelivered, every process back within ${BACK_WITHIN_S} s`, async () => {
    const startedAt = performance.now();

    // 1. SIGKILLs mid-stream, each process restarted at once (as a supervisor does).
    const killLoad = sendCredits(stack, KILL_EVENTS);
    for (let kill = 0; kill < KILLS; kill++) {
      const at = Math.round((KILL_EVENTS * (2 * kill + 1)) / (2 * KILLS + 1));
      await until(() => killLoad.sent >= at, `credit ${at} being sent`);
      await killGateway(kill % GATEWAYS);
      const next = Math.round((KILL_EVENTS * (2 * kill + 2)) / (2 * KILLS + 1));
      await until(() => killLoad.sent >= Math.min(next, KILL_EVENTS), `credit ${next} being sent`);
      await killWorker(kill % WORKERS);
    }
    await killLoad.done;

    // 2. The rolling restart, while credits keep arriving (in rounds of 100 until it is over).
    let rolling = true;
    let rollingSent = 0;
    const rollingLoad = (async () => {
      while (rolling || rollingSent < ROLLING_EVENTS) {
        await sendCredits(stack, 100).done;
        rollingSent += 100;
      }
    })();
    try {
      for (let index = 0; index < GATEWAYS; index++) await rollGateway(index);
      for (let index = 0; index < WORKERS; index++) await rollWorker(index);
    } finally {
      rolling = false;
    }
    await rollingLoad;
    // What the documented configuration retried itself, before it makes way for one that does not retry.
    const balancer = [...(await haproxy.servers()).values()];

    // 3. SIGKILLs behind an HAProxy without retry-on, on the same port: the sender sees what dying
    // gateways leave unanswered (a reset on a reused keep-alive connection, or a 502) and redelivers it.
    const before = new Set((await stack.deliveries()).map((delivery) => delivery.id));
    await haproxy.close();
    await startBalancer(false);
    for (let index = 0; index < GATEWAYS; index++) await haproxy.waitUp(index);
    const bareLoad = sendCredits(stack, BARE_EVENTS);
    for (let kill = 0; kill < BARE_KILLS; kill++) {
      const at = Math.round((BARE_EVENTS * (kill + 1)) / (BARE_KILLS + 1));
      await until(() => bareLoad.sent >= at, `credit ${at} being sent`);
      await killGateway(kill % GATEWAYS);
    }
    await bareLoad.done;
    const sent = KILL_EVENTS + rollingSent + BARE_EVENTS;

    await stack.drainDeliveries(scaled(240_000, 90_000));
    await stack.workerCaughtUp(scaled(180_000, 60_000));
    const deliveries = await stack.deliveries();
    const stored = await stack.storedEvents();
    const audit = auditDeliveries(deliveries, stored);
    const ledger = await stack.withStore(countAppliedEvents);
    const failedAttempt = (attempt: Delivery['attempts'][number]) => attempt.status === null || attempt.status >= 500;
    const failed = deliveries.filter((delivery) => delivery.attempts.some(failedAttempt));
    const bareFailed = failed.filter((delivery) => !before.has(delivery.id));
    const replicas: ReplicaFigures = {
      gateways: GATEWAYS,
      workers: WORKERS,
      failedDeliveries: failed.length,
      failedThenDelivered: failed.filter(
        (delivery) =>
          delivery.state === 'delivered' &&
          (delivery.attempts.at(-1)?.status ?? 0) >= 200 &&
          (delivery.attempts.at(-1)?.status ?? 0) < 300,
      ).length,
      fiveXxAttempts: audit.fiveXx,
      unansweredAttempts: audit.unanswered,
      balancerRetries: balancer.reduce((sum, server) => sum + server.retries, 0),
      balancerRedispatches: balancer.reduce((sum, server) => sum + server.redispatches, 0),
      appliedTwice: ledger.credits - ledger.creditedEvents,
      restarts,
      longestSecondsByProcess: Object.fromEntries(
        longestRestarts({ restarts }).map(({ process, seconds }) => [process, seconds]),
      ),
      backWithinSeconds: BACK_WITHIN_S,
    };
    /** "3 × HTTP 502, 2 × network error ECONNRESET": the failed attempts of `these`, by kind. */
    const failures = (these: readonly Delivery[]) => {
      const kinds = new Map<string, number>();
      for (const attempt of these.flatMap((delivery) => delivery.attempts.filter(failedAttempt))) {
        const kind = attempt.error?.replace(/:.*$/, '') ?? `HTTP ${attempt.status}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      return [...kinds].map(([kind, n]) => `${n} × ${kind}`).join(', ') || 'none';
    };
    const earlierFailed = failed.filter((delivery) => before.has(delivery.id));
    recordScenario({
      ...deliveryFigures('replicas', audit, {
        startedAt,
        applied: ledger.applied,
        // A 5xx while a process dies is allowed when it is redelivered (the replicas' own check).
        fiveXxAllowed: true,
        notes: [
          `${KILL_EVENTS} credits while ${KILLS} gateway(s) and ${KILLS} worker(s) were SIGKILLed and restarted, ${rollingSent} while every process was restarted one by one: HAProxy retried ${replicas.balancerRetries} and redispatched ${replicas.balancerRedispatches} itself, the sender saw ${earlierFailed.length} deliveries fail (${failures(earlierFailed)})`,
          `${BARE_EVENTS} credits while ${BARE_KILLS} gateway(s) were SIGKILLed behind an HAProxy without retry-on: the sender saw ${bareFailed.length} deliveries fail (${failures(bareFailed)}), every one redelivered`,
          `${ledger.credits} credits for ${ledger.events} events, ${ledger.parked} parked`,
          `restarts: ${restarts.map((r) => `${r.process} (${r.how}) ${r.seconds} s`).join(', ')}`,
        ],
      }),
      duplicated: audit.duplicated + replicas.appliedTwice,
      replicas,
    });

    expect(audit.lostAcknowledged).toEqual([]);
    expect(audit.lost).toBe(0);
    expect(audit.duplicated).toBe(0);
    expect(audit.sent).toBe(sent);
    expect(audit.acknowledged).toBe(sent);
    expect(deliveries.filter((delivery) => delivery.state !== 'delivered')).toEqual([]);
    expect(replicas.failedThenDelivered).toBe(replicas.failedDeliveries);
    expect(ledger.events).toBe(sent);
    expect(ledger.applied).toBe(sent);
    expect(ledger.credits).toBe(sent);
    expect(replicas.appliedTwice).toBe(0);
    expect(ledger.parked).toBe(0);
    expect(restarts).toHaveLength(2 * KILLS + GATEWAYS + WORKERS + BARE_KILLS);
    for (const restart of restarts) expect(restart.seconds, restart.process).toBeLessThanOrEqual(BACK_WITHIN_S);
    // The kills must have cut requests in flight, or this proves nothing: retried by HAProxy where it
    // retries, seen by the sender where it does not.
    expect(earlierFailed.length + replicas.balancerRetries + replicas.balancerRedispatches).toBeGreaterThan(0);
    expect(bareFailed.length).toBeGreaterThan(0);
  });
});
