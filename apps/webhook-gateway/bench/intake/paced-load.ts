// A fixed request rate, open loop: request i is due at start + i/rate whatever happened to the
// ones before, over at most `connections` keep-alive sockets (more wait in the agent's queue).
// Latency is measured from the moment a request was due, so a contender that falls behind pays for
// the queue it builds (no coordinated omission). autocannon's own rate limit is not used: it sends
// each connection's quota back to back at the start of every second, which is a burst, not a rate.
import http from 'node:http';
import { moneyInDelivery } from './money-in.ts';
import { summarizeLatency, toMicros, type LoadPlan, type LoadResult } from './load-result.ts';

export async function pacedLoad(plan: LoadPlan, token: string): Promise<LoadResult> {
  const rate = plan.rate;
  if (rate === undefined || !(rate > 0)) throw new Error(`a paced load needs a rate above 0 requests/s, got ${rate}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: plan.connections });
  const total = Math.max(1, Math.round(rate * plan.seconds));
  const intervalMs = 1000 / rate;
  const okIdMsgs: string[] = [];
  const latencies: number[] = [];
  const lags: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  const inFlight = new Set<Promise<void>>();

  const send = (dueAt: number): Promise<void> =>
    new Promise<void>((resolve) => {
      lags.push(performance.now() - dueAt);
      const delivery = moneyInDelivery(plan.account);
      let timedOut = false;
      let settled = false;
      // Exactly one outcome per request, whichever of answer, error or timeout comes first.
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
        resolve();
      };
      const request = http.request(
        plan.url,
        { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(delivery.body) } },
        (response) => {
          response.resume();
          response.once('end', () =>
            settle(() => {
              const status = response.statusCode ?? 0;
              statuses[status] = (statuses[status] ?? 0) + 1;
              latencies.push(performance.now() - dueAt);
              if (status >= 200 && status < 300) okIdMsgs.push(delivery.idMsg);
            }),
          );
          response.once('error', () => settle(() => errors++));
        },
      );
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error('timed out'));
      }, plan.timeoutMs);
      request.once('error', () => settle(() => (timedOut ? timeouts++ : errors++)));
      request.end(delivery.body);
    });

  const start = performance.now() + 20;
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        const pending = send(start + next * intervalMs);
        inFlight.add(pending);
        void pending.then(() => inFlight.delete(pending));
        next++;
      }
      if (next >= total) return done();
      setTimeout(tick, Math.max(0, start + next * intervalMs - now));
    };
    tick();
  });
  await Promise.all(inFlight);
  // Until the last answer: a contender that falls behind the schedule shows a lower rate.
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  const lagSummary = summarizeLatency(lags);
  return {
    mode: 'paced',
    seconds,
    completed: total,
    statuses,
    errors,
    timeouts,
    latencies: latencies.map(toMicros),
    sendLagP99Ms: lagSummary.p99,
    okIdMsgs,
  };
}
