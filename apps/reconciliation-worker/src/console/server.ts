// The console's HTTP server (node:http; server-rendered, no CDN, works offline): it routes to the
// pages and the streamed CSV and JSON exports of routes.ts, serves the stylesheet and the stored
// events. Read-only but for one action: retrying parked events.
// /healthz reports this process's progress and the count of conflicts recorded in the ledger.
// Every page, export and form goes through access.ts first (login or this machine only, CSRF);
// /healthz stays open and names no connection detail; /metrics may require a bearer token.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { releaseHeld, retryParked } from '@paykit/ledger';
import type { BooksStatus } from '../loop.ts';
import { createEventStore, StoreInputError, type Database } from '@paykit/store';
import type { Registry } from 'prom-client';
import { AccessDenied, createAccess, type AccessOptions } from './access.ts';
import { checkQuery, FilterError } from './filters.ts';
import { setSecurityHeaders } from './headers.ts';
import { esc, page, STYLESHEET } from './html.ts';
import { eventPage } from './pages.ts';
import { EXPORTS, PAGES, serveExport } from './routes.ts';

export interface ConsoleOptions {
  db: Database;
  port: number;
  host: string;
  staleAfterSeconds: number;
  /** What the worker's loop reports (totals, last error). */
  status?: () => WorkerStatus;
  /** What /healthz answers (worker health.ts: events waiting, the last attempt, connections); without it, `ok` and `status()`. */
  health?: () => Promise<object>;
  /** What /metrics answers (worker metrics.ts); without it, /metrics is 404. */
  metrics?: Registry;
  /** Who may use it (access.ts); without a password, this machine's clients only. */
  access?: AccessOptions;
  now?: () => Date;
}

/** What /healthz reports besides ok: this process's progress. */
export interface WorkerStatus {
  /** Events this process applied since it started. */
  applied: number;
  lastError: string | null;
  /** Its last round found nothing left to claim (false while it works through a backlog, or when it does not apply). */
  caughtUp: boolean;
  /** The books as its loop last checked them (null before the first check, or when it does not apply). */
  books?: BooksStatus | null;
}

export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const { db } = options;
  const now = options.now ?? (() => new Date());
  const events = createEventStore(db);

  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string,
    extra: Record<string, string | string[]> = {},
  ) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra });
    res.end(body);
  };
  const access = createAccess(options.access ?? {}, now, send);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://console');
    const at = now();
    if (req.method === 'GET' && url.pathname === '/metrics' && options.metrics) {
      if (!access.metrics(req, res)) return;
      return send(res, 200, options.metrics.contentType, await options.metrics.metrics());
    }
    if (req.method === 'GET' && url.pathname === '/healthz') {
      // 200 whatever the store says: the process is alive and retries by itself; the body tells the rest.
      const health = options.health
        ? await options.health()
        : { ok: true, ...(options.status?.() ?? { applied: 0, lastError: null, caughtUp: false }) };
      return send(res, 200, 'application/json', JSON.stringify(health));
    }
    // The stylesheet holds no data, and the login page uses it.
    if (req.method === 'GET' && url.pathname === '/console.css')
      return send(res, 200, 'text/css; charset=utf-8', STYLESHEET, { 'cache-control': 'max-age=300' });
    const session = await access.gate(req, res, url);
    if (!session) return;
    checkQuery(url.search, url.searchParams);
    const html = (status: number, body: string) =>
      send(res, status, 'text/html; charset=utf-8', access.decorate(body, session));
    const ctx = () => ({
      db,
      query: url.searchParams,
      now: at,
      staleAfterSeconds: options.staleAfterSeconds,
      status: options.status?.() ?? { applied: 0, lastError: null },
    });
    const pageRoute = PAGES[url.pathname];
    if (req.method === 'GET' && pageRoute) return html(200, await pageRoute(ctx()));
    const exportMatch = /^\/([a-z-]+)\.(csv|json)$/.exec(url.pathname);
    if (req.method === 'GET' && exportMatch && Object.hasOwn(EXPORTS, exportMatch[1]!))
      return serveExport(res, exportMatch[1]!, exportMatch[2] as 'csv' | 'json', ctx());
    const eventMatch = /^\/events\/(\d{1,19})$/.exec(url.pathname);
    if (req.method === 'GET' && eventMatch) {
      const event = await events.get(eventMatch[1]!);
      if (!event)
        return html(404, page('not found', `<p>No stored event #${esc(eventMatch[1])}. <a href="/">Back</a></p>`));
      return html(200, eventPage(event));
    }
    if (req.method === 'POST' && url.pathname === '/parked/retry') {
      await retryParked(db);
      return send(res, 303, 'text/plain', 'queued', { location: '/' });
    }
    const releaseMatch = /^\/held\/([^/]{1,200})\/release$/.exec(url.pathname);
    if (req.method === 'POST' && releaseMatch) {
      // No named operators yet: the release is kept as the console's (with the time).
      await releaseHeld(db, { credit: decodeURIComponent(releaseMatch[1]!), by: 'console' });
      return send(res, 303, 'text/plain', 'released', { location: '/held' });
    }
    send(
      res,
      404,
      'text/plain; charset=utf-8',
      `No such page: ${req.method} ${url.pathname}. The console is at /; lists at ${Object.keys(PAGES).join(', ')}; exports at /<list>.csv or .json (${Object.keys(EXPORTS).join(', ')})\n`,
    );
  };

  const server = createServer((req, res) => {
    setSecurityHeaders(res);
    handle(req, res).catch((error: unknown) => {
      if (error instanceof AccessDenied)
        return send(res, error.status, 'text/plain; charset=utf-8', `${error.message}\n`);
      if ((error instanceof FilterError || error instanceof StoreInputError) && !res.headersSent)
        return send(res, 400, 'text/plain; charset=utf-8', `${error.message}\n`);
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) send(res, 503, 'text/plain; charset=utf-8', `The ledger could not be read: ${message}\n`);
      // Mid-export: the connection is cut, so a partial file never passes for a complete one.
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
