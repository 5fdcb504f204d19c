// The console's HTTP server, on fastify (as the gateway and the sandbox): server-rendered pages, no
// CDN, works offline. It routes to the pages (pages/routes.ts) and the streamed CSV and JSON
// exports (exports/routes.ts), serves the stylesheet and the stored events, and two actions:
// retrying parked events and releasing held credits. The libraries of fastify's ecosystem carry the
// concerns they serve (README "Security"): @fastify/helmet the headers on every answer,
// @fastify/session the logins (in the database: replicas share them, access/session-store.ts),
// @fastify/csrf-protection the forms' tokens, @fastify/formbody the forms, @fastify/rate-limit the
// ceiling on POST /login; access/ holds what is the console's own (this-machine-only without a
// password, same-origin checks, the lockout).
// /healthz says whether the store answers and counts the conflicts; /metrics may require a token.
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifySession from '@fastify/session';
import { releaseHeld, retryParked } from '@paykit/ledger';
import {
  archiveOfEvent,
  createEventStore,
  createOperatorStore,
  StoreInputError,
  StoreUnavailableError,
  type Database,
} from '@paykit/store';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { CSRF_COOKIE, registerAccess, SESSION_COOKIE, type AccessOptions, type Audit } from './access/access.ts';
import { AccessDenied } from './access/answers.ts';
import { LOGIN_POSTS_PER_MINUTE } from './access/login.ts';
import { recordAudit } from './data/audit.ts';
import { asksForLogin } from './config.ts';
import { checkQuery, FilterError } from './filters.ts';
import { helmetOptions } from './access/headers.ts';
import { createConsoleHealth } from './health.ts';
import { STYLESHEET } from './pages/html.ts';
import { archivedEventPage, eventPage, missingEventPage } from './pages/event.ts';
import { EXPORTS, serveExport } from './exports/routes.ts';
import { PAGES, type RouteContext } from './pages/routes.ts';
import { createLoginGuard } from './access/login-guard.ts';
import { cookieKey, DatabaseSessionStore } from './access/session-store.ts';
import type { WorkerStatus } from './worker-status.ts';

/** The largest form body accepted: the console's forms are a few fields. */
const MAX_FORM_BYTES = 16 * 1024;

export interface ConsoleOptions {
  /** The database, migrated (main.ts migrates it; tests open a migrated one). */
  db: Database;
  port: number;
  host: string;
  staleAfterSeconds: number;
  /** The worker's progress for the overview (worker-status.ts); without it, the overview says it is not known. */
  status?: () => Promise<WorkerStatus | null> | WorkerStatus | null;
  /** What /healthz answers; without it, the console's own (health.ts). */
  health?: () => Promise<object>;
  /** What /metrics answers (metrics.ts); without it, /metrics is 404. */
  metrics?: Registry;
  /** Who may use it (access/access.ts); without a password or an active operator, this machine's clients only. */
  access?: AccessOptions;
  /** Counts each login attempt by outcome (metrics.ts). */
  onLogin?: (outcome: 'success' | 'failure' | 'locked') => void;
  /** fastify's trustProxy: which proxies' X-Forwarded-* are believed (default: a proxy on this machine). */
  trustProxy?: string | boolean;
  /** A pino logger for requests and errors; without it, none. */
  logger?: FastifyBaseLogger;
  now?: () => Date;
}

export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

const csrfOfForm = (request: FastifyRequest) => {
  const body = request.body as Record<string, unknown> | undefined;
  return typeof body?.csrf === 'string' ? body.csrf : undefined;
};

const text = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(body);

