// The login: the form, and POST /login checked against a named operator (console_operators) or
// CONSOLE_PASSWORD. Wrong passwords are answered after a delay and bounded per address, per
// operator and per console (login-guard.ts, in the database); POST /login is also capped per
// address by @fastify/rate-limit. A login is kept in the session with the mark of the password it
// was made with, and a browser that logged in carries a device cookie.
import { randomBytes, scryptSync } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '@paykit/runtime';
import { PASSWORD_OPERATOR, type OperatorRole, type OperatorStore } from '@paykit/store';
import { esc, page } from '../pages/html.ts';
import type { AccessOptions, Audit } from './access.ts';
import { html } from './answers.ts';
import { checkForms } from './forms.ts';
import { ADDRESS_FAILURES, type LoginGuard } from './login-guard.ts';

/** Logins one address may POST per minute, right or wrong (a ceiling above the failure lockout, for floods). */
export const LOGIN_POSTS_PER_MINUTE = 30;

const marks = new Map<string, string>();
/**
 * What a login keeps of the password it was made with: scrypt of it under the console's key, made
 * once per password (scrypt is slow on purpose: the database holding the marks cannot be turned
 * back into the password cheaply).
 */
export function passwordMark(password: string, key: string): string {
  const id = `${key}\u0000${password}`;
  let mark = marks.get(id);
  if (mark === undefined) {
    mark = scryptSync(password, `paykit-console-login:${key}`, 32, { N: 16_384, r: 8, p: 1 }).toString('base64url');
    marks.clear();
    marks.set(id, mark);
  }
  return mark;
}

/** Where a login returns to: a path of this console only (never `//host` or a full URL). */
function localPath(next: unknown): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) ? next : '/';
}

function loginPage(csrf: string, next: string, withPassword: boolean, message = ''): string {
  const how = withPassword
    ? `Operators log in with the name and password <code>paykit operators add</code> gave them; with the console's CONSOLE_PASSWORD, leave the name empty.`
    : 'Operators log in with the name and password <code>paykit operators add</code> gave them.';
  return page(
    'paykit console: log in',
    `<h1>paykit console</h1>${message ? `<p role="alert" class="mismatched">${esc(message)}</p>` : ''}
<form method="post" action="/login"><input type="hidden" name="csrf" value="${esc(csrf)}"><input type="hidden" name="next" value="${esc(next)}">
<label>Operator <input type="text" name="operator" autocomplete="username" autocapitalize="none" spellcheck="false" maxlength="64" autofocus></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label> <button type="submit">Log in</button></form>
<p>${how}</p>`,
  );
}

const formOf = (request: FastifyRequest): Record<string, unknown> =>
  request.body !== null && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};

/**
 * The device cookie: set at a successful login (signed with the console's key, HttpOnly, sent to
 * /login only), it marks a browser that logged in before, whose next attempts login-guard.ts
 * counts by the device alone. 180 days: an operator's browser keeps it across logouts.
 */
const DEVICE_COOKIE = 'paykit_console_device';
const DEVICE_DAYS = 180;

/** The id of a valid device cookie for `operator` on this request, if it carries one. */
function deviceOf(request: FastifyRequest, operator: string): string | undefined {
  const raw = request.cookies[DEVICE_COOKIE];
  if (raw === undefined) return undefined;
  const cookie = request.unsignCookie(raw);
  // `<operator>.<id>`: the id (base64url) holds no dot, a name may.
  const dot = cookie.value?.lastIndexOf('.') ?? -1;
  if (!cookie.valid || cookie.value === null || cookie.value.slice(0, dot) !== operator) return undefined;
  return cookie.value.slice(dot + 1);
}

