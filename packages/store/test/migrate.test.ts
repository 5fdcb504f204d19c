import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadFunctions,
  loadMigrations,
  migrate,
  MigrationError,
  openDatabase,
  storeMigrations,
  type MigrationSet,
} from '../src/index.ts';
import { migrateAsBeforeSets, testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';

const ALL = loadMigrations().map((migration) => migration.name);
const STORE_FUNCTIONS = loadFunctions().map((fn) => `${fn.owner}:${fn.name}`);

const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A package's set in a folder of its own: { 'migrations/9100_x.sql': '…', 'functions/f.sql': '…' } (docs-check: not-a-path). */
function setOf(owner: string, files: Record<string, string>, options: { functions?: boolean } = {}): MigrationSet {
  const dir = mkdtempSync(path.join(tmpdir(), 'paykit-migrations-'));
  folders.push(dir);
  mkdirSync(path.join(dir, 'migrations'));
  if (options.functions !== false) mkdirSync(path.join(dir, 'functions'));
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
  return {
    owner,
    migrations: path.join(dir, 'migrations'),
    ...(options.functions === false ? {} : { functions: path.join(dir, 'functions') }),
  };
}

/** A copy of the store's own set (same owner), to edit. */
function storeCopy(): MigrationSet {
  const set = setOf(storeMigrations.owner, {});
  cpSync(storeMigrations.migrations, set.migrations, { recursive: true });
  cpSync(storeMigrations.functions!, set.functions!, { recursive: true });
  return set;
}

describe('the store set', () => {
  it('holds numbered files, in order, starting with the event store and the accounts, and its function files', () => {
    expect(ALL.slice(0, 2)).toEqual(['0001_webhook_events', '0002_accounts']);
    expect(storeMigrations.owner).toBe('@paykit/store');
    expect(STORE_FUNCTIONS).toEqual([
      '@paykit/store:webhook_event_payload',
      '@paykit/store:webhook_events_add_partition',
    ]);
  });

  it('refuses a misnamed file and a shared version number, within a set and across sets', () => {
    expect(() => loadMigrations([setOf('@fixture/a', { 'migrations/1_first.sql': 'SELECT 1' })])).toThrow(
      /1_first\.sql of @fixture\/a is misnamed: use NNNN_lowercase_name\.sql/,
    );
    const twice = setOf('@fixture/a', { 'migrations/9001_a.sql': 'SELECT 1', 'migrations/9001_b.sql': 'SELECT 1' });
    expect(() => loadMigrations([twice])).toThrow(
      /9001_a\.sql \(@fixture\/a\) and .*9001_b\.sql \(@fixture\/a\) share version 9001/,
    );
    const clash = setOf('@fixture/a', { 'migrations/0002_other.sql': 'SELECT 1' });
    expect(() => loadMigrations([clash])).toThrow(
      /migrations .*store\/migrations\/0002_accounts\.sql \(@paykit\/store\) and .*0002_other\.sql \(@fixture\/a\) share version 0002: versions are unique across every package's migrations/,
    );
    expect(() => loadMigrations([{ ...clash, migrations: path.join(clash.migrations, 'gone') }])).toThrow(
      /cannot read the migrations folder .*gone/,
    );
  });

  it('refuses a function file that is misnamed, defines another function, or is not CREATE OR REPLACE, and one function in two files', () => {
    const migration = { 'migrations/9001_a.sql': 'SELECT 1' };
    const body = (name: string, create = 'CREATE OR REPLACE FUNCTION') =>
      `-- ${name}\n${create} ${name}() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n`;
    const cases: [Record<string, string>, RegExp][] = [
      [
        { 'functions/Widget.sql': body('Widget') },
        /function file .*Widget\.sql is misnamed: name it after the function/,
      ],
      [
        { 'functions/widget.sql': body('gadget') },
        /widget\.sql defines gadget: a file defines only the function it is named after/,
      ],
      [
        { 'functions/widget.sql': body('widget', 'CREATE FUNCTION') },
        /widget\.sql uses CREATE FUNCTION: .*CREATE OR REPLACE FUNCTION/,
      ],
      [
        { 'functions/widget.sql': '-- CREATE OR REPLACE FUNCTION widget() in a comment\nSELECT 1;' },
        /widget\.sql defines no function/,
      ],
      [
        { 'functions/webhook_event_payload.sql': body('webhook_event_payload') },
        /function webhook_event_payload has two files, .*store.*webhook_event_payload\.sql \(@paykit\/store\) and .*\(@fixture\/a\): one function, one file/,
      ],
    ];
    for (const [files, error] of cases) {
      expect(() => loadFunctions([setOf('@fixture/a', { ...migration, ...files })])).toThrow(error);
    }
    const noFolder = setOf('@fixture/a', migration);
    rmSync(noFolder.functions!, { recursive: true });
    expect(() => loadFunctions([noFolder])).toThrow(/no function folder .*: @fixture\/a is incomplete/);
  });
});

for (const kind of testDatabases()) {
  describe(`migrate on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
    });
    afterAll(() => opened.drop());

    it('applies every migration once, recording its package, and each function file when it changed', async () => {
      const once = { applied: ALL, current: ALL.at(-1), functions: STORE_FUNCTIONS, newerBuild: false };
      expect(await migrate(opened.db)).toEqual(once);
      // Nothing changed: no function file runs again (a start needs no ownership of the functions).
      expect(await migrate(opened.db)).toEqual({ ...once, applied: [], functions: [] });
      const recorded = await opened.db.query<{ name: string; checksum: string; owner: string }>(
        'SELECT name, checksum, owner FROM schema_migrations ORDER BY version',
      );
      expect(recorded.rows.map((row) => row.name)).toEqual(ALL);
      expect(recorded.rows.every((row) => /^[0-9a-f]{64}$/.test(row.checksum))).toBe(true);
      expect(new Set(recorded.rows.map((row) => row.owner))).toEqual(new Set(['@paykit/store']));
    });

    it('refuses a released migration whose text changed, naming the file', async () => {
      const set = storeCopy();
      writeFileSync(path.join(set.migrations, '0002_accounts.sql'), '-- edited after release\n', { flag: 'a' });
      const error = await migrate(opened.db, [set]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationError);
      expect((error as Error).message).toMatch(
        /migration 0002_accounts\.sql of @paykit\/store was changed after it was applied.*new migration/,
      );
    });

    it('does not count a Windows checkout (CRLF) as a change', async () => {
      const set = storeCopy();
      const file = path.join(set.migrations, '0001_webhook_events.sql');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
      expect((await migrate(opened.db, [set])).applied).toEqual([]);
    });

    it('refuses a renamed or removed migration', async () => {
      const set = storeCopy();
      renameSync(path.join(set.migrations, '0002_accounts.sql'), path.join(set.migrations, '0002_known_accounts.sql'));
      await expect(migrate(opened.db, [set])).rejects.toThrow(
        /0002 was applied as 0002_accounts\.sql but the file is now 0002_known_accounts\.sql/,
      );
      rmSync(path.join(set.migrations, '0002_known_accounts.sql'));
      writeFileSync(path.join(set.migrations, '9000_later.sql'), 'SELECT 1');
      await expect(migrate(opened.db, [set])).rejects.toThrow(
        /0002_accounts\.sql of @paykit\/store was applied to this database but its file is gone/,
      );
    });

    it('applies a new file, and rolls back the whole run when one fails, naming it', async () => {
      const set = storeCopy();
      writeFileSync(path.join(set.migrations, '9001_good.sql'), 'CREATE TABLE migration_good (n int);');
      writeFileSync(
        path.join(set.migrations, '9002_bad.sql'),
        'CREATE TABLE migration_bad (n int); SELECT * FROM no_such_table;',
      );
      await expect(migrate(opened.db, [set])).rejects.toThrow(
        /migration 9002_bad\.sql of @paykit\/store failed, and nothing from this run was applied: .*no_such_table/,
      );
      const tables = await opened.db.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'migration_%'");
      expect(tables.rows).toEqual([]);

      rmSync(path.join(set.migrations, '9002_bad.sql'));
      expect(await migrate(opened.db, [set])).toMatchObject({ applied: ['9001_good'], current: '9001_good' });
      // The package's own files, older than the database now, leave the newer version and its functions alone.
      expect(await migrate(opened.db)).toEqual({ applied: [], current: '9001_good', functions: [], newerBuild: true });
    });
  });

  describe(`migration sets on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
    });
    afterAll(() => opened.drop());
    const keyFunction = (fn: string) =>
      `CREATE OR REPLACE FUNCTION widget_key(name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT ${fn}(name) $$;\n`;
    let widgets: MigrationSet;
    const fileOf = (name: string) => path.join(widgets.functions!, `${name}.sql`);
    const one = async (sql: string): Promise<unknown> => Object.values((await opened.db.query(sql)).rows[0]!)[0];

    it("applies a package's migrations in version order with the store's, then its function files in any order", async () => {
      widgets = setOf('@fixture/widgets', {
        // An index and a generated column on a function: its file may not change it (see below).
        'migrations/9100_widgets.sql': `${keyFunction('lower').replace(' OR REPLACE', '')}CREATE TABLE widgets (name text NOT NULL, key text GENERATED ALWAYS AS (widget_key(name)) STORED);\nCREATE INDEX widgets_key ON widgets (widget_key(name));`,
        'functions/widget_key.sql': keyFunction('lower'),
        // A SQL function that calls one a later file adds (files apply in name order).
        'functions/widget_count.sql':
          'CREATE OR REPLACE FUNCTION widget_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM widget_rows() $$;\n',
        'functions/widget_rows.sql':
          'CREATE OR REPLACE FUNCTION widget_rows() RETURNS SETOF widgets LANGUAGE sql STABLE AS $$ SELECT * FROM widgets $$;\n',
      });
      expect(await migrate(opened.db, [widgets])).toEqual({
        applied: [...ALL, '9100_widgets'],
        current: '9100_widgets',
        functions: [
          ...STORE_FUNCTIONS,
          '@fixture/widgets:widget_count',
          '@fixture/widgets:widget_key',
          '@fixture/widgets:widget_rows',
        ],
        newerBuild: false,
      });
      await opened.db.query("INSERT INTO widgets (name) VALUES ('Bolt'), ('Nut')");
      expect(String(await one('SELECT widget_count() AS n'))).toBe('2');
      expect(await one("SELECT owner FROM schema_migrations WHERE version = '9100'")).toBe('@fixture/widgets');
    });

    it('refuses a run without a set whose migrations the database holds, naming the package', async () => {
      await expect(migrate(opened.db)).rejects.toThrow(
        /this database holds migrations that no set given to migrate\(\) has: @fixture\/widgets \(9100_widgets\.sql\)\. Pass the migration set of every package/,
      );
    });

    it('changes a function when its file changes, without a new migration', async () => {
      writeFileSync(
        fileOf('widget_count'),
        'CREATE OR REPLACE FUNCTION widget_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) * 10 FROM widget_rows() $$;\n',
      );
      expect(await migrate(opened.db, [widgets])).toMatchObject({
        applied: [],
        functions: ['@fixture/widgets:widget_count'],
      });
      expect(String(await one('SELECT widget_count() AS n'))).toBe('20');
      expect(await one("SELECT build FROM schema_functions WHERE name = 'widget_count'")).toBe('9100');
    });

    it('refuses to change a function an index is built on, and changes nothing', async () => {
      writeFileSync(
        fileOf('widget_count'),
        'CREATE OR REPLACE FUNCTION widget_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT 0::bigint $$;\n',
      );
      writeFileSync(fileOf('widget_key'), keyFunction('upper'));
      await expect(migrate(opened.db, [widgets])).rejects.toThrow(
        /function file .*widget_key\.sql changes widget_key\(text\), which column widgets\.key, index widgets_key are built on: .*new migration that replaces the function, with the file's text, and rebuilds them/,
      );
      expect(await one("SELECT widget_key('Bolt') AS k")).toBe('bolt');
      expect(String(await one('SELECT widget_count() AS n'))).toBe('20');
      // The change as a migration (replace, rebuild), with the file's text: then the file matches.
      writeFileSync(
        path.join(widgets.migrations, '9101_widget_key_upper.sql'),
        `${keyFunction('upper')}UPDATE widgets SET name = name;\nREINDEX INDEX widgets_key;\n`,
      );
      expect((await migrate(opened.db, [widgets])).applied).toEqual(['9101_widget_key_upper']);
      expect(await one("SELECT widget_key('Bolt') AS k")).toBe('BOLT');
      expect(await one("SELECT key FROM widgets WHERE name = 'Bolt'")).toBe('BOLT');
    });

    it('refuses a function file that fails, naming it, and applies nothing of the run', async () => {
      writeFileSync(path.join(widgets.migrations, '9102_gadgets.sql'), 'CREATE TABLE gadgets (n int);');
      writeFileSync(fileOf('widget_broken'), 'CREATE OR REPLACE FUNCTION widget_broken( RETURNS int;\n');
      await expect(migrate(opened.db, [widgets])).rejects.toThrow(
        /function file .*widget_broken\.sql of @fixture\/widgets failed, and nothing from this run was applied/,
      );
      expect(await one("SELECT to_regclass('gadgets') IS NULL AS missing")).toBe(true);
      rmSync(fileOf('widget_broken'));
      rmSync(path.join(widgets.migrations, '9102_gadgets.sql'));
    });

    it("refuses a migration recorded as one package's whose file is now in another's set", async () => {
      const moved = setOf('@fixture/gadgets', {});
      for (const file of readdirSync(widgets.migrations))
        cpSync(path.join(widgets.migrations, file), path.join(moved.migrations, file));
      await expect(migrate(opened.db, [moved])).rejects.toThrow(
        /migration 9100_widgets\.sql was applied as @fixture\/widgets's, but it is now in @fixture\/gadgets's set/,
      );
    });
  });

  describe(`a database migrated before migration sets on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
    });
    afterAll(() => opened.drop());

    it('migrates with nothing to apply, and records the package of each migration', async () => {
      await migrateAsBeforeSets(
        opened.db,
        loadMigrations().map((migration) => migration.file),
      );
      expect(await migrate(opened.db)).toEqual({
        applied: [],
        current: ALL.at(-1),
        functions: STORE_FUNCTIONS,
        newerBuild: false,
      });
      const owners = await opened.db.query<{ owner: string }>('SELECT DISTINCT owner FROM schema_migrations');
      expect(owners.rows).toEqual([{ owner: '@paykit/store' }]);
    });
  });

  it(`applies only the migrations before a version, and no function file, when asked (${kind.name})`, async () => {
    const opened = await kind.open({ migrate: false });
    try {
      expect(await migrate(opened.db, [], { before: '0005' })).toEqual({
        applied: ['0001_webhook_events', '0002_accounts'],
        current: '0002_accounts',
        functions: [],
        newerBuild: false,
      });
    } finally {
      await opened.drop();
    }
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
