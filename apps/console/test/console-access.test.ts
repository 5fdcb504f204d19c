// Who may use the console, over a real socket: with CONSOLE_PASSWORD a login (wrong password
// refused and slowed, five failures lock the address out for 15 minutes), a login cookie that is
// HttpOnly, SameSite=Strict and Secure behind https, that expires and logs out; without it, this
// machine's clients only (a proxied request is refused with a page naming the variable). Every
// POST needs the same origin and the form's CSRF token; /metrics a bearer token when one is set;
// /healthz stays open. A non-loopback bind without a password or an operator is refused.
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { listParked } from '@paykit/ledger';
import type { OpenedTestDatabase } from '@paykit/store/testing';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindProblems, ConfigError, loadConfig } from '../src/config.ts';
import { createConsoleHealth } from '../src/health.ts';
import { createConsoleMetrics } from '../src/metrics.ts';
import { addressKey } from '../src/access/login-guard.ts';
import { startConsole, type ConsoleServer } from '../src/index.ts';
import { openWithParkedEvent } from './parked-event.ts';

const PASSWORD = TEST_SECRETS.consolePassword;
const METRICS_TOKEN = TEST_SECRETS.metricsToken;
const HTML = { accept: 'text/html' };

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
const cookieOf = (response: Response, name: string) =>
  response.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
const valueOf = (setCookie: string | undefined) => setCookie?.split(';')[0];
const form = (fields: Record<string, string>) => ({
  'content-type': 'application/x-www-form-urlencoded',
  body: new URLSearchParams(fields).toString(),
});

