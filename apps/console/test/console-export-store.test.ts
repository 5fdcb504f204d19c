// An export that spans several of the store's batches (1,000 rows each), with the store itself
// misbehaving around it: rows inserted between two batches are neither repeated nor the cause of a
// missing row; on PostgreSQL, rows updated between two batches (moving in the sort) neither; and a
// store that fails after the head was sent cuts the connection, so a partial file never arrives as
// a complete 200. The database is real; a wrapper only runs something (an
// insert, a failure) just before the export's second batch is read.
import { StoreUnavailableError, type Database, type Queryable } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const N = 2_500;

const insertConflicts = (db: Queryable, count: number, detail: string) =>
  db.query(
    `INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, amount, detail)
            SELECT 'credit', 'tx-' || g, 'MONEY_IN', g, 10.00, $2 FROM generate_series(1, $1::int) AS g`,
    [count, detail],
  );

/** `db`, but `before` runs once just before the export's second batch is read (in or out of a transaction). */
function aroundSecondBatch(db: Database, before: () => Promise<void>): Database {
  let batches = 0;
  const watch = (on: Queryable): Queryable => ({
    query: async (sql, params) => {
      if (/FROM ledger_conflicts/.test(sql) && /ORDER BY/.test(sql) && ++batches === 2) await before();
      return on.query(sql, params);
    },
  });
  return Object.assign(Object.create(db) as Database, {
    query: watch(db).query,
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(watch(tx))),
  });
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`a console export across batches on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    const servers: TestConsole[] = [];

    beforeAll(async () => {
      opened = await kind.open();
      await insertConflicts(opened.db, N, 'before the export');
    });

    afterAll(async () => {
      for (const server of servers) await server.close();
      await opened?.drop();
    });

    const serve = async (db: Database) => {
      const server = await startTestConsole(db);
      servers.push(server);
      return server;
    };

    it('holds every row once when rows are inserted between two batches, in either order', async () => {
      let inserted = 0;
      const server = await serve(
        aroundSecondBatch(opened.db, async () => {
          await insertConflicts(opened.db, 50, 'during the export');
          inserted += 50;
        }),
      );
      for (const sort of ['-id', 'id']) {
        const response = await fetch(new URL(`/conflicts.json?sort=${sort}`, server.url));
        expect(response.status).toBe(200);
        const rows = (await response.json()) as { id: string; detail: string }[];
        const ids = rows.map((r) => BigInt(r.id));
        expect(new Set(ids).size).toBe(ids.length);
        // In the order asked for, by number (not as text: 10 after 9).
        expect(ids).toEqual([...ids].sort((a, b) => (sort === 'id' ? Number(a - b) : Number(b - a))));
        expect(rows.filter((r) => r.detail === 'before the export')).toHaveLength(N);
      }
      expect(inserted).toBe(50);
    });

    // PGlite has one connection: an export there reads its batches as the worker goes on (src/exports/routes.ts).
    it.runIf(kind.name === 'postgres')(
      'reads one snapshot on PostgreSQL: rows updated between batches are neither repeated nor missed',
      async () => {
        const server = await serve(
          aroundSecondBatch(opened.db, async () => {
            // Conflicts of the first batch move to the end of the order, some of the last to its start.
            await opened.db.query(
              "UPDATE ledger_conflicts SET amount = 99.00 WHERE detail = 'before the export' AND id <= 500",
            );
            await opened.db.query(
              "UPDATE ledger_conflicts SET amount = 5.00 WHERE detail = 'before the export' AND id > 2400",
            );
          }),
        );
        const response = await fetch(new URL('/conflicts.json?sort=amount', server.url));
        expect(response.status).toBe(200);
        const rows = ((await response.json()) as { id: string; amount: string; detail: string }[]).filter(
          (r) => r.detail === 'before the export',
        );
        expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
        expect(rows).toHaveLength(N);
        expect(new Set(rows.map((r) => r.amount))).toEqual(new Set(['10.00']));
      },
    );

    it('cuts the connection when the store fails after the head was sent', async () => {
      for (const format of ['csv', 'json']) {
        const server = await serve(
          aroundSecondBatch(opened.db, () =>
            Promise.reject(new StoreUnavailableError('the connection to the database was cut')),
          ),
        );
        const response = await fetch(new URL(`/conflicts.${format}`, server.url));
        expect(response.status).toBe(200);
        await expect(response.text()).rejects.toThrow();
      }
    });
  });
}