export function registerLogin(
  app: FastifyInstance,
  options: AccessOptions,
  loginRequired: boolean,
  now: () => Date,
  guard: LoginGuard,
  audit: Audit,
  operators: OperatorStore,
  onLogin: ((outcome: 'success' | 'failure' | 'locked') => void) | undefined,
  fitCookie: (request: FastifyRequest) => void,
): void {
  const password = options.password;
  const delayMs = options.failedLoginDelayMs ?? 1_000;
  checkForms(app);
  const rateLimit = { max: LOGIN_POSTS_PER_MINUTE, timeWindow: 60_000 };
  if (!loginRequired) {
    app.post('/login', { config: { rateLimit } }, async (_request, reply) =>
      reply.code(303).header('location', '/').type('text/plain; charset=utf-8').send('no login is configured\n'),
    );
    return;
  }
  app.get('/login', async (request, reply) =>
    html(
      reply,
      200,
      loginPage(reply.generateCsrf(), localPath((request.query as { next?: unknown }).next), password !== undefined),
    ),
  );
  app.post('/login', { config: { rateLimit } }, async (request, reply) => {
    const form = formOf(request);
    const target = localPath(form.next);
    const sent = typeof form.password === 'string' ? form.password : '';
    // An empty name is CONSOLE_PASSWORD's one operator; a name is counted as given (cut to the
    // column's length), known or not, so guessing names buys nothing over guessing passwords.
    const given = typeof form.operator === 'string' ? form.operator.trim().toLowerCase().slice(0, 64) : '';
    const name = given === '' ? PASSWORD_OPERATOR : given;
    const device = deviceOf(request, name);
    let found: { role: OperatorRole; credential?: number } | undefined;
    // The operator's row is read before the guard's transaction; the scrypt check runs inside it.
    const verify = name === PASSWORD_OPERATOR ? undefined : await operators.verifier(name);
    const attempt = await guard.attempt({ address: request.ip, device }, name, async () => {
      if (verify === undefined) {
        if (password !== undefined && constantTimeEqual(sent, password)) found = { role: 'operator' };
      } else {
        const operator = await verify(sent);
        if (operator) found = { role: operator.role, credential: operator.credential };
      }
      return found !== undefined;
    });
    if (attempt.outcome === 'refused') {
      onLogin?.('locked');
      const { bound, retryAfterSeconds } = attempt.refusal;
      await audit(request, {
        operator: name,
        action: 'login',
        outcome: 'refused',
        detail:
          bound === 'busy'
            ? `too many logins waiting at once on the console: retry after ${retryAfterSeconds} s`
            : `too many wrong passwords (${bound === 'address' ? 'from this address' : bound === 'operator' ? 'for the operator' : 'on the console'}): retry after ${retryAfterSeconds} s`,
      });
      const minutes = Math.ceil(retryAfterSeconds / 60);
      const wait =
        bound === 'address'
          ? `${minutes} minute${minutes === 1 ? '' : 's'}`
          : `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`;
      const why = {
        address: `${ADDRESS_FAILURES} wrong passwords from this address`,
        operator: 'Too many wrong passwords for this operator, from any address: each next try waits twice as long',
        console: 'Too many wrong passwords on this console in the last minute: every login waits',
        busy: 'Too many logins are waiting on this console at once',
      }[bound];
      return html(
        reply.header('retry-after', String(bound === 'address' ? minutes * 60 : retryAfterSeconds)),
        429,
        page(
          'paykit console: too many attempts',
          `<h1>${bound === 'busy' ? 'Too many logins at once' : 'Too many failed logins'}</h1><p>${why}: try again in ${wait}.</p>`,
        ),
      );
    }
    if (attempt.outcome === 'failure' || found === undefined) {
      onLogin?.('failure');
      await audit(request, {
        operator: name,
        action: 'login',
        outcome: 'failure',
        detail: name === PASSWORD_OPERATOR ? 'wrong password' : 'wrong name or password, or a disabled operator',
      });
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return html(
        reply,
        401,
        loginPage(
          reply.generateCsrf(),
          target,
          password !== undefined,
          name === PASSWORD_OPERATOR ? 'Wrong password.' : 'Wrong operator name or password.',
        ),
      );
    }
    // A new session id at login: an id planted before it (session fixation) is never logged in.
    await request.session.regenerate();
    fitCookie(request);
    reply.setCookie(DEVICE_COOKIE, `${name}.${device ?? randomBytes(16).toString('base64url')}`, {
      path: '/login',
      httpOnly: true,
      sameSite: 'strict',
      secure: options.secureCookie === 'on' || request.protocol === 'https',
      signed: true,
      maxAge: DEVICE_DAYS * 24 * 60 * 60,
    });
    request.session.login = {
      operator: name,
      role: found.role,
      loginAt: now().toISOString(),
      ...(found.credential === undefined
        ? { mark: passwordMark(password!, options.markKey ?? '') }
        : { credential: found.credential }),
    };
    await audit(request, { operator: name, action: 'login', outcome: 'success', detail: `as ${found.role}` });
    onLogin?.('success');
    return reply.code(303).header('location', target).type('text/plain; charset=utf-8').send('logged in\n');
  });
}
