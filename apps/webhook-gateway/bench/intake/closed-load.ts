// Peak throughput, closed loop: `connections` keep-alive connections, each sending its next
// delivery as soon as the previous one is answered. Every delivery is new (its own id_msg), and each
// connection knows which one it is waiting for, so every 2xx names its delivery. The connections
// are opened first; answers during the loader's warm-up, and after the measured `seconds`, are not
// counted (their 2xx are still audited). Requests in flight at the end are abandoned.
import { openConnections, type Connection, type Outcome } from './keep-alive.ts';
import { deliveryTarget, moneyInDelivery } from './money-in.ts';
import { createTally, tallyOutcome, type LoadPlan, type LoadResult } from './load-result.ts';

export async function closedLoad(plan: LoadPlan, token: string): Promise<LoadResult> {
  const target = deliveryTarget(plan.url, token);
  const tally = createTally();
  const connections = await openConnections(target, plan.connections);
  const measureFrom = performance.now() + plan.warmupSeconds * 1000;
  const endAt = measureFrom + plan.seconds * 1000;

  return new Promise((resolve) => {
    let stopped = false;
    const next = (connection: Connection): void => {
      if (stopped) return;
      const delivery = moneyInDelivery(plan.account);
      const sentAt = performance.now();
      connection.send(delivery.body, plan.timeoutMs, (outcome: Outcome) => {
        if (stopped) return;
        const now = performance.now();
        // Answers outside [measureFrom, endAt) are the warm-up's, or late: audited, not counted.
        tallyOutcome(tally, outcome, delivery.idMsg, now - sentAt, now >= measureFrom && now < endAt);
        next(connection);
      });
    };
    // One clock for the deadlines and the end of the run, instead of a timer per request.
    const clock = setInterval(() => {
      const now = performance.now();
      if (now < endAt) {
        for (const connection of connections) connection.expire(now);
        return;
      }
      stopped = true;
      clearInterval(clock);
      for (const connection of connections) connection.close();
      const completed = Object.values(tally.statuses).reduce((a, b) => a + b, 0) + tally.errors + tally.timeouts;
      resolve({ mode: 'closed', seconds: plan.seconds, completed, ...tally });
    }, 10);
    for (const connection of connections) next(connection);
  });
}
