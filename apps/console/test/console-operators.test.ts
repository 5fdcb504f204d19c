// Named operators over a real socket: a console with an active operator asks every client for a
// login by name and password (scrypt, @paykit/store's operators); a viewer reads and exports, sees
// no action, and is refused one (403, audited); an operator acts (audited with their name); a
// disable, a password reset or a logout ends a login on every replica at its next request, and a
// role change is taken at the next request. Wrong names and wrong passwords read alike. Beside
// CONSOLE_PASSWORD, an empty name is its one operator. Behind an authenticating proxy, the
// operator its identity header names, from a trusted proxy only. With an operator, a console bound
// beyond this machine asks every client for a login (without one, main.ts refuses that bind). A
// console started without a login serves no page once an operator is added, until it is restarted.
import { listParked } from '@paykit/ledger';
import { createOperatorStore, type OperatorStore } from '@paykit/store';
import type { OpenedTestDatabase } from '@paykit/store/testing';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleServer } from '../src/index.ts';
import { openWithParkedEvent } from './parked-event.ts';
import { cookieOf, csrfOf, logIn, startTestConsole } from './test-console.ts';

const VIEWER_PASSWORD = 'viewer pass phrase 1';
const OPERATOR_PASSWORD = 'operator pass phrase 2';
const HTML = { accept: 'text/html' };
const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };
const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('named operators', () => {
  let opened: OpenedTestDatabase;
  let operators: OperatorStore;
  const servers: ConsoleServer[] = [];
  let first: ConsoleServer;
  let second: ConsoleServer;
  const start = async (
    options: { password?: string; host?: string; identityHeader?: string; trustProxy?: string | boolean } = {},
  ) => {
    const server = await startTestConsole(opened.db, {
      host: options.host ?? '127.0.0.1',
      access: {
        password: options.password,
        sessionMinutes: 60,
        failedLoginDelayMs: 50,
        identityHeader: options.identityHeader,
      },
      ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    opened = await openWithParkedEvent();
    operators = createOperatorStore(opened.db);
    await operators.add({ name: 'vera', role: 'viewer', password: VIEWER_PASSWORD });
    await operators.add({ name: 'omar', role: 'operator', password: OPERATOR_PASSWORD });
    first = await start();
    second = await start();
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) await server.close();
    await opened?.drop();
  });

  const sessionOf = async (server: ConsoleServer, operator: string, password: string) => {
    const answer = await logIn(server.url, operator, password);
    expect(answer.status, await answer.text()).toBe(303);
    return cookieOf(answer, 'paykit_console')!;
  };
  /** The parked page as `cookie` sees it, and a POST of its retry form (or of a token drawn from it). */
  const parkedPage = (server: ConsoleServer, cookie: string) =>
    fetch(`${server.url}/parked`, { headers: { ...HTML, cookie } });
  const retry = async (server: ConsoleServer, cookie: string, csrf: string) => {
    const { headers, body } = form({ csrf });
    return fetch(`${server.url}/parked/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, ...SAME_ORIGIN, cookie },
      body,
    });
  };
  const auditRows = async (action: string) =>
    (
      await opened.db.query<{ operator: string | null; outcome: string; detail: string | null }>(
        'SELECT operator, outcome, detail FROM console_audit WHERE action = $1 ORDER BY id',
        [action],
      )
    ).rows;

  it('asks for a name and a password, and reads a wrong name and a wrong password alike', async () => {
    const page = await fetch(`${first.url}/`, { headers: HTML, redirect: 'manual' });
    expect(page.status).toBe(303);
    const login = await (await fetch(`${first.url}/login`)).text();
    expect(login).toContain('name="operator"');
    expect(login).toContain('paykit operators add');
    expect(login).not.toContain('CONSOLE_PASSWORD');
    for (const [name, password] of [
      ['vera', 'not her password!'],
      ['nobody', VIEWER_PASSWORD],
      ['', VIEWER_PASSWORD],
    ] as const) {
      const wrong = await logIn(first.url, name, password);
      expect(wrong.status, name).toBe(401);
      expect(await wrong.text()).toContain(name === '' ? 'Wrong password.' : 'Wrong operator name or password.');
      expect(cookieOf(wrong, 'paykit_console')).toBeUndefined();
    }
    expect((await auditRows('login')).map((r) => [r.operator, r.outcome])).toEqual([
      ['vera', 'failure'],
      ['nobody', 'failure'],
      ['console', 'failure'],
    ]);
  });

  it('lets a viewer read and export on every replica, shows no action, and refuses one, audited', async () => {
    const cookie = await sessionOf(first, 'Vera', VIEWER_PASSWORD);
    for (const server of [first, second]) {
      const page = await parkedPage(server, cookie);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).not.toContain('action="/parked/retry"');
      expect(html).toContain('operators only');
      expect((await fetch(`${server.url}/parked.csv`, { headers: { cookie } })).status).toBe(200);
    }
    // A token of her own login (the logout form's), posted to the action by hand.
    const csrf = csrfOf(await (await parkedPage(first, cookie)).text())!;
    const refused = await retry(second, cookie, csrf);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/vera is a viewer; viewers read and export, operators act/);
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: false });
    expect(await auditRows('retry-parked')).toEqual([
      { operator: 'vera', outcome: 'refused', detail: 'a viewer may not act' },
    ]);
  });

  it('lets an operator act, audited with their name, and takes a role change at the next request', async () => {
    const omar = await sessionOf(second, 'omar', OPERATOR_PASSWORD);
    const html = await (await parkedPage(first, omar)).text();
    expect(html).toContain('action="/parked/retry"');
    const done = await retry(first, omar, csrfOf(html)!);
    expect(done.status).toBe(303);
    expect((await listParked(opened.db))[0]).toMatchObject({ retry: true });
    expect((await auditRows('retry-parked')).at(-1)).toMatchObject({ operator: 'omar', outcome: 'success' });

    const vera = await sessionOf(first, 'vera', VIEWER_PASSWORD);
    await operators.setRole('vera', 'operator');
    const now = await (await parkedPage(second, vera)).text();
    expect(now).toContain('action="/parked/retry"');
    expect((await retry(second, vera, csrfOf(now)!)).status).toBe(303);
    await operators.setRole('vera', 'viewer');
    expect(await (await parkedPage(first, vera)).text()).not.toContain('action="/parked/retry"');
  });

  it('ends a login on every replica at once when the operator is disabled or their password reset', async () => {
    const loggedOut = async (cookie: string) => {
      for (const server of [first, second]) {
        const page = await fetch(`${server.url}/parked`, { headers: { ...HTML, cookie }, redirect: 'manual' });
        expect(page.status).toBe(303);
        expect(page.headers.get('location')).toMatch(/^\/login/);
      }
    };
    const vera = await sessionOf(first, 'vera', VIEWER_PASSWORD);
    expect((await parkedPage(second, vera)).status).toBe(200);
    await operators.reset('vera', 'a new viewer phrase');
    await loggedOut(vera);
    expect((await logIn(first.url, 'vera', VIEWER_PASSWORD)).status).toBe(401);
    const again = await sessionOf(second, 'vera', 'a new viewer phrase');
    expect((await parkedPage(first, again)).status).toBe(200);
    await operators.disable('vera');
    await loggedOut(again);
    expect((await logIn(first.url, 'vera', 'a new viewer phrase')).status).toBe(401);
    expect((await auditRows('login')).at(-1)).toMatchObject({
      operator: 'vera',
      outcome: 'failure',
      detail: 'wrong name or password, or a disabled operator',
    });
  });

  it('beside CONSOLE_PASSWORD, logs its one operator in with an empty name, and named operators by name', async () => {
    const both = await start({ password: TEST_SECRETS.consolePassword });
    expect(await (await fetch(`${both.url}/login`)).text()).toContain('CONSOLE_PASSWORD, leave the name empty');
    const console_ = await sessionOf(both, '', TEST_SECRETS.consolePassword);
    expect(await (await parkedPage(both, console_)).text()).toContain('action="/parked/retry"');
    // A login made before logins had roles holds none: CONSOLE_PASSWORD's is an operator's still.
    await opened.db.query(
      "UPDATE console_sessions SET data = data #- '{login,role}' WHERE data->'login'->>'operator' = 'console'",
    );
    expect(await (await parkedPage(both, console_)).text()).toContain('action="/parked/retry"');
    const omar = await sessionOf(both, 'omar', OPERATOR_PASSWORD);
    expect((await parkedPage(both, omar)).status).toBe(200);
    // The console's password is no named operator's.
    expect((await logIn(both.url, 'omar', TEST_SECRETS.consolePassword)).status).toBe(401);
  });

  it('behind an authenticating proxy, takes the operator its header names from a trusted address only', async () => {
    await operators.add({ name: 'pia', role: 'viewer', password: VIEWER_PASSWORD });
    await operators.add({ name: 'otto', role: 'operator', password: OPERATOR_PASSWORD });
    const behind = await start({ identityHeader: 'x-forwarded-user', trustProxy: 'loopback' });
    const as = (name: string, extra: Record<string, string> = {}) => ({ ...HTML, 'x-forwarded-user': name, ...extra });
    // A viewer: pages, no action; an operator: the action, audited under the proxy's name.
    const pia = await fetch(`${behind.url}/parked`, { headers: as('Pia') });
    expect(pia.status).toBe(200);
    const piaPage = await pia.text();
    expect(piaPage).not.toContain('action="/parked/retry"');
    expect(piaPage).not.toContain('action="/logout"');
    const otto = await fetch(`${behind.url}/parked`, { headers: as('otto') });
    const ottoPage = await otto.text();
    expect(ottoPage).toContain('action="/parked/retry"');
    const csrfCookie = cookieOf(otto, 'paykit_console')!;
    const { headers, body } = form({ csrf: csrfOf(ottoPage)! });
    const done = await fetch(`${behind.url}/parked/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...headers, ...SAME_ORIGIN, 'x-forwarded-user': 'otto', cookie: csrfCookie },
      body,
    });
    expect(done.status, await done.text()).toBe(303);
    expect((await auditRows('retry-parked')).at(-1)).toMatchObject({ operator: 'otto', outcome: 'success' });
    // A name that is no active operator, and no name: refused, or sent to the login form.
    const stranger = await fetch(`${behind.url}/parked`, { headers: as('mallory') });
    expect(stranger.status).toBe(403);
    expect(await stranger.text()).toMatch(/the proxy says this is mallory, who is no active operator/);
    expect((await fetch(`${behind.url}/parked`, { headers: HTML, redirect: 'manual' })).status).toBe(303);

    // The same header from an address that is no trusted proxy is refused, whoever it names.
    const untrusted = await start({ identityHeader: 'x-forwarded-user', trustProxy: '10.0.0.0/8' });
    const forged = await fetch(`${untrusted.url}/parked`, { headers: as('otto') });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toMatch(/believed only from a proxy in CONSOLE_TRUSTED_PROXIES/);
  });

  it('asks for a login on every address it binds when an operator is active', async () => {
    const open = await start({ host: '0.0.0.0' });
    const port = new URL(open.url).port;
    expect((await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' })).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/`, { headers: HTML, redirect: 'manual' })).status).toBe(303);
  });
});

describe('a console started without a login when the first operator is added', () => {
  it('serves no page until it is restarted, and serves again if that operator is disabled', async () => {
    const opened = await openWithParkedEvent();
    const server = await startTestConsole(opened.db);
    try {
      expect((await fetch(`${server.url}/parked`)).status).toBe(200);
      const operators = createOperatorStore(opened.db);
      await operators.add({ name: 'nora', role: 'operator', password: OPERATOR_PASSWORD });
      for (const path of ['/', '/parked', '/items.csv', '/login']) {
        const answer = await fetch(`${server.url}${path}`, { redirect: 'manual' });
        expect(answer.status, path).toBe(503);
        expect(await answer.text(), path).toContain('An operator was added after this console started without a login');
      }
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const { headers, body } = form({});
      const retry = await fetch(`${server.url}/parked/retry`, {
        method: 'POST',
        headers: { ...headers, ...SAME_ORIGIN },
        body,
      });
      expect(retry.status).toBe(503);
      expect((await listParked(opened.db))[0]).toMatchObject({ retry: false });

      await operators.disable('nora');
      expect((await fetch(`${server.url}/parked`)).status).toBe(200);
    } finally {
      await server.close();
      await opened.drop();
    }
  });
});
