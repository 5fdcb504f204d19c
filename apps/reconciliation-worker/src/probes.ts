// The worker's own HTTP port (WORKER_PORT, 4030): /healthz, open, says how far the worker is and
// whether its store answers (health.ts; no connection detail); /metrics, Prometheus (metrics.ts),
// behind `Authorization: Bearer <METRICS_TOKEN>` when one is set. Nothing else: the finance console
// is an app of its own (apps/console).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCoreWebhookVerifier } from '@paykit/runtime';
import type { Registry } from 'prom-client';
import type { WorkerHealth } from './health.ts';

export interface ProbeOptions {
  port: number;
  host: string;
  health: () => Promise<WorkerHealth>;
  metrics: Registry;
  /** /metrics answers only this bearer token; undefined: open. */
  metricsToken?: string | undefined;
}

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/** Probes answer no page: every answer says so to a browser that is sent one. */
const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export async function startProbes(options: ProbeOptions): Promise<ProbeServer> {
  const verifyMetrics = options.metricsToken ? createCoreWebhookVerifier([options.metricsToken]) : undefined;
  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string,
    extra: Record<string, string> = {},
  ) => {
    res.writeHead(status, { ...HEADERS, 'content-type': type, ...extra });
    res.end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === '/healthz')
      // 200 whatever the store says: the process is alive and retries by itself; the body tells the rest.
      return send(res, 200, 'application/json', JSON.stringify(await options.health()));
    if (req.method === 'GET' && path === '/metrics') {
      if (verifyMetrics) {
        try {
          verifyMetrics({ authorization: req.headers.authorization ?? '' });
        } catch {
          return send(res, 401, 'text/plain; charset=utf-8', 'Send Authorization: Bearer <METRICS_TOKEN>.\n', {
            'www-authenticate': 'Bearer',
          });
        }
      }
      return send(res, 200, options.metrics.contentType, await options.metrics.metrics());
    }
    send(
      res,
      404,
      'text/plain; charset=utf-8',
      `No such path: ${req.method} ${path}. The worker answers GET /healthz and GET /metrics; the finance console is apps/console (CONSOLE_PORT, 4031).\n`,
    );
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        send(res, 503, 'text/plain; charset=utf-8', `${error instanceof Error ? error.message : String(error)}\n`);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
