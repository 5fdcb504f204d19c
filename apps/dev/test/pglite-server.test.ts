// The PGlite server the gateway and the worker share without DATABASE_URL: two pg pools at once,
// plain statements and transactions interleaved, lose nothing and mix nothing up, and a connection
// whose pool closes inside a transaction leaves nothing of it, with the backend free for the others.
import { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '@paykit/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGLITE_CONNECT_TIMEOUT_MS, servePglite, type PgliteServer } from '../src/pglite-server.ts';

let pglite: PGlite;
let server: PgliteServer;
let url: string;

beforeAll(async () => {
  pglite = await PGlite.create('memory://');
  server = await servePglite(pglite, 0);
  url = `postgres://postgres@127.0.0.1:${server.port}/postgres`;
});
afterAll(async () => {
  await server.close();
  await pglite.close();
});

describe('servePglite', () => {
  it('serves two pg pools at once without mixing their statements or transactions', async () => {
    const pools: Database[] = [
      await openDatabase({ databaseUrl: url, poolSize: 5, connectTimeoutMs: PGLITE_CONNECT_TIMEOUT_MS }),
      await openDatabase({ databaseUrl: url, poolSize: 5, connectTimeoutMs: PGLITE_CONNECT_TIMEOUT_MS }),
    ];
    try {
      await pools[0]!.query('CREATE TABLE writes (n int, pool text)');
      // Each transaction counts its own pool's rows twice: another pool's insert between the two reads would show.
      const work = (db: Database, pool: string) =>
        Array.from({ length: 100 }, (_, n) =>
          n % 2 === 0
            ? db.query('INSERT INTO writes VALUES ($1, $2)', [n, pool])
            : db.transaction(async (tx) => {
                await tx.query('INSERT INTO writes VALUES ($1, $2)', [n, pool]);
                const first = await tx.query<{ c: string }>('SELECT count(*) AS c FROM writes');
                await new Promise((resolve) => setTimeout(resolve, 1));
                const second = await tx.query<{ c: string }>('SELECT count(*) AS c FROM writes');
                expect(second.rows[0]!.c).toBe(first.rows[0]!.c);
              }),
        );
      const settled = await Promise.allSettled([...work(pools[0]!, 'a'), ...work(pools[1]!, 'b')]);
      expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
      const rows = await pools[1]!.query<{ pool: string; c: string }>(
        'SELECT pool, count(*) AS c FROM writes GROUP BY pool ORDER BY pool',
      );
      expect(rows.rows).toEqual([
        { pool: 'a', c: '100' },
        { pool: 'b', c: '100' },
      ]);
    } finally {
      for (const db of pools) await db.close();
    }
  });

  it('leaves nothing of a transaction whose pool closes inside it, and serves the next connection', async () => {
    const db = await openDatabase({ databaseUrl: url, poolSize: 1 });
    await db.query('CREATE TABLE dropped (n int)');
    const dying = await openDatabase({ databaseUrl: url, poolSize: 1 });
    // BEGIN and an insert, then the pool goes away mid-transaction.
    const started = dying.transaction(async (tx) => {
      await tx.query('INSERT INTO dropped VALUES (1)');
      await dying.close();
      await tx.query('SELECT 1');
    });
    await expect(started).rejects.toThrow();
    const count = await db.query<{ c: string }>('SELECT count(*) AS c FROM dropped');
    expect(count.rows[0]!.c).toBe('0');
    await db.close();
  });
});
