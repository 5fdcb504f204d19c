// Who may use the console, as fastify hooks. With named operators (console_operators, `paykit
// operators`) or CONSOLE_PASSWORD (the one-operator setup): a login (login.ts), kept by
// @fastify/session in the database (session-store.ts: every replica reads it, a restart keeps it,
// logging out ends it everywhere; disabling an operator or resetting their password ends theirs)
// behind a cookie that is HttpOnly, SameSite=Strict and Secure over https. A viewer reads and
// exports; an operator (and CONSOLE_PASSWORD's) also acts: every action of a viewer is refused
// and audited. Behind an authenticating proxy (CONSOLE_IDENTITY_HEADER), the operator its header
// names is logged in for that request, with their role, when the header comes from a proxy in
// CONSOLE_TRUSTED_PROXIES (from anywhere else it is refused). Without any of them: no login, and
// only this machine's clients are answered (a request relayed by a proxy is not one of them), and
// once an operator is added no page is served until a restart turns the login on.
// Every POST needs the same origin and the form's CSRF token (forms.ts). /metrics needs
// `Authorization: Bearer <METRICS_TOKEN>` when one is set; /healthz and /console.css stay open.
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createCoreWebhookVerifier, constantTimeEqual } from '@paykit/runtime';
import type { OperatorRole, OperatorStore } from '@paykit/store';
import { asksForLogin, isLoopbackHost, type ConsoleAccessConfig } from '../config.ts';
import type { AuditAction, AuditOutcome } from '../data/audit.ts';
import { esc, page } from '../pages/html.ts';
import { AccessDenied, html } from './answers.ts';
import { checkForms, checkOrigin } from './forms.ts';
import type { LoginGuard } from './login-guard.ts';
import { passwordMark, registerLogin } from './login.ts';

/** Writes an audit record of `request` (../data/audit.ts): its client address, the console's clock. */
export type Audit = (
  request: FastifyRequest,
  record: { operator: string | null; action: AuditAction; outcome: AuditOutcome; target?: string; detail?: string },
) => Promise<void>;

export const SESSION_COOKIE = 'paykit_console';
/** The cookie that holds the CSRF secret (the form carries a token made from it). */
export const CSRF_COOKIE = 'paykit_console_csrf';

export interface AccessOptions extends Partial<ConsoleAccessConfig> {
  metricsToken?: string | undefined;
  /** How long a wrong password waits before it is answered (default 1 s). */
  failedLoginDelayMs?: number;
  /** Failed logins the whole console accepts per minute before it refuses every login (default 60). */
  failuresPerMinute?: number;
  /** The key a login's password mark is made with (the database's cookie key: the same on every replica). */
  markKey?: string;
  /**
   * Whether named operators log in (console_operators): true when one is active at start-up (main.ts
   * reads it; startConsole does when not given). With it, a password or an identity header every
   * client logs in; with none of them, this machine's only.
   */
  operators?: boolean;
  /** fastify's trustProxy (CONSOLE_TRUSTED_PROXIES): the proxies an identity header is believed from. */
  trustProxy?: string | boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The audited action a POST route performs: a viewer is refused it. */
    action?: AuditAction;
  }
}

/** Paths answered without a login: the probes and the stylesheet (it holds no data; the login page uses it). */
const OPEN_PATHS = new Set(['/healthz', '/metrics', '/console.css']);

const pathOf = (request: FastifyRequest) => request.url.split('?', 1)[0]!;

/** A request relayed by a proxy came from wherever the proxy's client is: never "this machine". */
function fromThisMachine(request: FastifyRequest): boolean {
  const h = request.headers;
  if (h.forwarded || h['x-forwarded-for'] || h['x-real-ip']) return false;
  return isLoopbackHost(request.socket.remoteAddress ?? '');
}

/**
 * The name the client asked for is this machine's: a page of another site whose name resolves to
 * 127.0.0.1 (DNS rebinding) reaches the console from this machine, but asks for its own name.
 */
function askedForThisMachine(request: FastifyRequest): boolean {
  const host = request.headers.host ?? '';
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return isLoopbackHost(name);
}

/** Who is asking: a logged-in operator, or a client of this machine on a console without login (null). */
export type Operator = string | null;