describe('console access', () => {
  let opened: OpenedTestDatabase;
  let clock = new Date('2026-11-21T18:00:00Z');
  const servers: ConsoleServer[] = [];

  const start = async (access: Parameters<typeof startConsole>[0]['access'], host = '127.0.0.1') => {
    const health = createConsoleHealth(opened.db);
    const server = await startConsole({
      db: opened.db,
      port: 0,
      host,
      staleAfterSeconds: 86_400,
      now: () => clock,
      health,
      access,
      metrics: createConsoleMetrics(opened.db, health, { defaultMetrics: false }).registry,
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    opened = await openWithParkedEvent();
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await opened?.drop();
  });

  describe('with CONSOLE_PASSWORD', () => {
    let server: ConsoleServer;
    beforeAll(async () => {
      server = await start({
        password: PASSWORD,
        sessionMinutes: 60,
        failedLoginDelayMs: 300,
        metricsToken: METRICS_TOKEN,
      });
    });

    /** The login form's token and its cookie, as a browser would hold them. */
    const loginForm = async (headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}/login`, { headers });
      const html = await response.text();
      return {
        csrf: csrfOf(html)!,
        cookie: valueOf(cookieOf(response, 'paykit_console_csrf'))!,
        setCookie: cookieOf(response, 'paykit_console_csrf')!,
      };
    };
    const logIn = async (password: string, headers: Record<string, string> = {}) => {
      const { csrf, cookie } = await loginForm();
      const { body, ...type } = form({ csrf, password, next: '/?state=orphan' });
      return fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, ...type, ...headers },
        body,
      });
    };
    const session = async () => valueOf(cookieOf(await logIn(PASSWORD), 'paykit_console'))!;

    it('sends a browser without a session to the login, and refuses exports and pages to other clients', async () => {
      const page = await fetch(`${server.url}/?state=orphan`, { headers: HTML, redirect: 'manual' });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/login?next=%2F%3Fstate%3Dorphan');
      for (const path of ['/items.csv', '/summary.json', '/parked.json', '/events/1', '/']) {
        const response = await fetch(`${server.url}${path}`);
        expect(response.status, path).toBe(401);
        expect(await response.text()).toMatch(/Log in first/);
      }
      const forged = await fetch(`${server.url}/items.csv`, { headers: { cookie: 'paykit_console=forged' } });
      expect(forged.status).toBe(401);
    });

    it('serves a login form whose cookie is HttpOnly and SameSite=Strict', async () => {
      const { csrf, setCookie } = await loginForm();
      expect(csrf).toMatch(/^[\w-]{40,}$/);
      expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict$/);
    });

    it('refuses a wrong password after a delay, and lets the right one in with a session cookie', async () => {
      const began = performance.now();
      const wrong = await logIn('not the password at all');
      expect(performance.now() - began).toBeGreaterThanOrEqual(290);
      expect(wrong.status).toBe(401);
      expect(await wrong.text()).toContain('Wrong password.');
      expect(cookieOf(wrong, 'paykit_console')).toBeUndefined();

      const right = await logIn(PASSWORD);
      expect(right.status).toBe(303);
      expect(right.headers.get('location')).toBe('/?state=orphan');
      const cookie = cookieOf(right, 'paykit_console')!;
      // The session id and its signature (@fastify/session), for this console's paths, an hour, out of scripts' reach.
      expect(cookie).toMatch(/^paykit_console=[\w-]{32,}\.[\w%+/=-]{40,}; /);
      for (const part of ['; Path=/', '; HttpOnly', '; SameSite=Strict']) expect(cookie).toContain(part);
      const expires = Date.parse(/; Expires=([^;]+)/.exec(cookie)![1]!);
      expect(Math.abs(expires - Date.now() - 3_600_000)).toBeLessThan(60_000);
      expect(cookie).not.toContain('Secure');
      const page = await fetch(`${server.url}/`, { headers: { cookie: valueOf(cookie)! } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toMatch(
        /<form method="post" action="\/logout" class="logout"><input type="hidden" name="csrf" value="[\w-]{40,}">/,
      );
      expect(html).not.toContain(PASSWORD);
      const csv = await fetch(`${server.url}/parked.csv`, { headers: { cookie: valueOf(cookie)! } });
      expect(csv.status).toBe(200);
      expect(await csv.text()).toMatch(/^seq,/);
    });

    it('marks the cookie Secure behind https, or when told to always', async () => {
      expect(cookieOf(await logIn(PASSWORD, { 'x-forwarded-proto': 'https' }), 'paykit_console')).toMatch(
        /; Secure(;|$)/,
      );
      const always = await start({ password: PASSWORD, secureCookie: 'on' });
      const response = await fetch(`${always.url}/login`);
      expect(cookieOf(response, 'paykit_console_csrf')).toMatch(/; Secure(;|$)/);
    });

    it('refuses a login without its CSRF token, or sent from another site', async () => {
      const { csrf, cookie } = await loginForm();
      const { body: passwordOnly, ...formType } = form({ password: PASSWORD });
      const noToken = await fetch(`${server.url}/login`, {
        method: 'POST',
        headers: { cookie, ...formType },
        body: passwordOnly,
      });
      expect(noToken.status).toBe(403);
      expect(await noToken.text()).toMatch(/no valid CSRF token/);
      const { body, ...type } = form({ csrf, password: PASSWORD });
      const crossSite = await fetch(`${server.url}/login`, {
        method: 'POST',
        headers: { cookie, ...type, origin: 'https://evil.example' },
        body,
      });
      expect(crossSite.status).toBe(403);
      expect(await crossSite.text()).toMatch(/another origin \(https:\/\/evil\.example\)/);
    });

    it('never redirects a login away from the console', async () => {
      for (const next of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', '/x\r\nset-cookie: a=b']) {
        const { csrf, cookie } = await loginForm();
        const { body, ...type } = form({ csrf, password: PASSWORD, next });
        const response = await fetch(`${server.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, ...type },
          body,
        });
        expect(response.status, next).toBe(303);
        expect(response.headers.get('location'), next).toBe('/');
      }
    });

    it("refuses a POST without the login's CSRF token or from another site, and takes it with both", async () => {
      const cookie = await session();
      const page = await (await fetch(`${server.url}/`, { headers: { cookie } })).text();
      expect(page).toMatch(/<form method="post" action="\/parked\/retry"><input type="hidden" name="csrf"/);
      const csrf = csrfOf(page)!;
      const retry = (headers: Record<string, string>, fields: Record<string, string>) => {
        const { body, ...type } = form(fields);
        return fetch(`${server.url}/parked/retry`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, ...type, ...headers },
          body,
        });
      };
      const noToken = await retry({}, {});
      expect(noToken.status).toBe(403);
      expect(await noToken.text()).toBe(
        'Refused: the form carries no valid CSRF token. Reload the console page and submit its form again.\n',
      );
      expect((await retry({}, { csrf: `${csrf.slice(0, -1)}x` })).status).toBe(403);
      const crossSite = await retry({ 'sec-fetch-site': 'cross-site' }, { csrf });
      expect(crossSite.status).toBe(403);
      expect(await crossSite.text()).toMatch(/sent from another site/);
      expect((await retry({ origin: 'null' }, { csrf })).status).toBe(403);
      const { body, ...type } = form({ csrf });
      const noSession = await fetch(`${server.url}/parked/retry`, { method: 'POST', headers: type, body });
      expect(noSession.status).toBe(403);
      expect(await noSession.text()).toMatch(/no console login/);
      expect((await listParked(opened.db))[0]).toMatchObject({ retry: false });
      const done = await retry({ origin: server.url, 'sec-fetch-site': 'same-origin' }, { csrf });
      expect(done.status).toBe(303);
      expect((await listParked(opened.db))[0]).toMatchObject({ retry: true });
    });

    it('refuses a token of another session, a POST the browser says no page sent, and a form that is not url-encoded', async () => {
      const [mine, theirs] = [await session(), await session()];
      const theirCsrf = csrfOf(await (await fetch(`${server.url}/`, { headers: { cookie: theirs } })).text())!;
      const myCsrf = csrfOf(await (await fetch(`${server.url}/`, { headers: { cookie: mine } })).text())!;
      expect(theirCsrf).not.toBe(myCsrf);
      const post = (headers: Record<string, string>, type: string, body: string) =>
        fetch(`${server.url}/parked/retry`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: mine, 'content-type': type, ...headers },
          body,
        });
      const urlencoded = 'application/x-www-form-urlencoded';
      expect((await post({}, urlencoded, `csrf=${encodeURIComponent(theirCsrf)}`)).status).toBe(403);
      expect((await post({ 'sec-fetch-site': 'none' }, urlencoded, `csrf=${encodeURIComponent(myCsrf)}`)).status).toBe(
        403,
      );
      expect(
        (await post({ 'sec-fetch-site': 'same-site' }, urlencoded, `csrf=${encodeURIComponent(myCsrf)}`)).status,
      ).toBe(403);
      // A form another site can send without a preflight: text/plain (read as text: no token), multipart (fastify refuses the type: 415).
      expect((await post({}, 'text/plain', `csrf=${myCsrf}`)).status).toBe(403);
      expect(
        (
          await post(
            {},
            'multipart/form-data; boundary=x',
            `--x\r\ncontent-disposition: form-data; name="csrf"\r\n\r\n${myCsrf}\r\n--x--\r\n`,
          )
        ).status,
      ).toBe(415);
      // And the same POST, url-encoded with this login's token, is taken.
      expect(
        (await post({ 'sec-fetch-site': 'same-origin' }, urlencoded, `csrf=${encodeURIComponent(myCsrf)}`)).status,
      ).toBe(303);
    });

    it('gives a fresh session id at login, whatever session cookie the browser brought (no fixation)', async () => {
      const planted = 'attacker-chosen-session-id';
      const { csrf, cookie } = await loginForm();
      const { body, ...type } = form({ csrf, password: PASSWORD });
      const response = await fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `${cookie}; paykit_console=${planted}`, ...type },
        body,
      });
      expect(response.status).toBe(303);
      const issued = valueOf(cookieOf(response, 'paykit_console'))!.split('=')[1]!;
      expect(issued).not.toBe(planted);
      expect(issued.length).toBeGreaterThanOrEqual(43);
      expect(
        (await fetch(`${server.url}/items.csv`, { headers: { cookie: `paykit_console=${planted}` } })).status,
      ).toBe(401);
    });

    it('ends the session on logout and when it expires', async () => {
      const cookie = await session();
      const csrf = csrfOf(await (await fetch(`${server.url}/`, { headers: { cookie } })).text())!;
      const { body, ...type } = form({ csrf });
      const out = await fetch(`${server.url}/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, ...type },
        body,
      });
      expect(out.status).toBe(303);
      expect(out.headers.get('location')).toBe('/login');
      expect(cookieOf(out, 'paykit_console')).toMatch(/^paykit_console=; Max-Age=0; Path=\/;/);
      expect((await fetch(`${server.url}/items.json`, { headers: { cookie } })).status).toBe(401);

      const later = await session();
      expect((await fetch(`${server.url}/items.json`, { headers: { cookie: later } })).status).toBe(200);
      clock = new Date(clock.getTime() + 61 * 60_000);
      expect((await fetch(`${server.url}/items.json`, { headers: { cookie: later } })).status).toBe(401);
    });

    it('keeps /healthz open, and /metrics behind METRICS_TOKEN', async () => {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const none = await fetch(`${server.url}/metrics`);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect(await none.text()).toBe('Send Authorization: Bearer <METRICS_TOKEN>.\n');
      expect(
        (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}x` } })).status,
      ).toBe(401);
      const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('console_store_ok 1');
    });

    it('locks an address out for 15 minutes after 5 wrong passwords, the right one included', async () => {
      const locked = await start({ password: PASSWORD, failedLoginDelayMs: 0 });
      const attempt = async (password: string) => {
        const login = await fetch(`${locked.url}/login`);
        const { body, ...type } = form({ csrf: csrfOf(await login.text())!, password });
        return fetch(`${locked.url}/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: valueOf(cookieOf(login, 'paykit_console_csrf'))!, ...type },
          body,
        });
      };
      const wrong = await Promise.all(Array.from({ length: 8 }, () => attempt('guess guess guess')));
      expect(wrong.map((r) => r.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      const refused = await attempt(PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('900');
      expect(await refused.text()).toMatch(/try again in 15 minutes/);
      clock = new Date(clock.getTime() + 15 * 60_000);
      expect((await attempt(PASSWORD)).status).toBe(303);
    });

    /** A login from the client address `from` (every 127/8 address is this machine's), with `headers` added. */
    const attemptFrom = (
      url: string,
      from: string,
      password: string,
      headers: Record<string, string> = {},
      device?: string,
    ) =>
      new Promise<{ status: number; retryAfter: string | undefined; text: string; cookies: string[] }>(
        (resolve, reject) => {
          const { port } = new URL(url);
          const post = (csrfCookie: string, csrf: string) => {
            const cookie = device === undefined ? csrfCookie : `${csrfCookie}; ${device}`;
            const body = new URLSearchParams({ csrf, password }).toString();
            request(
              {
                host: '127.0.0.1',
                port,
                localAddress: from,
                method: 'POST',
                path: '/login',
                headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
              },
              (res) => {
                let text = '';
                res.on('data', (chunk: Buffer) => (text += chunk.toString()));
                res.on('end', () =>
                  resolve({
                    status: res.statusCode!,
                    retryAfter: res.headers['retry-after'],
                    text,
                    cookies: res.headers['set-cookie'] ?? [],
                  }),
                );
              },
            )
              .on('error', reject)
              .end(body);
          };
          request({ host: '127.0.0.1', port, localAddress: from, path: '/login' }, (res) => {
            let html = '';
            res.on('data', (chunk: Buffer) => (html += chunk.toString()));
            res.on('end', () =>
              post(
                valueOf(res.headers['set-cookie']?.find((c) => c.startsWith('paykit_console_csrf=')))!,
                csrfOf(html)!,
              ),
            );
          })
            .on('error', reject)
            .end();
        },
      );
    const WRONG = 'guess guess guess';

    it('delays the operator after 5 wrong passwords from any addresses and any replica, twice as long each time', async () => {
      const [a, b] = [
        await start({ password: PASSWORD, failedLoginDelayMs: 0 }),
        await start({ password: PASSWORD, failedLoginDelayMs: 0 }),
      ];
      for (const [i, from] of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6'].entries())
        expect((await attemptFrom((i % 2 ? a : b).url, from, WRONG)).status, from).toBe(401);
      // A sixth address, the right password: the operator waits 1 s after its fifth failure.
      const early = await attemptFrom(a.url, '127.0.0.7', PASSWORD);
      expect([early.status, early.retryAfter]).toEqual([429, '1']);
      expect(early.text).toMatch(/for this operator, from any address/);
      clock = new Date(clock.getTime() + 1_000);
      expect((await attemptFrom(b.url, '127.0.0.7', WRONG)).status).toBe(401);
      expect((await attemptFrom(a.url, '127.0.0.8', WRONG)).retryAfter).toBe('2');
      clock = new Date(clock.getTime() + 2_000);
      // The right password, once the wait is over: in, and the operator's count starts again.
      expect((await attemptFrom(a.url, '127.0.0.8', PASSWORD)).status).toBe(303);
      expect((await attemptFrom(b.url, '127.0.0.9', WRONG)).status).toBe(401);
    });

    it('refuses every login for the rest of the minute past the console-wide ceiling of failures', async () => {
      clock = new Date(clock.getTime() + 15 * 60_000);
      const ceiling = await start({ password: PASSWORD, failedLoginDelayMs: 0, failuresPerMinute: 3 });
      for (const from of ['127.0.1.2', '127.0.1.3', '127.0.1.4'])
        expect((await attemptFrom(ceiling.url, from, WRONG)).status, from).toBe(401);
      const refused = await attemptFrom(ceiling.url, '127.0.1.5', PASSWORD);
      expect([refused.status, refused.retryAfter]).toEqual([429, '60']);
      expect(refused.text).toMatch(/on this console in the last minute/);
      clock = new Date(clock.getTime() + 60_000);
      expect((await attemptFrom(ceiling.url, '127.0.1.5', PASSWORD)).status).toBe(303);
    });

    it('lets a browser that logged in before in while wrong passwords from elsewhere hold the operator and the console', async () => {
      clock = new Date(clock.getTime() + 15 * 60_000);
      const held = await start({ password: PASSWORD, failedLoginDelayMs: 0, failuresPerMinute: 3 });
      const first = await attemptFrom(held.url, '127.0.3.2', PASSWORD);
      expect(first.status).toBe(303);
      const set = first.cookies.find((c) => c.startsWith('paykit_console_device='))!;
      expect(set).toMatch(/; Path=\/login; .*HttpOnly; SameSite=Strict/);
      const device = set.split(';', 1)[0]!;
      // Someone else sends wrong passwords from five addresses: the operator's and the console's bounds hold.
      for (const from of ['127.0.3.3', '127.0.3.4', '127.0.3.5', '127.0.3.6', '127.0.3.7'])
        await attemptFrom(held.url, from, WRONG);
      expect((await attemptFrom(held.url, '127.0.3.8', PASSWORD)).status).toBe(429);
      // A forged or another operator's device cookie is no device.
      expect((await attemptFrom(held.url, '127.0.3.8', PASSWORD, {}, `${device}x`)).status).toBe(429);
      // The operator's own browser is judged by its own failures only, from any address.
      expect((await attemptFrom(held.url, '127.0.3.9', PASSWORD, {}, device)).status).toBe(303);
      // The device's own 5 wrong passwords refuse the device, the right one included.
      for (let i = 0; i < 5; i++)
        expect((await attemptFrom(held.url, '127.0.3.9', WRONG, {}, device)).status).toBe(401);
      expect((await attemptFrom(held.url, '127.0.3.9', PASSWORD, {}, device)).status).toBe(429);
    });

    it('counts an IPv6 address by its /64, an IPv4-mapped one as IPv4', () => {
      expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
      expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
      expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
      expect(addressKey('::1')).toBe('0:0:0:0::/64');
      expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
      expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    });

    it('believes X-Forwarded-For from a trusted proxy only (CONSOLE_TRUSTED_PROXIES)', async () => {
      clock = new Date(clock.getTime() + 15 * 60_000);
      const behindProxy = await startConsole({
        db: opened.db,
        port: 0,
        host: '127.0.0.1',
        staleAfterSeconds: 86_400,
        now: () => clock,
        access: { password: PASSWORD, failedLoginDelayMs: 0 },
        trustProxy: '127.0.2.1',
      });
      servers.push(behindProxy);
      const viaProxy = (client: string, password: string) =>
        attemptFrom(behindProxy.url, '127.0.2.1', password, { 'x-forwarded-for': client });
      for (let i = 0; i < 5; i++) expect((await viaProxy('203.0.113.9', WRONG)).status).toBe(401);
      clock = new Date(clock.getTime() + 1_000);
      // Through the proxy: its clients are told apart, so another client is not locked out.
      expect((await viaProxy('203.0.113.9', PASSWORD)).status).toBe(429);
      expect((await viaProxy('203.0.113.10', PASSWORD)).status).toBe(303);
      // Not through it: X-Forwarded-For is not believed, the sending address counts.
      for (const client of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4', '198.51.100.5'])
        expect((await attemptFrom(behindProxy.url, '127.0.2.2', WRONG, { 'x-forwarded-for': client })).status).toBe(
          401,
        );
      clock = new Date(clock.getTime() + 1_000);
      expect(
        (await attemptFrom(behindProxy.url, '127.0.2.2', PASSWORD, { 'x-forwarded-for': '198.51.100.6' })).status,
      ).toBe(429);
    });
  });

  describe('without CONSOLE_PASSWORD', () => {
    it('serves this machine with no login, CSRF still required on every POST', async () => {
      const server = await start(undefined);
      const page = await fetch(`${server.url}/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).not.toContain('action="/logout"');
      const login = await fetch(`${server.url}/login`, { redirect: 'manual' });
      expect([login.status, login.headers.get('location')]).toEqual([303, '/']);
      const csrf = csrfOf(html)!;
      expect(csrf).toBeDefined();
      // The token's secret is in a cookie (there is no login to hold it): a browser sends it back.
      const cookie = valueOf(cookieOf(page, 'paykit_console_csrf'))!;
      expect((await fetch(`${server.url}/parked/retry`, { method: 'POST', redirect: 'manual' })).status).toBe(403);
      const { body, ...fields } = form({ csrf });
      const type = { ...fields, cookie };
      expect(
        (
          await fetch(`${server.url}/parked/retry`, {
            method: 'POST',
            redirect: 'manual',
            headers: { ...type, 'sec-fetch-site': 'same-site' },
            body,
          })
        ).status,
      ).toBe(403);
      expect(
        (await fetch(`${server.url}/parked/retry`, { method: 'POST', redirect: 'manual', headers: type, body })).status,
      ).toBe(303);
      expect((await fetch(`${server.url}/items.csv`)).status).toBe(200);
      expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
    });

    it('refuses a page of another site that resolves its name to 127.0.0.1 (DNS rebinding)', async () => {
      const server = await start(undefined);
      const { port } = new URL(server.url);
      const statusFor = (host: string) =>
        new Promise<number>((resolve, reject) => {
          request({ host: '127.0.0.1', port, path: '/items.json', headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
            .on('error', reject)
            .end();
        });
      expect(await statusFor(`rebind.example:${port}`)).toBe(403);
      expect(await statusFor('rebind.example')).toBe(403);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost'])
        expect(await statusFor(host), host).toBe(200);
    });

    it("refuses a proxied request and another machine's with a page naming CONSOLE_PASSWORD", async () => {
      const server = await start(undefined, '0.0.0.0');
      const port = new URL(server.url).port;
      const proxied = await fetch(`http://127.0.0.1:${port}/items.csv`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(proxied.status).toBe(403);
      expect(await proxied.text()).toMatch(
        /answers clients of 127\.0\.0\.1 and ::1 only.*set <code>CONSOLE_PASSWORD<\/code>/s,
      );
      expect((await fetch(`http://127.0.0.1:${port}/`, { headers: { forwarded: 'for=203.0.113.9' } })).status).toBe(
        403,
      );
      expect(
        (await fetch(`http://127.0.0.1:${port}/healthz`, { headers: { 'x-forwarded-for': '203.0.113.9' } })).status,
      ).toBe(200);
      // This machine's own non-loopback address, when it has one, is "another machine" to the console.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal);
      if (external) expect((await fetch(`http://${external.address}:${port}/`)).status).toBe(403);
    });
  });

  describe('the configuration', () => {
    const problemsOf = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
    };

    it('refuses to bind beyond this machine without CONSOLE_PASSWORD or an operator', () => {
      const noLogin = { password: undefined, operators: false };
      expect(bindProblems('0.0.0.0', noLogin)).toEqual([
        'CONSOLE_HOST=0.0.0.0 would open the console beyond this machine with no login: add an operator (paykit operators add <name> --role operator) or set CONSOLE_PASSWORD (at least 12 characters) to require one, or bind CONSOLE_HOST=127.0.0.1',
      ]);
      expect(bindProblems('10.1.2.3', noLogin)).toHaveLength(1);
      for (const host of ['127.0.0.1', '::1', 'localhost', '127.0.0.2'])
        expect(bindProblems(host, noLogin), host).toEqual([]);
      expect(bindProblems('0.0.0.0', { password: PASSWORD, operators: false })).toEqual([]);
      expect(bindProblems('0.0.0.0', { password: undefined, operators: true })).toEqual([]);
      // Whether an operator is active is known once the database is open: loadConfig takes the host as given.
      expect(problemsOf({ CONSOLE_HOST: '0.0.0.0' })).toEqual([]);
      expect(loadConfig({ CONSOLE_HOST: '0.0.0.0', CONSOLE_PASSWORD: PASSWORD }).console).toEqual({
        password: PASSWORD,
        sessionMinutes: 480,
        failuresPerMinute: 60,
        secureCookie: 'auto',
      });
    });

    it('takes an identity header only beside a trusted proxy, and never a header sent for other reasons', () => {
      expect(loadConfig({ CONSOLE_IDENTITY_HEADER: 'X-Forwarded-User' }).console.identityHeader).toBe(
        'x-forwarded-user',
      );
      expect(problemsOf({ CONSOLE_IDENTITY_HEADER: 'X-Forwarded-User', CONSOLE_TRUSTED_PROXIES: 'none' })).toEqual([
        'CONSOLE_IDENTITY_HEADER needs the authenticating proxy listed in CONSOLE_TRUSTED_PROXIES (it is "none"): the header is believed from those addresses only',
      ]);
      expect(problemsOf({ CONSOLE_IDENTITY_HEADER: 'Cookie' })[0]).toMatch(/a header of its own that your proxy sets/);
      expect(problemsOf({ CONSOLE_IDENTITY_HEADER: 'X User' })[0]).toMatch(/must be a header name/);
      expect(
        bindProblems('0.0.0.0', { password: undefined, operators: false, identityHeader: 'x-forwarded-user' }),
      ).toEqual([]);
    });

    it('names a short password or metrics token by its length, never its value', () => {
      const found = problemsOf({
        CONSOLE_PASSWORD: 'hunter2',
        METRICS_TOKEN: 'scrape-me',
        CONSOLE_SECURE_COOKIE: 'yes',
        CONSOLE_SESSION_MINUTES: '0',
      });
      expect(found).toEqual([
        'CONSOLE_PASSWORD is 7 characters; use at least 12 (e.g. openssl rand -base64 18)',
        'CONSOLE_SESSION_MINUTES must be a whole number from 1 to 10080, got "0"',
        'CONSOLE_SECURE_COOKIE must be "auto" (Secure over https) or "on" (always Secure)',
        'METRICS_TOKEN is 9 characters; use a random token of at least 32 (e.g. openssl rand -hex 32)',
      ]);
      expect(found.join('\n')).not.toMatch(/hunter2|scrape-me/);
      expect(problemsOf({ CONSOLE_PASSWORD: ` ${PASSWORD}\n` })).toEqual([
        'CONSOLE_PASSWORD starts or ends with whitespace: remove it (a stray newline from a .env file is the usual cause)',
      ]);
    });
  });
});
