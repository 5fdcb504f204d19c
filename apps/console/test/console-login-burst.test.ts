// A burst of wrong logins does not take the pages down: attempts take turns in the console's process
// before they take a database connection (src/access/login-guard.ts), so while 30 wrong passwords for a named
// operator (each an scrypt check under the login lock) queue up, at most one of the console's
// connections waits on the login lock (sampled from pg_stat_activity), and a logged-in operator's
// pages are still answered (PostgreSQL only: there the pool has connections to run out of). And
// the line is bounded: past `maxWaiting` attempts waiting at once, the next is refused at once
// ("busy"), except one from a device cookie (on every database kind).
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createOperatorStore, openDatabase } from '@paykit/store';
import { describe, expect, it } from 'vitest';
import { createLoginGuard, type Attempt } from '../src/access/login-guard.ts';
import { cookieOf, logIn, startTestConsole } from './test-console.ts';

const databases = testDatabases([ledgerMigrations]);
const postgres = databases.find((kind) => kind.name === 'postgres');
const PASSWORD = 'burst operator pass phrase 1';

describe.skipIf(postgres === undefined)('a burst of wrong logins on PostgreSQL', () => {
  it('leaves a logged-in operator’s pages answered', async () => {
    const opened = await postgres!.open();
    await createOperatorStore(opened.db).add({ name: 'omar', role: 'operator', password: PASSWORD });
    const server = await startTestConsole(opened.db, { access: { failedLoginDelayMs: 10 } });
    try {
      const session = cookieOf(await logIn(server.url, 'omar', PASSWORD), 'paykit_console')!;
      // The console's connections waiting on an advisory lock, sampled on a connection of its own.
      const watcher = await openDatabase({ databaseUrl: opened.url!, poolSize: 1 });
      let waiting = 0;
      let sampling = true;
      const sampled = (async () => {
        while (sampling) {
          const { rows } = await watcher.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'",
          );
          waiting = Math.max(waiting, rows[0]!.n);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const burst = Promise.all(
        Array.from({ length: 30 }, (_, i) => logIn(server.url, 'omar', `wrong pass phrase ${i}`)),
      );
      const pages = await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${server.url}/parked`, { headers: { cookie: session, accept: 'text/html' } }).then(async (r) => ({
            status: r.status,
            text: (await r.text()).slice(0, 200),
          })),
        ),
      );
      const answers = await burst;
      sampling = false;
      await sampled;
      await watcher.close();
      expect(waiting, 'connections waiting on the login lock at once').toBeLessThanOrEqual(1);
      expect(pages.filter((p) => p.status !== 200)).toEqual([]);
      // Every wrong password was refused (401), or held off by a bound (429): none got a 5xx.
      expect(answers.filter((a) => a.status >= 500).map((a) => a.status)).toEqual([]);
    } finally {
      await server.close();
      await opened.drop();
    }
  });
});

for (const kind of databases) {
  describe(`the line of login attempts on ${kind.name}`, () => {
    it('refuses the attempt past maxWaiting at once, lets a device-cookie attempt wait, and serves the rest in turn', async () => {
      const opened = await kind.open();
      try {
        const guard = createLoginGuard(opened.db, { now: () => new Date('2026-11-21T18:00:00Z'), maxWaiting: 3 });
        let open = () => {};
        const gate = new Promise<void>((resolve) => (open = resolve));
        let checked = 0;
        const check = async () => {
          checked += 1;
          await gate;
          return false;
        };
        const settled: (Attempt | 'pending')[] = [];
        const track = (i: number, attempt: Promise<Attempt>) => {
          settled[i] = 'pending';
          return attempt.then((a) => (settled[i] = a));
        };
        const attempts = Array.from({ length: 5 }, (_, i) =>
          track(i, guard.attempt({ address: `203.0.113.${i + 1}` }, 'omar', check)),
        );
        const device = track(5, guard.attempt({ address: '198.51.100.7', device: 'device-1' }, 'omar', check));
        // The two past the bound are answered before the first in line has finished.
        await Promise.all([attempts[3], attempts[4]]);
        expect(settled.slice(3, 5)).toEqual([
          { outcome: 'refused', refusal: { bound: 'busy', retryAfterSeconds: 1 } },
          { outcome: 'refused', refusal: { bound: 'busy', retryAfterSeconds: 1 } },
        ]);
        expect(settled.slice(0, 3)).toEqual(['pending', 'pending', 'pending']);
        expect(settled[5]).toBe('pending');
        open();
        await Promise.all([...attempts, device]);
        expect(settled.slice(0, 3).map((a) => (a as Attempt).outcome)).toEqual(['failure', 'failure', 'failure']);
        expect((settled[5] as Attempt).outcome).toBe('failure');
        expect(checked).toBe(4);
        // Once the line is short again, a new attempt waits its turn like the others.
        expect((await guard.attempt({ address: '203.0.113.9' }, 'omar', check)).outcome).toBe('failure');
      } finally {
        await opened.drop();
      }
    });
  });
}