/** A form that acts, drawn for a viewer: what stands in its place (the server refuses the action anyway). */
const ACTION_FORM = /<form\b[^>]*\bmethod=["']?post\b[^>]*>[\s\S]*?<\/form>/gi;
const VIEWER_NOTE = '<span class="muted" title="viewers read and export; operators act">operators only</span>';

export interface ConsoleAccess {
  /** A page as this request's client sees it: the CSRF token in every POST form, a logout button when logged in. */
  decorate(reply: FastifyReply, request: FastifyRequest, body: string): string;
  /** Who made the request (the routes run only for a request the access let through). */
  operator(request: FastifyRequest): Operator;
  /**
   * Adds the origin and CSRF checks to every POST of `context` (which has its
   * @fastify/csrf-protection), and refuses a viewer every route whose config names an `action`.
   */
  checkForms(context: FastifyInstance): void;
  /** Adds /login to `context` (its CSRF secret in a cookie: there is no login yet). */
  loginRoutes(context: FastifyInstance): void;
  /** Adds /logout to `context` (the pages', whose forms carry the login's token). */
  logoutRoute(context: FastifyInstance): void;
}

/**
 * Adds the access hooks to `app`, which must already have @fastify/cookie and @fastify/session;
 * the forms' checks and the login routes go into the contexts that hold @fastify/csrf-protection.
 */
export function registerAccess(
  app: FastifyInstance,
  options: AccessOptions,
  now: () => Date,
  guard: LoginGuard,
  audit: Audit,
  operators: OperatorStore,
  onLogin?: (outcome: 'success' | 'failure' | 'locked') => void,
): ConsoleAccess {
  const password = options.password;
  const identityHeader = options.identityHeader;
  const loginRequired = asksForLogin(options);
  const trusted =
    typeof options.trustProxy === 'string'
      ? proxyAddr.compile(options.trustProxy.split(',').map((part) => part.trim()))
      : () => options.trustProxy === true;
  /** Who an authenticating proxy said made the request (CONSOLE_IDENTITY_HEADER), for that request only. */
  const identities = new WeakMap<FastifyRequest, { operator: string; role: OperatorRole }>();
  const verifyMetrics = options.metricsToken ? createCoreWebhookVerifier([options.metricsToken]) : undefined;
  const mark = password === undefined ? undefined : passwordMark(password, options.markKey ?? '');
  const sessionLogin = (request: FastifyRequest) => {
    const login = request.session?.login;
    if (login === undefined || !loginRequired) return false;
    // A named operator's login: the session store has checked it against the operator's row.
    if (login.credential !== undefined) return true;
    return mark !== undefined && typeof login.mark === 'string' && constantTimeEqual(login.mark, mark);
  };
  const loggedIn = (request: FastifyRequest) => identities.has(request) || sessionLogin(request);
  const whoIs = (request: FastifyRequest) =>
    identities.get(request) ?? (sessionLogin(request) ? request.session.login! : undefined);
  // A CONSOLE_PASSWORD login made before logins had roles holds none: it is an operator's.
  const roleOf = (request: FastifyRequest): OperatorRole => {
    if (!loginRequired) return 'operator';
    const who = whoIs(request);
    return who === undefined ? 'viewer' : (who.role ?? 'operator');
  };

  /** The operator the proxy's header names, when it comes from a trusted proxy; refused otherwise. */
  const fromProxy = async (request: FastifyRequest, claimed: string | string[]) => {
    if (!trusted(request.socket.remoteAddress ?? '', 0))
      throw new AccessDenied(
        403,
        `Refused: the ${identityHeader} header is believed only from a proxy in CONSOLE_TRUSTED_PROXIES, and this request did not come through one. Reach the console through its authenticating proxy.`,
      );
    const name = String(claimed).trim().toLowerCase();
    const operator = await operators.get(name);
    if (operator?.status !== 'active')
      throw new AccessDenied(
        403,
        `Refused: the proxy says this is ${name.slice(0, 64)}, who is no active operator of this console. Ask an operator to run: paykit operators add <name> --role viewer`,
      );
    identities.set(request, { operator: operator.name, role: operator.role });
  };

  // @fastify/session's `secure: 'auto'` turns SameSite down to Lax over http: the cookie is fitted
  // here instead, Secure over https (a trusted proxy's X-Forwarded-Proto) or always, and Strict.
  const fitCookie = (request: FastifyRequest) => {
    const cookie = request.session?.cookie;
    if (!cookie) return;
    cookie.sameSite = 'strict';
    cookie.secure = options.secureCookie === 'on' || request.protocol === 'https';
  };
  app.addHook('onRequest', async (request, reply) => {
    fitCookie(request);
    const path = pathOf(request);
    if (path === '/metrics' && verifyMetrics) {
      try {
        verifyMetrics({ authorization: request.headers.authorization ?? '' });
      } catch {
        return reply
          .code(401)
          .type('text/plain; charset=utf-8')
          .header('www-authenticate', 'Bearer')
          .send('Send Authorization: Bearer <METRICS_TOKEN>.\n');
      }
    }
    if (OPEN_PATHS.has(path)) return;
    if (!loginRequired) {
      if (!fromThisMachine(request) || !askedForThisMachine(request))
        return html(
          reply,
          403,
          page(
            'paykit console: this machine only',
            '<h1>This console answers this machine only</h1><p>No login is configured, so the console answers clients of 127.0.0.1 and ::1 only, asking for 127.0.0.1, ::1 or localhost (not through a proxy). To reach it from elsewhere, add an operator (<code>paykit operators add &lt;name&gt; --role operator</code>) or set <code>CONSOLE_PASSWORD</code> (at least 12 characters), and restart the console; operators then log in at /login.</p>',
          ),
        );
      // An operator added while it runs: the console fails closed rather than keep serving without the login they expect.
      if (await operators.anyActive())
        return html(
          reply,
          503,
          page(
            'paykit console: restart for the login',
            '<h1>Restart the console</h1><p>An operator was added after this console started without a login. It serves no page until it is restarted; it then asks for a login at /login.</p>',
          ),
        );
      if (path === '/login' && request.method === 'GET')
        return reply
          .code(303)
          .header('location', '/')
          .type('text/plain; charset=utf-8')
          .send('no login is configured\n');
      return;
    }
    const claimed = identityHeader === undefined ? undefined : request.headers[identityHeader];
    if (claimed !== undefined) return fromProxy(request, claimed);
    if (path === '/login') return;
    if (loggedIn(request)) return;
    if (request.method === 'POST') {
      checkOrigin(request);
      throw new AccessDenied(
        403,
        'Refused: no console login (it expired or you logged out). Log in at /login and submit the form again.',
      );
    }
    if ((request.headers.accept ?? '').includes('text/html'))
      return reply
        .code(303)
        .header('location', `/login?next=${encodeURIComponent(request.url)}`)
        .type('text/plain; charset=utf-8')
        .send('log in first\n');
    return reply
      .code(401)
      .type('text/plain; charset=utf-8')
      .send(
        'Log in first: POST the operator name and password to /login (form fields "operator" and "password"; CONSOLE_PASSWORD\'s operator leaves "operator" empty) and send back the paykit_console cookie.\n',
      );
  });

  return {
    decorate(reply, request, body) {
      const hidden = `<input type="hidden" name="csrf" value="${esc(reply.generateCsrf())}">`;
      const acting = roleOf(request) === 'operator' ? body : body.replace(ACTION_FORM, VIEWER_NOTE);
      const withToken = acting.replace(/<form\b[^>]*\bmethod=["']?post\b[^>]*>/gi, (form) => form + hidden);
      // A login through the proxy is the proxy's to end: no logout button.
      if (!sessionLogin(request)) return withToken;
      const who = whoIs(request)?.operator;
      const name = who ? `<span class="muted">${esc(who)}</span> ` : '';
      return withToken.replace(
        '</header>',
        `<form method="post" action="/logout" class="logout">${hidden}${name}<button type="submit">Log out</button></form></header>`,
      );
    },
    operator: (request) => whoIs(request)?.operator ?? null,
    checkForms(context) {
      checkForms(context);
      context.addHook('preHandler', async (request) => {
        const action = request.routeOptions.config.action;
        if (action === undefined || roleOf(request) === 'operator') return;
        const operator = whoIs(request)!.operator;
        await audit(request, { operator, action, outcome: 'refused', detail: 'a viewer may not act' });
        throw new AccessDenied(
          403,
          `Refused: ${operator} is a viewer; viewers read and export, operators act. An operator of the console can change the role: paykit operators role ${operator} operator`,
        );
      });
    },
    loginRoutes(login) {
      registerLogin(login, options, loginRequired, now, guard, audit, operators, onLogin, fitCookie);
    },
    logoutRoute(pages) {
      if (!loginRequired) return;
      pages.post('/logout', async (request, reply) => {
        // Deleted from the database: every replica refuses the cookie from now on.
        const operator = request.session.login?.operator ?? null;
        await request.session.destroy();
        await audit(request, { operator, action: 'logout', outcome: 'success' });
        return reply
          .code(303)
          .header('location', '/login')
          .clearCookie(SESSION_COOKIE, { path: '/' })
          .type('text/plain; charset=utf-8')
          .send('logged out\n');
      });
    },
  };
}
