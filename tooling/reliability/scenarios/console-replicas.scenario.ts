// The finance console as docs/operations.md says to run more than one: two replicas on one
// PostgreSQL behind HAProxy (round robin, no sticky sessions, each checked at /healthz). Through
// HAProxy an operator logs in, reads pages that both replicas serve, and retries a parked event
// with a form token one replica drew and another may check; a viewer is refused the same action.
// Each replica's audit page shows both, with their names and the address HAProxy saw (its
// X-Forwarded-For, with whatever the client wrote there dropped). One replica is killed with SIGKILL: the login goes on through
// the other with no request failed; restarted, it is back in rotation and knows the login too. A
// logout through HAProxy ends the login on both. PostgreSQL only (two processes on one store).
import { reconcileOnce, listParked } from '@paykit/ledger';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createEventStore, createOperatorStore, migrate } from '@paykit/store';
import { creditEvent } from '@paykit/store/testing';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { freePort } from '@paykit/testing/ports';
import { declareSecret, record } from '@paykit/testing/secret-audit';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONSOLE_BACKEND, startHaproxy, type Haproxy } from '../src/haproxy.ts';
import { describeWithHaproxy } from './with-haproxy.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { createScenarioStore, type ScenarioStore } from '../src/store.ts';

const CONSOLE_MAIN = path.resolve(import.meta.dirname, '../../../apps/console/src/main.ts');
const REPLICAS = 2;
/** Page reads through HAProxy at each step: enough for round robin to reach every replica. */
const READS = scaled(40, 8);
/** The killed replica must be back in rotation within this. */
const BACK_WITHIN_S = 30;
const OPERATOR = { name: 'omar', password: 'omar pass phrase 1234' };
const VIEWER = { name: 'vera', password: 'vera pass phrase 5678' };
/** An address every request claims in X-Forwarded-For: HAProxy drops it and passes the address it saw. */
const FORGED = '203.0.113.7';

/** The cookie `name` an answer set, as a Cookie header sends it back. */
const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0];
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1];
const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

