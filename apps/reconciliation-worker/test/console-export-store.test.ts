// An export that spans several of the store's batches (1,000 rows each), with the store itself
// misbehaving around it: rows written between two batches are neither repeated nor the cause of a
// missing row, and a store that fails after the head was sent cuts the connection, so a partial
// file never arrives as a complete 200. The database is real; a wrapper only runs something (an
// insert, a failure) just before the export's second batch is read.
import { StoreUnavailableError, type Database, type Queryable } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole, type ConsoleServer } from '../src/index.ts';

const N = 2_500;

const insertConflicts = (db: Queryable, count: number, detail: string) =>
  db.query(`INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, amount, detail)
            SELECT 'credit', 'tx-' || g, 'MONEY_IN', g, 10.00, $2 FROM generate_series(1, $1::int) AS g`, [count, detail]);

/** `db`, but `before` runs once just before the export's second batch is read. */
function aroundSecondBatch(db: Database, before: () => Promise<void>): Database {
  let batches = 0;
  return Object.assign(Object.create(db) as Database, {
    query: async (sql: string, params?: readonly unknown[]) => {
      if (/FROM ledger_conflicts/.test(sql) && /ORDER BY/.test(sql) && ++batches === 2) await before();
      return db.query(sql, params);
    },
  });
}

for (const kind of testDatabases()) {
  describe(`a console export across batches on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    const servers: ConsoleServer[] = [];

    beforeAll(async () => {
      opened = await kind.open();
      await insertConflicts(opened.db, N, 'before the export');
    });

    afterAll(async () => {
      for (const server of servers) await server.close();
      await opened?.drop();
    });

    const serve = async (db: Database) => {
      const server = await startConsole({ db, port: 0, host: '127.0.0.1', staleAfterSeconds: 86_400, now: () => new Date('2026-11-21T18:00:00Z') });
      servers.push(server);
      return server;
    };

    it('holds every row once when rows are inserted between two batches, in either order', async () => {
      let inserted = 0;
      const server = await serve(aroundSecondBatch(opened.db, async () => {
        await insertConflicts(opened.db, 50, 'during the export');
        inserted += 50;
      }));
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

    it('cuts the connection when the store fails after the head was sent', async () => {
      for (const format of ['csv', 'json']) {
        const server = await serve(aroundSecondBatch(opened.db, () => Promise.reject(new StoreUnavailableError('the connection to the database was cut'))));
        const response = await fetch(new URL(`/conflicts.${format}`, server.url));
        expect(response.status).toBe(200);
        await expect(response.text()).rejects.toThrow();
      }
    });
  });
}
