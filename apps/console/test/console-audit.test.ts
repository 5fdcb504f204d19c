// The audit trail over a real socket: a wrong login, a refused one, a right one, a retry of the
// parked events, a release refused and a logout are each one record (who, when, from where, what,
// the outcome), on its page, narrowed by action and outcome, and in its CSV and JSON exports; on a
// console without a password the actions are recorded as this machine's.
import { parse } from 'csv-parse/sync';
import type { OpenedTestDatabase } from '@paykit/store/testing';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type ConsoleServer } from '../src/index.ts';
import { cookieOf, csrfOf } from './test-console.ts';
import { openWithParkedEvent } from './parked-event.ts';

const PASSWORD = TEST_SECRETS.consolePassword;
const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

describe('the audit trail', () => {
  let opened: OpenedTestDatabase;
  const clock = new Date('2026-11-21T18:00:00Z');
  const servers: ConsoleServer[] = [];
  const start = async (password?: string) => {
    const server = await startConsole({
      db: opened.db,
      port: 0,
      host: '127.0.0.1',
      staleAfterSeconds: 86_400,
      now: () => clock,
      access: { password, failedLoginDelayMs: 0, failuresPerMinute: 2 },
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

  it('keeps every login, logout and action of an operator, with its page and exports', async () => {
    const server = await start(PASSWORD);
    const logIn = async (password: string) => {
      const form = await fetch(`${server.url}/login`);
      const csrf = csrfOf(await form.text())!;
      return fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, cookie: cookieOf(form, 'paykit_console_csrf')! },
        body: new URLSearchParams({ csrf, password }).toString(),
      });
    };
    expect((await logIn('guess guess guess')).status).toBe(401);
    expect((await logIn('guess guess again')).status).toBe(401);
    // The console's ceiling (2 a minute here): refused, the right password included.
    expect((await logIn(PASSWORD)).status).toBe(429);
    await opened.db.query('DELETE FROM console_login_failures');
    const cookie = cookieOf(await logIn(PASSWORD), 'paykit_console')!;
    const csrf = csrfOf(await (await fetch(`${server.url}/parked`, { headers: { cookie } })).text())!;
    const post = (path: string) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ csrf }).toString(),
      });
    expect((await post('/parked/retry')).status).toBe(303);
    expect((await post('/held/no-such-credit/release')).status).toBe(400);

    const json = (await (await fetch(`${server.url}/audit.json?sort=at`, { headers: { cookie } })).json()) as Array<
      Record<string, unknown>
    >;
    expect(json.map((r) => [r.operator, r.action, r.outcome, r.target])).toEqual([
      ['console', 'login', 'failure', null],
      ['console', 'login', 'failure', null],
      ['console', 'login', 'refused', null],
      ['console', 'login', 'success', null],
      ['console', 'retry-parked', 'success', null],
      ['console', 'release-held', 'refused', 'no-such-credit'],
    ]);
    for (const record of json) {
      expect(record.address).toBe('127.0.0.1');
      expect(record.at).toBe('2026-11-21T18:00:00.000Z');
    }
    expect(json[2]!.detail).toMatch(/too many wrong passwords \(on the console\)/);
    expect(json[4]!.detail).toBe('1 parked event queued for a retry');
    expect(json[5]!.detail).toMatch(/no credit no-such-credit in the ledger/);
    expect(JSON.stringify(json)).not.toContain(PASSWORD);

    const page = await (
      await fetch(`${server.url}/audit?action=login&outcome=failure`, { headers: { cookie } })
    ).text();
    expect(page).toContain('data-table="audit"');
    expect(page.match(/<td[^>]* data-audit-action>login<\/td>/g)).toHaveLength(2);
    expect(page).not.toMatch(/<td[^>]* data-audit-action>retry-parked<\/td>/);
    expect((await fetch(`${server.url}/audit?action=delete`, { headers: { cookie } })).status).toBe(400);

    // The logout is recorded too; the trail, newest first by default (at one instant, the later record first), is the CSV's order.
    const out = await post('/logout');
    expect(out.status).toBe(303);
    const fresh = cookieOf(await logIn(PASSWORD), 'paykit_console')!;
    const csv = parse(await (await fetch(`${server.url}/audit.csv`, { headers: { cookie: fresh } })).text(), {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(Object.keys(csv[0]!)).toEqual(['id', 'at', 'operator', 'address', 'action', 'target', 'outcome', 'detail']);
    expect(csv.slice(0, 2).map((r) => [r.action, r.outcome])).toEqual([
      ['login', 'success'],
      ['logout', 'success'],
    ]);
    expect(csv).toHaveLength(8);
  });

  it("records a console without a password's actions as this machine's", async () => {
    await opened.db.query('DELETE FROM console_audit');
    const server = await start(undefined);
    const parked = await fetch(`${server.url}/parked`);
    const csrf = csrfOf(await parked.text())!;
    const retried = await fetch(`${server.url}/parked/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie: cookieOf(parked, 'paykit_console_csrf')! },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(retried.status).toBe(303);
    const json = (await (await fetch(`${server.url}/audit.json`)).json()) as Array<Record<string, unknown>>;
    expect(json.map((r) => [r.operator, r.action, r.outcome])).toEqual([[null, 'retry-parked', 'success']]);
    expect(await (await fetch(`${server.url}/audit`)).text()).toContain('this machine (no login)');
  });
});