export async function startConsole(options: ConsoleOptions): Promise<ConsoleServer> {
  const { db } = options;
  const now = options.now ?? (() => new Date());
  const events = createEventStore(db);
  const access: AccessOptions = { ...options.access, trustProxy: options.trustProxy ?? 'loopback' };
  const operators = createOperatorStore(db);
  // Named operators log in when one is active at start: a console started without any (and
  // without CONSOLE_PASSWORD) answers this machine only, and serves no page once one is added
  // until it is restarted (access/access.ts).
  access.operators ??= await operators.anyActive();
  const loginRequired = asksForLogin(access);
  const health = options.health ?? createConsoleHealth(db);
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    trustProxy: options.trustProxy ?? 'loopback',
    bodyLimit: MAX_FORM_BYTES,
    // A held credit's id is up to 200 characters.
    routerOptions: { maxParamLength: 256 },
  });
  const secure: boolean | 'auto' = access.secureCookie === 'on' ? true : 'auto';
  const key = await cookieKey(db);
  await app.register(fastifyHelmet, helmetOptions);
  await app.register(fastifyCookie, { secret: key });
  await app.register(fastifySession, {
    secret: key,
    cookieName: SESSION_COOKIE,
    store: new DatabaseSessionStore(db, { now, lifetimeMinutes: access.sessionMinutes ?? 480 }),
    saveUninitialized: false,
    rolling: false,
    cookie: {
      path: '/',
      httpOnly: true,
      sameSite: 'strict',
      // Fitted per request in access/access.ts (Secure over https): 'auto' here would turn SameSite to Lax.
      secure: false,
      maxAge: (access.sessionMinutes ?? 480) * 60_000,
    },
  });
  await app.register(fastifyFormbody, { bodyLimit: MAX_FORM_BYTES });
  await app.register(fastifyRateLimit, { global: false });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    if (error instanceof AccessDenied) return text(reply, error.status, `${error.message}\n`);
    if (error instanceof FilterError || error instanceof StoreInputError) return text(reply, 400, `${error.message}\n`);
    if (error.code?.startsWith('FST_CSRF'))
      return text(
        reply,
        403,
        'Refused: the form carries no valid CSRF token. Reload the console page and submit its form again.\n',
      );
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return text(
        reply,
        413,
        `The form is larger than ${MAX_FORM_BYTES / 1024} KB: the console's forms are a few fields.\n`,
      );
    if (error.statusCode === 429)
      return text(
        reply.header('retry-after', '60'),
        429,
        `Too many logins from this address: at most ${LOGIN_POSTS_PER_MINUTE} a minute. Wait a minute and try again.\n`,
      );
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
      return text(reply, error.statusCode, `${error.message}\n`);
    // The details (the database's address, its own error text) go to the log, never to the client.
    request.log.error({ err: error }, 'the ledger could not be read');
    return text(
      reply,
      503,
      error instanceof StoreUnavailableError
        ? `The ledger could not be read: its database did not answer. Try again in a moment; the console's log has the details (request ${request.id}).\n`
        : `The ledger could not be read. The console's log has the details (request ${request.id}).\n`,
    );
  });

  const guard = createLoginGuard(db, { now, failuresPerMinute: access.failuresPerMinute });
  access.markKey ??= key;
  const audit: Audit = (request, record) =>
    recordAudit(db, {
      at: now(),
      address: request.ip,
      target: null,
      detail: null,
      ...record,
    });
  const consoleAccess = registerAccess(app, access, now, guard, audit, operators, options.onLogin);
  // The login form has no session yet: its CSRF secret is in a signed cookie. Logged in, the
  // secret is the session's own (in the database), so a token works for that login only, on every
  // replica, and ends with it. Without a login there are no sessions: a cookie again.
  const inCookie = {
    cookieKey: CSRF_COOKIE,
    cookieOpts: { path: '/', sameSite: 'strict' as const, httpOnly: true, signed: true, secure },
    getToken: csrfOfForm,
  };
  await app.register(async (login) => {
    await login.register(fastifyCsrf, inCookie);
    consoleAccess.loginRoutes(login);
  });

  app.get('/healthz', async (_request, reply) =>
    // 200 whatever the store says: the process is alive and retries by itself; the body tells the rest.
    reply
      .header('cache-control', 'no-store')
      .type('application/json')
      .send(JSON.stringify(await health())),
  );
  if (options.metrics) {
    const metrics = options.metrics;
    app.get('/metrics', async (_request, reply) =>
      reply
        .header('cache-control', 'no-store')
        .type(metrics.contentType)
        .send(await metrics.metrics()),
    );
  }
  app.get('/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=300').send(STYLESHEET),
  );

  /** The query of a page or export, refused with 400 when it is too long or holds a control character. */
  const queryOf = (request: FastifyRequest) => {
    const url = new URL(request.url, 'http://console');
    checkQuery(url.search, url.searchParams);
    return url.searchParams;
  };
  const context = async (request: FastifyRequest): Promise<RouteContext> => ({
    db,
    query: queryOf(request),
    now: now(),
    staleAfterSeconds: options.staleAfterSeconds,
    status: (await options.status?.()) ?? null,
  });
  const html = (request: FastifyRequest, reply: FastifyReply, status: number, body: string) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(consoleAccess.decorate(reply, request, body));

  await app.register(async (pages) => {
    await pages.register(
      fastifyCsrf,
      loginRequired ? { sessionPlugin: '@fastify/session', getToken: csrfOfForm } : inCookie,
    );
    consoleAccess.checkForms(pages);
    consoleAccess.logoutRoute(pages);
    for (const [path, render] of Object.entries(PAGES))
      pages.get(path, async (request, reply) => html(request, reply, 200, await render(await context(request))));
    for (const name of Object.keys(EXPORTS))
      for (const format of ['csv', 'json'] as const)
        pages.get(`/${name}.${format}`, async (request, reply) => {
          await serveExport(reply, name, format, await context(request));
          return reply;
        });
    pages.get('/events/:seq', async (request, reply) => {
      const { seq } = request.params as { seq: string };
      queryOf(request);
      if (!/^\d{1,19}$/.test(seq)) return notFound(request, reply);
      const event = await events.get(seq);
      if (event) return html(request, reply, 200, eventPage(event));
      // A month past the retention is archived, not lost: the page says which file holds it.
      const archive = await archiveOfEvent(db, seq);
      return html(request, reply, 404, archive ? archivedEventPage(seq, archive) : missingEventPage(seq));
    });
    pages.post('/parked/retry', { config: { action: 'retry-parked' } }, async (request, reply) => {
      // The retry and its audit record commit together.
      await db.transaction(async (tx) => {
        const queued = await retryParked(tx);
        await recordAudit(tx, {
          at: now(),
          operator: consoleAccess.operator(request),
          address: request.ip,
          action: 'retry-parked',
          target: null,
          outcome: 'success',
          detail: `${queued} parked event${queued === 1 ? '' : 's'} queued for a retry`,
        });
      });
      return reply.code(303).header('location', '/').type('text/plain').send('queued');
    });
    pages.post('/held/:credit/release', { config: { action: 'release-held' } }, async (request, reply) => {
      const { credit } = request.params as { credit: string };
      // The release is kept with who made it: the operator logged in, or "console" on this machine.
      const operator = consoleAccess.operator(request);
      try {
        // The release and its audit record commit together.
        await releaseHeld(db, {
          credit,
          by: operator ?? 'console',
          within: (tx, release) =>
            recordAudit(tx, {
              at: now(),
              operator,
              address: request.ip,
              action: 'release-held',
              target: release.transactionId,
              outcome: 'success',
              detail: `${release.amount} of event ${release.seq} booked as money in`,
            }),
        });
      } catch (error) {
        // Nothing was released. A refusal says why; a failure is recorded if the database takes it.
        await audit(request, {
          operator,
          action: 'release-held',
          outcome: error instanceof StoreInputError ? 'refused' : 'failure',
          target: credit,
          detail: error instanceof Error ? error.message : String(error),
        }).catch((failure: unknown) =>
          request.log.error({ err: failure }, 'the audit record of a failed release was not written'),
        );
        throw error;
      }
      return reply.code(303).header('location', '/held').type('text/plain').send('released');
    });
  });
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    text(
      reply,
      404,
      `No such page: ${request.method} ${request.url.split('?', 1)[0]}. The console is at /; lists at ${Object.keys(PAGES).join(', ')}; exports at /<list>.csv or .json (${Object.keys(EXPORTS).join(', ')})\n`,
    );
  app.setNotFoundHandler(notFound);

  await app.listen({ port: options.port, host: options.host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the console is not listening on a TCP port');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
