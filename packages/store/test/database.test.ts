import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@paykit/testing/ports';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, StoreConfigError, StoreUnavailableError } from '../src/index.ts';
import type { Database } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';

/** A test that opens a second database of its kind: PGlite takes seconds to start on a busy machine. */
const OPENS_ANOTHER = 30_000;

const PASSWORD = 's3cret-Pa55word';

for (const kind of testDatabases()) {
  describe(`database on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let db: Database;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
      db = opened.db;
    });
    afterAll(() => opened.drop());

    it('describes itself without a password', () => {
      expect(db.kind).toBe(kind.name);
      expect(db.description).toMatch(
        kind.name === 'pglite' ? /^PGlite in memory$/ : /^PostgreSQL .+@127\.0\.0\.1:5432\/paykit_test_[0-9a-f]+$/,
      );
    });

    it('hands back the same JavaScript values from both drivers (int8 and numeric as text, bytes, jsonb, Date)', async () => {
      const { rows, rowCount } = await db.query<Record<string, unknown>>(
        `SELECT 9007199254740993::int8 AS big, 12345678901234.56::numeric(18,2) AS money, '\\x00ff'::bytea AS bytes,
                '{"a":[1,"b"]}'::jsonb AS json, '2026-01-02T03:04:05Z'::timestamptz AS at, $1::text AS param`,
        ['ñ'],
      );
      expect(rowCount).toBe(1);
      const row = rows[0]!;
      expect(row.big).toBe('9007199254740993');
      expect(row.money).toBe('12345678901234.56');
      expect([...(row.bytes as Uint8Array)]).toEqual([0, 255]);
      expect(row.json).toEqual({ a: [1, 'b'] });
      expect(row.at).toEqual(new Date('2026-01-02T03:04:05Z'));
      expect(row.param).toBe('ñ');
    });

    it('runs a script of several statements when there are no parameters, answering with the last', async () => {
      const result = await db.query(
        'CREATE TEMP TABLE script_check (n int); INSERT INTO script_check VALUES (1), (2); SELECT count(*)::int AS n FROM script_check',
      );
      expect(result.rows).toEqual([{ n: 2 }]);
    });

    it('commits a transaction, and rolls it back when the function throws', async () => {
      await db.query('CREATE TABLE tx_check (n int)');
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO tx_check VALUES ($1)', [1]);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO tx_check VALUES ($1)', [2]);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await db.query('SELECT n FROM tx_check')).rows).toEqual([{ n: 1 }]);
    });

    it('passes a statement error through with its SQLSTATE', async () => {
      await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
    });

    it.runIf(kind.name === 'postgres')('starts every connection with JIT off', async () => {
      // Two at once, so two connections of the pool answer.
      const answers = await Promise.all(
        [1, 2].map(() => db.query<{ jit: string }>(`SELECT current_setting('jit') AS jit, pg_sleep(0.05)`)),
      );
      expect(answers.map((a) => a.rows[0]?.jit)).toEqual(['off', 'off']);
    });

    it('answers ping within the time given', async () => {
      await expect(db.ping(2000)).resolves.toBeUndefined();
    });

    it('fails ping with StoreUnavailableError while every connection is busy', async () => {
      // PGlite has one connection; on PostgreSQL a pool of one does the same.
      const target = kind.name === 'pglite' ? db : await openDatabase({ databaseUrl: opened.url!, poolSize: 1 });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const holding = target.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await held;
      });
      try {
        const error = await target.ping(100).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toContain(`${target.description} did not answer SELECT 1 within 100 ms`);
      } finally {
        release();
        await holding;
        if (target !== db) await target.close();
      }
    });

    it(
      'refuses queries after close with StoreUnavailableError, and close twice is fine',
      async () => {
        const second = await kind.open({ migrate: false });
        await second.db.close();
        await second.db.close();
        await expect(second.db.query('SELECT 1')).rejects.toThrow(StoreUnavailableError);
        await second.drop();
      },
      OPENS_ANOTHER,
    );
  });
}

describe('DATABASE_URL checks', () => {
  const bad = [
    ['mysql://root:' + PASSWORD + '@127.0.0.1/paykit', /must start with postgres:\/\/ or postgresql:\/\//],
    [
      'postgres://root:' + PASSWORD + '@127.0.0.1:99999/paykit',
      /not a valid URL: its port must be a number from 1 to 65535/,
    ],
    ['postgres://root:' + PASSWORD + '@127.0.0.1:5432 /paykit', /not a valid URL: characters such as/],
    ['postgres://root:' + PASSWORD + '@/paykit', /names no host/],
    ['127.0.0.1:5432/paykit', /must start with postgres/],
    [' postgres://root:' + PASSWORD + '@127.0.0.1/paykit\n', /whitespace/],
    ['', /empty/],
    ['postgres://root:' + PASSWORD + '@127.0.0.1/pay/kit', /just the database name/],
  ] as const;
  for (const [url, problem] of bad) {
    it(`refuses ${JSON.stringify(url.replace(PASSWORD, '***'))} with StoreConfigError, never printing the password`, async () => {
      const error = await openDatabase({ databaseUrl: url }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreConfigError);
      expect((error as Error).message).toMatch(problem);
      expect(
        JSON.stringify({ message: (error as Error).message, cause: String((error as Error).cause) }),
      ).not.toContain(PASSWORD);
    });
  }

  it('refuses a bad pool size', async () => {
    await expect(openDatabase({ databaseUrl: 'postgres://127.0.0.1/x', poolSize: 0 })).rejects.toThrow(
      /poolSize must be a positive whole number/,
    );
  });
});

describe('an unreachable server', () => {
  it('is reported fast as StoreUnavailableError when nothing listens on the port', async () => {
    const port = await freePort();
    const started = performance.now();
    const error = await openDatabase({
      databaseUrl: `postgres://paykit:${PASSWORD}@127.0.0.1:${port}/paykit`,
      connectTimeoutMs: 500,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`PostgreSQL paykit@127.0.0.1:${port}/paykit`);
    expect((error as Error).message).not.toContain(PASSWORD);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('gives up after connectTimeoutMs on a server that accepts but never answers', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const started = performance.now();
      const error = await openDatabase({
        databaseUrl: `postgres://paykit:${PASSWORD}@127.0.0.1:${port}/paykit`,
        connectTimeoutMs: 300,
      }).catch((caught: unknown) => caught);
      const elapsed = performance.now() - started;
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).not.toContain(PASSWORD);
      expect(elapsed).toBeGreaterThanOrEqual(250);
      expect(elapsed).toBeLessThan(1500);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

// Each of these starts PGlite on disk once or twice: seconds apiece on a busy machine.
describe('PGlite on disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-store-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its data across close and reopen, in the folder it names', async () => {
    const dataDir = path.join(dir, 'nested', 'pglite');
    const first = await openDatabase({ dataDir });
    expect(first.description).toBe(`PGlite at ${dataDir}`);
    await first.query('CREATE TABLE kept (note text)');
    await first.query('INSERT INTO kept VALUES ($1)', ['still here ✓']);
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect((await second.query('SELECT note FROM kept')).rows).toEqual([{ note: 'still here ✓' }]);
    } finally {
      await second.close();
    }
  });

  it('refuses a second open of the same folder while the first is open, and allows it after close', async () => {
    const dataDir = path.join(dir, 'locked');
    const first = await openDatabase({ dataDir });
    try {
      await expect(openDatabase({ dataDir })).rejects.toThrow(
        /is in use: this process already has it open.*DATABASE_URL/,
      );
    } finally {
      await first.close();
    }
    const again = await openDatabase({ dataDir });
    await again.close();
  });

  it('takes over the lock of a process that died', async () => {
    const dataDir = path.join(dir, 'stale');
    writeFileSync(`${dataDir}.lock`, '2147483646');
    const db = await openDatabase({ dataDir });
    await db.close();
  });

  it('names a data directory it cannot create', async () => {
    const file = path.join(dir, 'a-file');
    writeFileSync(file, '');
    await expect(openDatabase({ dataDir: path.join(file, 'pglite') })).rejects.toThrow(StoreConfigError);
  });
});
