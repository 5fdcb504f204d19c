// The console's HTTP server (node:http; server-rendered, no CDN, works offline). Every list is
// also CSV and JSON with the same filters. Read-only but for one action: retrying parked events.
// /healthz reports this process's progress and the count of conflicts recorded in the ledger.
// Every page, export and form goes through access.ts first (login or this machine only, CSRF);
// /healthz stays open and names no connection detail; /metrics may require a bearer token.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEventStore, listConflicts, listDrift, listItems, listParked, reconciliationSummary, reportMatches, retryParked, type Database } from '@paykit/store';
import type { Registry } from 'prom-client';
import { AccessDenied, createAccess, type AccessOptions } from './access.ts';
import { driftRow, loadConsole } from './data.ts';
import { toCsv } from './export.ts';
import { FilterError, readFilters } from './filters.ts';
import { esc, page } from './html.ts';
import { eventPage, overviewPage } from './pages.ts';

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
}

export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const { db } = options;
  const now = options.now ?? (() => new Date());
  const events = createEventStore(db);

  const send = (res: ServerResponse, status: number, type: string, body: string, extra: Record<string, string | string[]> = {}) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra });
    res.end(body);
  };
  const list = (res: ServerResponse, format: string, name: string, rows: Array<Record<string, unknown>>) => {
    if (format === 'csv') send(res, 200, 'text/csv; charset=utf-8', toCsv(rows), { 'content-disposition': `attachment; filename="${name}.csv"` });
    else send(res, 200, 'application/json; charset=utf-8', JSON.stringify(rows, null, 2));
  };
  const access = createAccess(options.access ?? {}, now, send);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://console');
    const at = now();
    const view = (defaults: Parameters<typeof readFilters>[2] = {}) => readFilters(url.searchParams, at, defaults);
    if (req.method === 'GET' && url.pathname === '/metrics' && options.metrics) {
      if (!access.metrics(req, res)) return;
      return send(res, 200, options.metrics.contentType, await options.metrics.metrics());
    }
    if (req.method === 'GET' && url.pathname === '/healthz') {
      // 200 whatever the store says: the process is alive and retries by itself; the body tells the rest.
      const health = options.health ? await options.health() : { ok: true, ...(options.status?.() ?? { applied: 0, lastError: null, caughtUp: false }) };
      return send(res, 200, 'application/json', JSON.stringify(health));
    }
    const session = await access.gate(req, res, url);
    if (!session) return;
    const html = (status: number, body: string) => send(res, status, 'text/html; charset=utf-8', access.decorate(body, session));
    const exportMatch = /^\/(items|summary|parked|reports|conflicts|drift)\.(csv|json)$/.exec(url.pathname);
    if (req.method === 'GET' && url.pathname === '/') {
      const filters = view({ states: ['conflict', 'mismatched', 'orphan', 'stale'] });
      const data = await loadConsole(db, filters, options.staleAfterSeconds, at);
      const status = options.status?.() ?? { applied: 0, lastError: null, caughtUp: false };
      return html(200, overviewPage(data, filters, { staleAfterSeconds: options.staleAfterSeconds, ...status }));
    }
    if (req.method === 'GET' && exportMatch) {
      const [, what, format] = exportMatch as unknown as [string, string, string];
      if (what === 'items') {
        const f = view();
        const items = await listItems(db, { from: f.from, to: f.to, states: f.states, products: f.products, limit: f.limit, staleAfterSeconds: options.staleAfterSeconds, now: at });
        return list(res, format, 'items', items.map((i) => ({ ...i })));
      }
      if (what === 'summary') {
        const f = view();
        const rows = await reconciliationSummary(db, { from: f.from, to: f.to, staleAfterSeconds: options.staleAfterSeconds, now: at });
        if (format === 'json') return list(res, format, 'summary', rows.map((r) => ({ ...r })));
        return list(res, format, 'summary', rows.flatMap((r) => Object.entries(r.states).map(([state, figures]) => ({ day: r.day, product: r.product, state, count: figures.count, amount: figures.amount }))));
      }
      if (what === 'parked') return list(res, format, 'parked', (await listParked(db)).map((p) => ({ ...p })));
      if (what === 'drift') {
        const records = await listDrift(db, { limit: 10_000 });
        return list(res, format, 'drift', format === 'json' ? records.map((r) => ({ ...r })) : records.map(driftRow));
      }
      if (what === 'conflicts') return list(res, format, 'conflicts', (await listConflicts(db, { limit: 10_000 })).map((c) => ({ ...c })));
      return list(res, format, 'reports', (await reportMatches(db)).map((m) => ({ ...m })));
    }
    const eventMatch = /^\/events\/(\d{1,19})$/.exec(url.pathname);
    if (req.method === 'GET' && eventMatch) {
      const event = await events.get(eventMatch[1]!);
      if (!event) return html(404, page('not found', `<p>No stored event #${esc(eventMatch[1])}. <a href="/">Back</a></p>`));
      return html(200, eventPage(event));
    }
    if (req.method === 'POST' && url.pathname === '/parked/retry') {
      await retryParked(db);
      return send(res, 303, 'text/plain', 'queued', { location: '/' });
    }
    send(res, 404, 'text/plain; charset=utf-8', `No such page: ${req.method} ${url.pathname}. The console is at /; exports at /items.csv, /summary.json…\n`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof AccessDenied) return send(res, error.status, 'text/plain; charset=utf-8', `${error.message}\n`);
      if (error instanceof FilterError) return send(res, 400, 'text/plain; charset=utf-8', `${error.message}\n`);
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) send(res, 503, 'text/plain; charset=utf-8', `The ledger could not be read: ${message}\n`);
      else res.end();
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
