// A connection that freezes (no reset, no error: a firewall or NAT that dropped its state) behind a
// real TCP proxy in front of the real PostgreSQL: every statement and commit fails within its
// client-side deadline as "unavailable", the frozen connections are destroyed rather than handed out
// again, the pool works again once the network does, and close() returns. Needs DATABASE_URL.
import { isUnavailable } from '../src/connection-errors.ts';
import { openDatabase, StoreUnavailableError, withLongStatements, type Database } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { proxyUrl, type TcpProxy } from '@paykit/testing/tcp-proxy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const postgres = testDatabases().find((kind) => kind.name === 'postgres');
const QUERY_TIMEOUT_MS = 800;
const CONNECT_TIMEOUT_MS = 500;

/** How long `work` took to settle, and how. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; error: unknown; value: T | undefined }> {
  const started = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - started, error: undefined, value };
  } catch (error) {
    return { ms: performance.now() - started, error, value: undefined };
  }
}

describe.skipIf(!postgres)('PostgreSQL behind a connection that freezes', () => {
  let proxy: TcpProxy;
  let drop: () => Promise<void>;
  let proxiedUrl: string;
  const opened: Database[] = [];

  beforeAll(async () => {
    const test = await postgres!.open();
    drop = test.drop;
    const proxied = await proxyUrl(test.url!);
    proxy = proxied.proxy;
    proxiedUrl = proxied.url.toString();
    await test.db.query('CREATE TABLE frozen_rows (id int PRIMARY KEY)');
  });
  afterEach(() => proxy.thaw());
  afterAll(async () => {
    await Promise.all(opened.map((db) => db.close()));
    await proxy?.close();
    await drop?.();
  });

  const open = async (): Promise<Database> => {
    const db = await openDatabase({
      databaseUrl: proxiedUrl,
      poolSize: 4,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      queryTimeoutMs: QUERY_TIMEOUT_MS,
    });
    opened.push(db);
    return db;
  };
  const waitUntilAnswers = async (db: Database, withinMs: number): Promise<number> => {
    const started = performance.now();
    for (;;) {
      try {
        await db.query('SELECT 1');
        return performance.now() - started;
      } catch (error) {
        if (performance.now() - started > withinMs) throw error;
      }
    }
  };

  it('fails a query on a frozen connection within its deadline as unavailable, and answers again once the network is back', async () => {
    const db = await open();
    await db.query('SELECT 1');
    proxy.freeze();
    const frozen = await timed(db.query('SELECT 1'));
    expect(frozen.error).toBeInstanceOf(StoreUnavailableError);
    expect(String(frozen.error)).toMatch(/did not answer a statement within 800 ms/);
    expect(frozen.ms).toBeLessThan(QUERY_TIMEOUT_MS + 500);
    expect(db.connections?.().timedOut).toBe(1);
    // A new connection cannot get through either: the connect deadline ends that wait.
    const connecting = await timed(db.query('SELECT 1'));
    expect(connecting.error).toBeInstanceOf(StoreUnavailableError);
    expect(connecting.ms).toBeLessThan(CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS + 500);
    // Their state lost for good: only fresh connections can work again.
    proxy.thaw({ frozen: 'lost' });
    expect(await waitUntilAnswers(db, 3_000)).toBeLessThan(3_000);
    expect(db.connections?.()).toMatchObject({ busy: 0, waiting: 0 });
  });

  it('fails a transaction whose COMMIT gets no answer, discards its connection, and commits on a fresh one afterwards', async () => {
    const db = await open();
    // Several idle connections in the pool, all frozen together with the one in use.
    await Promise.all(Array.from({ length: 4 }, () => db.query('SELECT pg_sleep(0.05)')));
    const attempt = timed(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO frozen_rows (id) VALUES (1)');
        proxy.freeze();
        return 'written';
      }),
    );
    const result = await attempt;
    expect(result.error).toBeInstanceOf(StoreUnavailableError);
    expect(isUnavailable(result.error)).toBe(true);
    expect(result.ms).toBeLessThan(QUERY_TIMEOUT_MS + 500);
    proxy.thaw({ frozen: 'lost' });
    // The idle connections froze too: none of them may cost another deadline.
    const recovered = await timed(
      db.transaction(async (tx) => tx.query('INSERT INTO frozen_rows (id) VALUES (2) RETURNING id')),
    );
    expect(recovered.error).toBeUndefined();
    expect(recovered.ms).toBeLessThan(QUERY_TIMEOUT_MS);
    // The lost COMMIT never reached the server: the row is not there, and the server ended that transaction.
    const { rows } = await db.query<{ id: number }>('SELECT id FROM frozen_rows ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual([2]);
  });

  it('closes within its bound while every connection is frozen, a statement in flight included', async () => {
    const db = await open();
    await db.query('SELECT 1');
    proxy.freeze();
    const inFlight = timed(db.query('SELECT 1'));
    const closed = await timed(db.close());
    expect(closed.error).toBeUndefined();
    expect(closed.ms).toBeLessThan(QUERY_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 500);
    expect((await inFlight).error).toBeInstanceOf(StoreUnavailableError);
  });
});

describe.skipIf(!postgres)('statement deadlines on PostgreSQL', () => {
  it('fails a statement slower than queryTimeoutMs, and runs it through withLongStatements (migrations)', async () => {
    const test = await postgres!.open();
    const options = { databaseUrl: test.url!, queryTimeoutMs: 300 };
    const db = await openDatabase(options);
    try {
      const slow = await timed(db.query('SELECT pg_sleep(0.6)'));
      expect(slow.error).toBeInstanceOf(StoreUnavailableError);
      expect(slow.ms).toBeLessThan(600);
      const long = await timed(
        withLongStatements(db, options, (migrator) =>
          migrator.query<{ done: boolean }>('SELECT pg_sleep(0.6) IS NOT NULL AS done'),
        ),
      );
      expect(long.error).toBeUndefined();
      expect(long.value?.rows).toEqual([{ done: true }]);
      // The serving pool is not harmed by either.
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
      await test.drop();
    }
  });
});

for (const kind of testDatabases()) {
  describe(`connections() on ${kind.name}`, () => {
    it('counts the connection a transaction holds while it runs, and none after', async () => {
      const { db, drop } = await kind.open();
      try {
        const inside = await db.transaction(async (tx) => {
          await tx.query('SELECT 1');
          return db.connections?.();
        });
        expect(inside).toMatchObject({ busy: 1, timedOut: 0 });
        expect(inside!.open).toBeGreaterThanOrEqual(1);
        expect(db.connections?.()).toMatchObject({ busy: 0, waiting: 0, longestBusyMs: 0 });
      } finally {
        await drop();
      }
    });
  });
}
