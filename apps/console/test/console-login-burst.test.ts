// A burst of wrong logins does not take the pages down: attempts take turns in the console's process
// before they take a database connection (login-guard.ts), so while 30 wrong passwords for a named
// operator (each an scrypt check under the login lock) queue up, at most one of the console's
// connections waits on the login lock (sampled from pg_stat_activity), and a logged-in operator's
// pages are still answered. PostgreSQL only: there the pool has connections to run out of.
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createOperatorStore, openDatabase } from '@paykit/store';
import { describe, expect, it } from 'vitest';
import { cookieOf, logIn, startTestConsole } from './test-console.ts';

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
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
