// Logins kept in the database, over real sockets: two consoles on one database (on PostgreSQL each
// with its own connections, as two replicas behind a load balancer) share a login made on either;
// a console stopped and started again keeps it, unless it starts with another CONSOLE_PASSWORD;
// logging out on one ends it on both at once, and so does its expiry. The table holds a hash of each session id, never the id a cookie carries, and
// the cookie-signing key is the database's own, the same for every replica.
import { createHash } from 'node:crypto';
import { openDatabase, type Database } from '@paykit/store';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type ConsoleServer } from '../src/index.ts';
import { cookieOf, csrfOf } from './test-console.ts';

const PASSWORD = TEST_SECRETS.consolePassword;

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`console logins shared through the database (${kind.name})`, () => {
    let opened: OpenedTestDatabase;
    /** The second replica's own connections on PostgreSQL; PGlite is one connection, shared. */
    let second: Database;
    let clock = new Date('2026-11-21T18:00:00Z');
    const running = new Set<ConsoleServer>();

    const start = async (db: Database, password: string = PASSWORD) => {
      const server = await startConsole({
        db,
        port: 0,
        host: '127.0.0.1',
        staleAfterSeconds: 86_400,
        now: () => clock,
        access: { password, sessionMinutes: 30, failedLoginDelayMs: 10 },
      });
      running.add(server);
      return server;
    };
    const stop = async (server: ConsoleServer) => {
      running.delete(server);
      await server.close();
    };

    const logIn = async (server: ConsoleServer) => {
      const form = await fetch(`${server.url}/login`);
      const csrf = csrfOf(await form.text())!;
      const response = await fetch(`${server.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          cookie: cookieOf(form, 'paykit_console_csrf')!,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ csrf, password: PASSWORD, next: '/parked' }).toString(),
      });
      expect(response.status).toBe(303);
      return cookieOf(response, 'paykit_console')!;
    };
    const status = async (server: ConsoleServer, cookie: string, path = '/parked') =>
      (await fetch(`${server.url}${path}`, { headers: { cookie }, redirect: 'manual' })).status;

    beforeAll(async () => {
      opened = await kind.open();
      second = opened.url ? await openDatabase({ databaseUrl: opened.url }) : opened.db;
    });

    afterAll(async () => {
      for (const server of running) await server.close();
      if (second !== opened.db) await second.close();
      await opened?.drop();
    });

    it('lets a login made on one replica in on the other, and keeps it across a restart', async () => {
      clock = new Date('2026-11-21T18:00:00Z');
      const [a, b] = [await start(opened.db), await start(second)];
      const cookie = await logIn(a);
      expect(await status(a, cookie)).toBe(200);
      expect(await status(b, cookie)).toBe(200);
      expect(await status(b, cookie, '/parked.csv')).toBe(200);
      // Nothing in the table is a cookie: a row is the hash of the session id.
      const id = decodeURIComponent(cookie.slice('paykit_console='.length)).split('.')[0]!;
      const { rows } = await opened.db.query<{ id_hash: string }>('SELECT id_hash FROM console_sessions');
      expect(rows.map((r) => r.id_hash)).toContain(createHash('sha256').update(id).digest('base64url'));
      expect(JSON.stringify(rows)).not.toContain(id);

      // Both stopped, one started again: the login holds.
      await stop(a);
      await stop(b);
      const again = await start(second);
      expect(await status(again, cookie)).toBe(200);
      await stop(again);
      // Started with another CONSOLE_PASSWORD: a login made with the old one is none.
      const rotated = await start(second, `${PASSWORD}-rotated`);
      expect(await status(rotated, cookie)).toBe(401);
      await stop(rotated);
      const back = await start(second);
      expect(await status(back, cookie)).toBe(200);
      await stop(back);
    });

    it('ends a login on every replica at once when it logs out on one', async () => {
      const [a, b] = [await start(opened.db), await start(second)];
      const cookie = await logIn(a);
      // The logout form as replica B draws it: its token is the login's own, whichever replica drew it.
      const page = await fetch(`${b.url}/parked`, { headers: { cookie } });
      const csrf = csrfOf(await page.text())!;
      const out = await fetch(`${b.url}/logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ csrf }).toString(),
      });
      expect(out.status).toBe(303);
      expect(out.headers.get('location')).toBe('/login');
      expect(await status(a, cookie)).toBe(401);
      expect(await status(b, cookie)).toBe(401);
      await stop(a);
      await stop(b);
    });

    it('takes a token drawn by one replica on the other, and ends the login everywhere when it expires', async () => {
      clock = new Date('2026-11-21T18:00:00Z');
      const [a, b] = [await start(opened.db), await start(second)];
      const cookie = await logIn(a);
      const csrf = csrfOf(await (await fetch(`${a.url}/parked`, { headers: { cookie } })).text())!;
      const retry = await fetch(`${b.url}/parked/retry`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ csrf }).toString(),
      });
      expect(retry.status).toBe(303);
      clock = new Date('2026-11-21T18:29:00Z');
      expect(await status(b, cookie)).toBe(200);
      clock = new Date('2026-11-21T18:30:00Z');
      expect(await status(a, cookie)).toBe(401);
      expect(await status(b, cookie)).toBe(401);
      await stop(a);
      await stop(b);
    });
  });
}