describeWithHaproxy('two finance consoles behind HAProxy on one PostgreSQL', () => {
  let store: ScenarioStore;
  let haproxy: Haproxy;
  let ports: number[];
  const consoles: (AppProcess | undefined)[] = [];
  const served = new Map<string, number>();
  let reads = 0;
  let failedReads = 0;
  const startedAt = performance.now();
  let backAfterS = 0;

  const startReplica = async (index: number) => {
    consoles[index] = await startAppProcess({
      name: `console${index + 1}`,
      main: CONSOLE_MAIN,
      env: { ...store.env, CONSOLE_PORT: String(ports[index]), CONSOLE_HOST: '127.0.0.1' },
      onOutput: (text) => record(`console${index + 1} output`, text),
    });
  };

  beforeAll(async () => {
    declareSecret(OPERATOR.password);
    declareSecret(VIEWER.password);
    store = await createScenarioStore('consoles');
    await store.read(async (db) => {
      await migrate(db, [ledgerMigrations]);
      const operators = createOperatorStore(db);
      await operators.add({ name: OPERATOR.name, role: 'operator', password: OPERATOR.password });
      await operators.add({ name: VIEWER.name, role: 'viewer', password: VIEWER.password });
      // A MONEY_IN with no amount: the worker parks it, and the console offers to retry it.
      const events = createEventStore(db);
      await events.append(creditEvent({}));
      await events.close();
      expect(await reconcileOnce(db)).toMatchObject({ parked: 1 });
    });
    ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    await Promise.all(ports.map((_, index) => startReplica(index)));
    haproxy = await startHaproxy({
      port: await freePort(),
      gatewayPorts: [],
      console: { port: await freePort(), ports },
    });
    for (let index = 0; index < REPLICAS; index++) await haproxy.waitUp(index, 30_000, CONSOLE_BACKEND);
  }, 180_000);

  afterAll(async () => {
    await haproxy?.close();
    await Promise.all(consoles.map((app) => app?.stop()));
    await store?.remove();
    recordScenario({
      scenario: 'console-replicas',
      sent: reads,
      acknowledged: reads - failedReads,
      stored: 0,
      applied: null,
      lost: failedReads,
      duplicated: 0,
      badInputs: 0,
      fiveXx: failedReads,
      fiveXxAllowed: false,
      longestAnswerMs: 0,
      notes: [
        `${REPLICAS} consoles behind HAProxy, no sticky sessions: ${reads} page reads through it with one login, ${failedReads} failed; served by ${[...served].map(([name, n]) => `${name} ×${n}`).join(', ')}; a replica killed with SIGKILL was back in rotation after ${backAfterS} s (bound ${BACK_WITHIN_S} s)`,
      ],
      durationMs: Math.round(performance.now() - startedAt),
    });
  });

  const through = (pathAndQuery: string, init: RequestInit = {}) =>
    fetch(`${haproxy.consoleUrl}${pathAndQuery}`, {
      redirect: 'manual',
      ...init,
      headers: { 'x-forwarded-for': FORGED, ...(init.headers as Record<string, string> | undefined) },
    });

  const logIn = async (who: { name: string; password: string }) => {
    const page = await through('/login');
    const html = await page.text();
    const answer = await through('/login', {
      method: 'POST',
      headers: { ...FORM, cookie: cookieOf(page, 'paykit_console_csrf')! },
      body: new URLSearchParams({
        csrf: csrfOf(html)!,
        operator: who.name,
        password: who.password,
        next: '/',
      }).toString(),
    });
    expect(answer.status, await answer.text()).toBe(303);
    return cookieOf(answer, 'paykit_console')!;
  };

  /** READS reads of /parked with the login through HAProxy; every one must be the logged-in page. Returns the replicas that served them. */
  const readAll = async (cookie: string) => {
    const by = new Set<string>();
    for (let i = 0; i < READS; i++) {
      reads += 1;
      const answer = await through('/parked', { headers: { cookie, accept: 'text/html' } });
      const text = await answer.text();
      const server = answer.headers.get('x-served-by') ?? 'none';
      served.set(server, (served.get(server) ?? 0) + 1);
      by.add(server);
      if (answer.status !== 200 || !text.includes('Log out')) failedReads += 1;
    }
    return by;
  };

  it('shares one login, its form tokens and the audit trail between the replicas, and survives losing one', async () => {
    const cookie = await logIn(OPERATOR);
    expect(await readAll(cookie)).toEqual(new Set(['console1', 'console2']));
    expect(failedReads).toBe(0);

    // The retry form drawn from one replica's page, posted to whichever HAProxy picks next.
    for (let i = 0; i < REPLICAS; i++) {
      const html = await (await through('/parked', { headers: { cookie, accept: 'text/html' } })).text();
      const answer = await through('/parked/retry', {
        method: 'POST',
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ csrf: csrfOf(html)! }).toString(),
      });
      expect(answer.status, await answer.text()).toBe(303);
    }
    expect((await store.read((db) => listParked(db)))[0]).toMatchObject({ retry: true });

    // A viewer, through HAProxy too, is refused the action.
    const viewer = await logIn(VIEWER);
    const viewerPage = await (await through('/parked', { headers: { cookie: viewer, accept: 'text/html' } })).text();
    const refused = await through('/parked/retry', {
      method: 'POST',
      headers: { ...FORM, cookie: viewer },
      body: new URLSearchParams({ csrf: csrfOf(viewerPage)! }).toString(),
    });
    expect(refused.status).toBe(403);

    // Each replica, asked directly, shows both on its audit page, from the address HAProxy saw (this
    // machine's), never the one the client wrote into X-Forwarded-For.
    for (const port of ports) {
      const audit = await (
        await fetch(`http://127.0.0.1:${port}/audit?action=retry-parked`, { headers: { cookie, accept: 'text/html' } })
      ).text();
      expect(audit).toContain(OPERATOR.name);
      expect(audit).toContain(VIEWER.name);
      expect(audit).toMatch(/<td[^>]*>127\.0\.0\.1<\/td>/);
      expect(audit).not.toContain(FORGED);
    }

    // One replica killed: the login goes on through the other, no read failing.
    await consoles[0]!.kill();
    consoles[0] = undefined;
    expect(await readAll(cookie)).toEqual(new Set(['console2']));
    expect(failedReads).toBe(0);

    // Restarted on its port, it is back in rotation and knows the login.
    const restarted = performance.now();
    await startReplica(0);
    await haproxy.waitUp(0, BACK_WITHIN_S * 1000, CONSOLE_BACKEND);
    backAfterS = Math.round((performance.now() - restarted) / 100) / 10;
    expect(await readAll(cookie)).toEqual(new Set(['console1', 'console2']));
    expect(failedReads).toBe(0);

    // A logout through HAProxy ends the login on both replicas.
    const page = await (await through('/parked', { headers: { cookie, accept: 'text/html' } })).text();
    const logout = await through('/logout', {
      method: 'POST',
      headers: { ...FORM, cookie },
      body: new URLSearchParams({ csrf: csrfOf(page)! }).toString(),
    });
    expect(logout.status).toBe(303);
    for (const port of ports) {
      const after = await fetch(`http://127.0.0.1:${port}/parked`, {
        headers: { cookie, accept: 'text/html' },
        redirect: 'manual',
      });
      expect(after.status, `console on ${port} after the logout`).toBe(303);
      expect(after.headers.get('location')).toMatch(/^\/login/);
    }
  });
});
