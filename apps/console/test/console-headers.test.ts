// Every console response carries the framing, sniffing, referrer and content-security headers,
// over a real socket, with and without a login: the login form, a page, an export, a stored event,
// the stylesheet, the probes, a bad filter (400), a refusal (401, 403), a redirect (303) and a 404.
import { listParked } from '@paykit/ledger';
import type { OpenedTestDatabase } from '@paykit/store/testing';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../src/access/headers.ts';
import { createConsoleHealth } from '../src/health.ts';
import { createConsoleMetrics } from '../src/metrics.ts';
import type { ConsoleOptions, ConsoleServer } from '../src/index.ts';
import { startTestConsole } from './test-console.ts';
import { openWithParkedEvent } from './parked-event.ts';

const PASSWORD = TEST_SECRETS.consolePassword;

function expectSecured(response: Response, what: string): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS))
    expect(response.headers.get(name), `${what}: ${name}`).toBe(value);
  const csp = response.headers.get('content-security-policy') ?? '';
  expect(csp, what).toMatch(/frame-ancestors 'none'/);
  expect(csp, what).toMatch(/default-src 'none'/);
  expect(csp, what).toMatch(/style-src 'self'(;|$)/);
  expect(response.headers.get('x-frame-options'), what).toBe('DENY');
}

describe('console security headers', () => {
  let opened: OpenedTestDatabase;
  let seq: string;
  const servers: ConsoleServer[] = [];

  const start = async (access: ConsoleOptions['access']) => {
    const health = createConsoleHealth(opened.db);
    const server = await startTestConsole(opened.db, {
      health,
      access,
      metrics: createConsoleMetrics(opened.db, health, { defaultMetrics: false }).registry,
    });
    servers.push(server);
    return server;
  };

  /** Every route class, as [what, path, init]; each is checked for its status and its headers. */
  const routes = (extra: Record<string, string>, csrf: string): [string, string, RequestInit, number][] => [
    ['a page', '/', { headers: extra }, 200],
    ['a list', '/items?sort=-amount', { headers: extra }, 200],
    ['a CSV export', '/items.csv', { headers: extra }, 200],
    ['a JSON export', '/parked.json', { headers: extra }, 200],
    ['a stored event', `/events/${seq}`, { headers: extra }, 200],
    ['a missing stored event', '/events/999999', { headers: extra }, 404],
    ['a 404', '/nowhere', { headers: extra }, 404],
    ['a bad filter', '/items?from=yesterday', { headers: extra }, 400],
    ['a bad export filter', '/items.csv?limit=0', { headers: extra }, 400],
    ['a POST without its CSRF token', '/parked/retry', { method: 'POST', headers: extra }, 403],
    [
      'a POST from another site',
      '/parked/retry',
      {
        method: 'POST',
        headers: { ...extra, 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
        body: `csrf=${csrf}`,
      },
      403,
    ],
    ['the stylesheet', '/console.css', { headers: extra }, 200],
    ['the health probe', '/healthz', {}, 200],
    ['the metrics', '/metrics', {}, 200],
  ];

  beforeAll(async () => {
    opened = await openWithParkedEvent();
    seq = (await listParked(opened.db))[0]!.seq;
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await opened?.drop();
  });

  it('sends them on every answer of a console without a login', async () => {
    const server = await start({});
    const overview = await fetch(`${server.url}/`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await overview.text())?.[1] ?? '';
    for (const [what, path, init, status] of routes({}, csrf)) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
      await response.arrayBuffer();
      expect(response.status, what).toBe(status);
      expectSecured(response, what);
    }
    const proxied = await fetch(`${server.url}/`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(proxied.status).toBe(403);
    expectSecured(proxied, 'a client of another machine');
    const login = await fetch(`${server.url}/login`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    expectSecured(login, 'the login of a console without one');
  });

  it('sends them on every answer of a console behind its login, before and after logging in', async () => {
    const server = await start({ password: PASSWORD, failedLoginDelayMs: 10 });
    const form = await fetch(`${server.url}/login`);
    const html = await form.text();
    expect(form.status).toBe(200);
    expectSecured(form, 'the login page');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const loginCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const post = (password: string) =>
      fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: loginCookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, password, next: '/' }).toString(),
      });
    const wrong = await post('not the password');
    await wrong.arrayBuffer();
    expect(wrong.status).toBe(401);
    expectSecured(wrong, 'a wrong password');
    for (const [what, path, headers, status] of [
      ['a page without a login (browser)', '/', { accept: 'text/html' }, 303],
      ['a page without a login', '/', {}, 401],
      ['an export without a login', '/items.csv', {}, 401],
      ['a POST without a login', '/parked/retry', {}, 403],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, {
        method: path === '/parked/retry' ? 'POST' : 'GET',
        headers,
        redirect: 'manual',
      });
      await response.arrayBuffer();
      expect(response.status, what).toBe(status);
      expectSecured(response, what);
    }
    const loggedIn = await post(PASSWORD);
    expect(loggedIn.status).toBe(303);
    expectSecured(loggedIn, 'the login');
    const cookie = loggedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('paykit_console='))!
      .split(';')[0]!;
    for (const [what, path, init, status] of routes({ cookie }, csrf)) {
      const response = await fetch(`${server.url}${path}`, { redirect: 'manual', ...init });
      await response.arrayBuffer();
      expect(response.status, what).toBe(status);
      expectSecured(response, what);
    }
  });
});
