import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate, MigrationError, MIGRATIONS_DIR, openDatabase } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';

const ALL = loadMigrations().map((migration) => migration.name);

describe('the migrations folder', () => {
  it('holds numbered files, in order, starting with the event store and the accounts', () => {
    expect(ALL.slice(0, 2)).toEqual(['0001_webhook_events', '0002_accounts']);
  });

  it('refuses a misnamed file and a shared version number', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paykit-migrations-'));
    try {
      writeFileSync(path.join(dir, '1_first.sql'), 'SELECT 1');
      expect(() => loadMigrations(dir)).toThrow(/1_first\.sql is misnamed: use NNNN_lowercase_name\.sql/);
      rmSync(path.join(dir, '1_first.sql'));
      writeFileSync(path.join(dir, '0001_a.sql'), 'SELECT 1');
      writeFileSync(path.join(dir, '0001_b.sql'), 'SELECT 1');
      expect(() => loadMigrations(dir)).toThrow(/0001_a\.sql and 0001_b\.sql share version 0001/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const kind of testDatabases()) {
  describe(`migrate on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let dir: string;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
    });
    afterAll(() => opened.drop());
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('applies every migration once; running it again applies nothing', async () => {
      expect(await migrate(opened.db)).toEqual({ applied: ALL, current: ALL.at(-1) });
      expect(await migrate(opened.db)).toEqual({ applied: [], current: ALL.at(-1) });
      const recorded = await opened.db.query<{ name: string; checksum: string }>(
        'SELECT name, checksum FROM schema_migrations ORDER BY version',
      );
      expect(recorded.rows.map((row) => row.name)).toEqual(ALL);
      expect(recorded.rows.every((row) => /^[0-9a-f]{64}$/.test(row.checksum))).toBe(true);
    });

    it('refuses a released migration whose text changed, naming the file', async () => {
      dir = copyOfMigrations();
      writeFileSync(path.join(dir, '0002_accounts.sql'), '-- edited after release\n', { flag: 'a' });
      const error = await migrate(opened.db, { directory: dir }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(
        /migration 0002_accounts\.sql was changed after it was applied.*new migration/,
      );
    });

    it('does not count a Windows checkout (CRLF) as a change', async () => {
      dir = copyOfMigrations();
      const file = path.join(dir, '0001_webhook_events.sql');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
      expect(await migrate(opened.db, { directory: dir })).toEqual({ applied: [], current: ALL.at(-1) });
    });

    it('refuses a renamed or removed migration', async () => {
      dir = copyOfMigrations();
      renameSync(path.join(dir, '0002_accounts.sql'), path.join(dir, '0002_known_accounts.sql'));
      await expect(migrate(opened.db, { directory: dir })).rejects.toThrow(
        /0002 was applied as 0002_accounts\.sql but the file is now 0002_known_accounts\.sql/,
      );
      rmSync(path.join(dir, '0002_known_accounts.sql'));
      writeFileSync(path.join(dir, '9000_later.sql'), 'SELECT 1');
      await expect(migrate(opened.db, { directory: dir })).rejects.toThrow(
        /0002_accounts\.sql was applied to this database but its file is gone/,
      );
    });

    it('applies a new file, and rolls back the whole run when one fails, naming it', async () => {
      dir = copyOfMigrations();
      writeFileSync(path.join(dir, '9001_good.sql'), 'CREATE TABLE migration_good (n int);');
      writeFileSync(path.join(dir, '9002_bad.sql'), 'CREATE TABLE migration_bad (n int); SELECT * FROM no_such_table;');
      await expect(migrate(opened.db, { directory: dir })).rejects.toThrow(
        /migration 9002_bad\.sql failed, and nothing from this run was applied: .*no_such_table/,
      );
      const tables = await opened.db.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'migration_%'");
      expect(tables.rows).toEqual([]);

      rmSync(path.join(dir, '9002_bad.sql'));
      expect(await migrate(opened.db, { directory: dir })).toEqual({ applied: ['9001_good'], current: '9001_good' });
      // The package's own folder, older than the database now, leaves the newer version alone.
      expect(await migrate(opened.db)).toEqual({ applied: [], current: '9001_good' });
    });
  });
}

const postgres = testDatabases().find((kind) => kind.name === 'postgres');
describe.runIf(postgres)('concurrent migrators on postgres', () => {
  it('both succeed, and the migrations are applied once', async () => {
    const opened = await postgres!.open({ migrate: false });
    const second = await openDatabase({ databaseUrl: opened.url! });
    try {
      const results = await Promise.all([migrate(opened.db), migrate(second)]);
      expect(results.map((result) => result.current)).toEqual([ALL.at(-1), ALL.at(-1)]);
      expect(results.flatMap((result) => result.applied).sort()).toEqual([...ALL].sort());
      const count = await opened.db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      expect(count.rows[0]!.n).toBe(ALL.length);
    } finally {
      await second.close();
      await opened.drop();
    }
  });
});

function copyOfMigrations(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'paykit-migrations-'));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}
