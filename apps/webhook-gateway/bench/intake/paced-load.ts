// A fixed request rate, open loop: request i is due at start + i/rate whatever happened to the
// ones before, over at most `connections` keep-alive connections (more wait in a queue, in order).
// Latency is measured from the moment a request was due, so a contender that falls behind pays for
// the queue it builds (no coordinated omission). The connections are opened first, and the first
// `warmupSeconds` of the schedule are the loader's warm-up: sent and audited, not measured. Free
// connections are taken in turn (first freed, first used), so none sits idle long enough for the
// server to close it under a request.
import { openConnections, type Connection, type Outcome } from './keep-alive.ts';
import { deliveryTarget, moneyInDelivery } from './money-in.ts';
import {
  createTally,
  summarizeLatency,
  tallyOutcome,
  toMicros,
  type LoadPlan,
  type LoadResult,
} from './load-result.ts';

export async function pacedLoad(plan: LoadPlan, token: string): Promise<LoadResult> {
  const rate = plan.rate;
  if (rate === undefined || !(rate > 0)) throw new Error(`a paced load needs a rate above 0 requests/s, got ${rate}`);
  const target = deliveryTarget(plan.url, token);
  const warmup = Math.round(rate * plan.warmupSeconds);
  const measured = Math.max(1, Math.round(rate * plan.seconds));
  const total = warmup + measured;
  const intervalMs = 1000 / rate;
  const tally = createTally();
  const lags: number[] = [];
  let settled = 0;
  const connections = await openConnections(target, plan.connections);
  const free: Connection[] = [...connections];
  /** Requests waiting for a free connection, oldest first. */
  const waiting: number[] = [];
  let waitingHead = 0;

  const start = performance.now() + 20;
  const measureFrom = start + warmup * intervalMs;
  let next = 0;
  return new Promise<LoadResult>((resolve) => {
    const finish = (): void => {
      clearInterval(clock);
      for (const connection of connections) connection.close();
      // Until the last answer: a contender that falls behind the schedule shows a lower rate.
      const seconds = (performance.now() - measureFrom) / 1000;
      resolve({ mode: 'paced', seconds, completed: measured, ...tally, sendLagP99Ms: summarizeLatency(lags).p99 });
    };
    const send = (connection: Connection, index: number): void => {
      const dueAt = start + index * intervalMs;
      const isMeasured = index >= warmup;
      if (isMeasured) lags.push(toMicros(performance.now() - dueAt));
      const delivery = moneyInDelivery(plan.account);
      connection.send(delivery.body, plan.timeoutMs, (outcome: Outcome) => {
        tallyOutcome(tally, outcome, delivery.idMsg, performance.now() - dueAt, isMeasured);
        if (++settled === total) return finish();
        if (waitingHead < waiting.length) send(connection, waiting[waitingHead++]!);
        else free.push(connection);
      });
    };
    const dispatch = (): void => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        const connection = free.shift();
        if (connection) send(connection, next);
        else waiting.push(next);
        next++;
      }
      if (next < total) setTimeout(dispatch, Math.max(0, start + next * intervalMs - performance.now()));
    };
    // The deadlines of requests in flight, on one clock instead of a timer per request.
    const clock = setInterval(() => {
      const now = performance.now();
      for (const connection of connections) connection.expire(now);
    }, 50);
    dispatch();
  });
}
