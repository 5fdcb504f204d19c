// Peak throughput: autocannon keeps `connections` keep-alive connections busy, each sending its
// next delivery as soon as the previous one is answered. Every request is built fresh
// (setupRequest) so each carries a new id_msg; the per-connection context ties an answer to it.
import autocannon from 'autocannon';
import { moneyInDelivery } from './money-in.ts';
import { toMicros, type LoadPlan, type LoadResult } from './load-result.ts';

interface ConnectionContext {
  idMsg?: string;
}

export function closedLoad(plan: LoadPlan, token: string): Promise<LoadResult> {
  const okIdMsgs: string[] = [];
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: plan.url,
        connections: plan.connections,
        duration: plan.seconds,
        timeout: plan.timeoutMs / 1000,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (request, context) => {
              const delivery = moneyInDelivery(plan.account);
              (context as ConnectionContext).idMsg = delivery.idMsg;
              return { ...request, body: delivery.body };
            },
            onResponse: (status, _body, context) => {
              const { idMsg } = context as ConnectionContext;
              if (status >= 200 && status < 300 && idMsg !== undefined) okIdMsgs.push(idMsg);
            },
          },
        ],
      },
      (error: unknown, result) => {
        if (error) return reject(error instanceof Error ? error : new Error(String(error)));
        resolve({
          mode: 'closed',
          seconds: (performance.now() - started) / 1000,
          completed: Object.values(statuses).reduce((a, b) => a + b, 0) + result.errors,
          statuses,
          errors: result.errors - result.timeouts,
          timeouts: result.timeouts,
          latencies: latencies.map(toMicros),
          okIdMsgs,
        });
      },
    );
    // Our own latency samples (float ms from hrtime), for every answer, not only 2xx.
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      latencies.push(responseTime);
    });
  });
}
