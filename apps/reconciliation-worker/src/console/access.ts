// Who may use the console. With CONSOLE_PASSWORD: a login form, then a random login id in a
// cookie (HttpOnly, SameSite=Strict, Secure over https) held in this process's memory until it
// expires or its operator logs out. Without it: no login, and only this machine's clients are
// answered (a request relayed by a proxy is not one of them). Every POST needs the same origin and
// the form's CSRF token; /metrics needs `Authorization: Bearer <METRICS_TOKEN>` when one is set.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constantTimeEqual, createCoreWebhookVerifier } from '@paykit/runtime';
import { isLoopbackHost, type ConsoleAccessConfig } from '../config.ts';
import { esc, page } from './html.ts';

export const SESSION_COOKIE = 'paykit_console';
const LOGIN_COOKIE = 'paykit_console_login';
/** Failed logins one address may make within FAILURE_WINDOW_MS before it is refused until the window ends. */
const MAX_FAILURES = 5;
const FAILURE_WINDOW_MS = 15 * 60_000;
/** Logins held at once: past it the oldest is dropped (its operator logs in again). */
const MAX_SESSIONS = 10_000;
/** Addresses whose failed logins are counted at once: past it the oldest record is dropped, so a flood from many addresses cannot fill the memory. */
const MAX_FAILING_ADDRESSES = 10_000;
const MAX_FORM_BYTES = 16 * 1024;

export interface AccessOptions extends Partial<ConsoleAccessConfig> {
  metricsToken?: string | undefined;
  /** How long a wrong password waits before it is answered (default 1 s). */
  failedLoginDelayMs?: number;
  /** Addresses whose failed logins are counted at once (default 10,000). */
  maxFailingAddresses?: number;
}

/** Who is asking: a logged-in operator (id), or a client of this machine on a console without login (id null). */
export interface Session {
  id: string | null;
  csrf: string;
}

interface Stored {
  csrf: string;
  expiresAt: number;
}

/** A refusal the console answers as a page (or as text to a client that does not read HTML). */
export class AccessDenied extends Error {
  override readonly name = 'AccessDenied';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

type Send = (
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  extra?: Record<string, string | string[]>,
) => void;

const token = () => randomBytes(32).toString('base64url');

function cookies(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) found.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return found;
}

/** A request relayed by a proxy came from wherever the proxy's client is: never "this machine". */
function fromThisMachine(req: IncomingMessage): boolean {
  if (req.headers.forwarded || req.headers['x-forwarded-for'] || req.headers['x-real-ip']) return false;
  return isLoopbackHost(req.socket.remoteAddress ?? '');
}

/**
 * The name the client asked for is this machine's: a page of another site whose name resolves to
 * 127.0.0.1 (DNS rebinding) reaches the console from this machine, but asks for its own name.
 */
function askedForThisMachine(req: IncomingMessage): boolean {
  const host = req.headers.host ?? '';
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d*$/, '');
  return isLoopbackHost(name);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES)
      throw new AccessDenied(
        413,
        `The form is larger than ${MAX_FORM_BYTES / 1024} KB: the console's forms are a few fields.`,
      );
    chunks.push(chunk);
  }
  const type = req.headers['content-type'] ?? '';
  return type.startsWith('application/x-www-form-urlencoded')
    ? new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
    : new URLSearchParams();
}

/** Where a login returns to: a path of this console only (never `//host` or a full URL). */
function localPath(next: string | null): string {
  return next !== null && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/';
}

function loginPage(csrf: string, next: string, message = ''): string {
  return page(
    'paykit console: log in',
    `<h1>paykit console</h1>${message ? `<p role="alert" class="mismatched">${esc(message)}</p>` : ''}
<form method="post" action="/login"><input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="next" value="${esc(next)}">
<label>Password <input type="password" name="password" autocomplete="current-password" required autofocus></label> <button type="submit">Log in</button></form>
<p>The password is the worker's CONSOLE_PASSWORD.</p>`,
  );
}

export function createAccess(options: AccessOptions, now: () => Date, send: Send) {
  const sessions = new Map<string, Stored>();
  const failures = new Map<string, { count: number; since: number }>();
  // Without a login every client of this machine shares one token: pages of another site cannot read it.
  const machineSession: Session = { id: null, csrf: token() };
  const verifyMetrics = options.metricsToken ? createCoreWebhookVerifier([options.metricsToken]) : undefined;
  const delayMs = options.failedLoginDelayMs ?? 1_000;
  const maxFailingAddresses = options.maxFailingAddresses ?? MAX_FAILING_ADDRESSES;
  const nowMs = () => now().getTime();
  const sessionMinutes = options.sessionMinutes ?? 480;

  const cookie = (req: IncomingMessage, name: string, value: string, maxAgeSeconds: number) => {
    const secure =
      options.secureCookie === 'on' || req.headers['x-forwarded-proto'] === 'https' || 'encrypted' in req.socket;
    return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
  };

  const sessionOf = (req: IncomingMessage): Session | undefined => {
    const id = cookies(req).get(SESSION_COOKIE);
    if (!id) return undefined;
    const stored = sessions.get(id);
    if (!stored) return undefined;
    if (stored.expiresAt <= nowMs()) {
      sessions.delete(id);
      return undefined;
    }
    return { id, csrf: stored.csrf };
  };

  /** Same origin by the browser's own word (Sec-Fetch-Site, Origin); a client that sends neither must still carry the token. */
  const checkOrigin = (req: IncomingMessage) => {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin')
      throw new AccessDenied(
        403,
        `Refused: this form was sent from another site (Sec-Fetch-Site: ${String(site).slice(0, 20)}). Use the console's own pages.`,
      );
    const origin = req.headers.origin;
    // Under Referrer-Policy: no-referrer a browser's own same-origin form carries "Origin: null";
    // its Sec-Fetch-Site, which no page can set, still says where the form came from.
    if (origin === undefined || (origin === 'null' && site === 'same-origin')) return;
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    const own = [req.headers.host, req.headers['x-forwarded-host']].filter((h): h is string => typeof h === 'string');
    if (host === undefined || !own.includes(host))
      throw new AccessDenied(
        403,
        `Refused: this form was sent from another origin (${origin.slice(0, 80)}). Use the console's own pages.`,
      );
  };

  const checkToken = (expected: string, form: URLSearchParams) => {
    const sent = form.get('csrf');
    if (!sent || !constantTimeEqual(sent, expected))
      throw new AccessDenied(
        403,
        'Refused: the form carries no valid CSRF token. Reload the console page and submit its form again.',
      );
  };

  const login = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const next = localPath(url.searchParams.get('next'));
    if (req.method === 'GET') {
      const csrf = token();
      return send(res, 200, 'text/html; charset=utf-8', loginPage(csrf, next), {
        'set-cookie': cookie(req, LOGIN_COOKIE, csrf, 600),
      });
    }
    checkOrigin(req);
    const form = await readForm(req);
    checkToken(cookies(req).get(LOGIN_COOKIE) ?? token(), form);
    const target = localPath(form.get('next'));
    const client = req.socket.remoteAddress ?? 'unknown';
    const at = nowMs();
    for (const [address, record] of failures) if (at - record.since >= FAILURE_WINDOW_MS) failures.delete(address);
    const current = failures.get(client);
    if (current && current.count >= MAX_FAILURES) {
      const minutes = Math.ceil((current.since + FAILURE_WINDOW_MS - at) / 60_000);
      return send(
        res,
        429,
        'text/html; charset=utf-8',
        page(
          'paykit console: too many attempts',
          `<h1>Too many failed logins</h1><p>${MAX_FAILURES} wrong passwords from this address: try again in ${minutes} minute${minutes === 1 ? '' : 's'}.</p>`,
        ),
        {
          'retry-after': String(minutes * 60),
        },
      );
    }
    if (options.password === undefined || !constantTimeEqual(form.get('password') ?? '', options.password)) {
      if (!current && failures.size >= maxFailingAddresses) failures.delete(failures.keys().next().value!);
      failures.set(client, { count: (current?.count ?? 0) + 1, since: current?.since ?? at });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      const csrf = token();
      return send(res, 401, 'text/html; charset=utf-8', loginPage(csrf, target, 'Wrong password.'), {
        'set-cookie': cookie(req, LOGIN_COOKIE, csrf, 600),
      });
    }
    failures.delete(client);
    for (const [id, stored] of sessions)
      if (stored.expiresAt <= at || sessions.size >= MAX_SESSIONS) sessions.delete(id);
    const id = token();
    sessions.set(id, { csrf: token(), expiresAt: at + sessionMinutes * 60_000 });
    send(res, 303, 'text/plain; charset=utf-8', 'logged in\n', {
      location: target,
      'set-cookie': [cookie(req, SESSION_COOKIE, id, sessionMinutes * 60), cookie(req, LOGIN_COOKIE, '', 0)],
    });
  };

  return {
    /** Whether /metrics may be answered; otherwise answers 401 itself. */
    metrics(req: IncomingMessage, res: ServerResponse): boolean {
      if (!verifyMetrics) return true;
      try {
        verifyMetrics({ authorization: req.headers.authorization ?? '' });
        return true;
      } catch {
        send(res, 401, 'text/plain; charset=utf-8', 'Send Authorization: Bearer <METRICS_TOKEN>.\n', {
          'www-authenticate': 'Bearer',
        });
        return false;
      }
    },

    /**
     * The login of a request that may go on; undefined when this answered it (the login and
     * logout forms, a redirect to the login, a refusal). A POST that comes back has passed the
     * origin and CSRF checks.
     */
    async gate(req: IncomingMessage, res: ServerResponse, url: URL): Promise<Session | undefined> {
      if (options.password === undefined) {
        if (!fromThisMachine(req) || !askedForThisMachine(req)) {
          send(
            res,
            403,
            'text/html; charset=utf-8',
            page(
              'paykit console: this machine only',
              '<h1>This console answers this machine only</h1><p>No login is configured, so the console answers clients of 127.0.0.1 and ::1 only, asking for 127.0.0.1, ::1 or localhost (not through a proxy). To reach it from elsewhere, set <code>CONSOLE_PASSWORD</code> (at least 12 characters) and restart the worker; operators then log in at /login.</p>',
            ),
          );
          return undefined;
        }
        if (req.method === 'POST') {
          checkOrigin(req);
          checkToken(machineSession.csrf, await readForm(req));
        }
        if (url.pathname === '/login') {
          send(res, 303, 'text/plain; charset=utf-8', 'no login is configured\n', { location: '/' });
          return undefined;
        }
        return machineSession;
      }
      if (url.pathname === '/login' && (req.method === 'GET' || req.method === 'POST')) {
        await login(req, res, url);
        return undefined;
      }
      const session = sessionOf(req);
      if (req.method === 'POST') {
        checkOrigin(req);
        if (!session)
          throw new AccessDenied(
            403,
            'Refused: no console login (it expired or you logged out). Log in at /login and submit the form again.',
          );
        checkToken(session.csrf, await readForm(req));
        if (url.pathname === '/logout') {
          sessions.delete(session.id!);
          send(res, 303, 'text/plain; charset=utf-8', 'logged out\n', {
            location: '/login',
            'set-cookie': cookie(req, SESSION_COOKIE, '', 0),
          });
          return undefined;
        }
        return session;
      }
      if (session) return session;
      if ((req.headers.accept ?? '').includes('text/html')) {
        send(res, 303, 'text/plain; charset=utf-8', 'log in first\n', {
          location: `/login?next=${encodeURIComponent(url.pathname + url.search)}`,
        });
      } else {
        send(
          res,
          401,
          'text/plain; charset=utf-8',
          'Log in first: POST the password to /login (form field "password") and send back the paykit_console cookie.\n',
        );
      }
      return undefined;
    },

    /**
     * A page as this login sees it: its CSRF token in every POST form (pages write their forms
     * without it), and a logout button at the top when logged in.
     */
    decorate(html: string, session: Session): string {
      const hidden = `<input type="hidden" name="csrf" value="${esc(session.csrf)}">`;
      const withToken = html.replace(/<form\b[^>]*\bmethod=["']?post\b[^>]*>/gi, (form) => form + hidden);
      if (session.id === null) return withToken;
      return withToken.replace(
        /<body\b[^>]*>/i,
        (body) =>
          `${body}<form method="post" action="/logout" class="logout">${hidden}<button type="submit">Log out</button></form>`,
      );
    },
  };
}

export type ConsoleAccess = ReturnType<typeof createAccess>;
