// One place to read each SQL rule: every function the migrations of the store's and the ledger's
// sets define has exactly one file (sql/functions/<name>.sql) holding its current definition, the
// database has exactly that definition after migrate(), every file is valid against the migrated
// schema, and a database migrated before the ledger had a set of its own (all migrations in
// @paykit/store's folder) migrates with nothing to apply. On PGlite, and on PostgreSQL when
// DATABASE_URL is set.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadFunctions, loadMigrations, migrate, type Database, type Queryable, type SqlFunction } from '@paykit/store';
import { migrateAsBeforeSets, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';

const SETS = [ledgerMigrations];
const FUNCTIONS = loadFunctions(SETS);
/** The newest migration when every migration was in @paykit/store's folder. */
const LAST_SHARED_FOLDER = '0017';

/** The functions the migrations leave, in order: created, renamed, dropped (by name: no overloads here). */
function functionsOfMigrations(): Map<string, string> {
  const defined = new Map<string, string>();
  const statement =
    /\bCREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_][a-z0-9_]*)\s*\(|\bALTER\s+FUNCTION\s+([a-z_][a-z0-9_]*)\s*\([^)]*\)\s*RENAME\s+TO\s+([a-z_][a-z0-9_]*)|\bDROP\s+FUNCTION\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_]*)/gi;
  for (const migration of loadMigrations(SETS)) {
    for (const [, created, renamed, to, dropped] of migration.sql.replace(/--[^\n]*/g, '').matchAll(statement)) {
      if (created) defined.set(created, migration.name);
      if (renamed) {
        defined.delete(renamed);
        defined.set(to!, migration.name);
      }
      if (dropped) defined.delete(dropped);
    }
  }
  return defined;
}

/** Each function of `schema`: its definition (the schema's name written SCHEMA) and comment. */
async function definitions(db: Queryable, schema: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ name: string; definition: string; comment: string | null }>(
    `SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition, obj_description(p.oid, 'pg_proc') AS comment
     FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = $1 AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
    [schema],
  );
  return new Map(
    rows.map((row) => [row.name, `${row.definition.replaceAll(`${schema}.`, 'SCHEMA.')}\n-- comment: ${row.comment}`]),
  );
}

/** What the files define, applied in an empty schema of their own (one transaction, so one connection). */
async function definitionsOfFiles(db: Database, functions: SqlFunction[]): Promise<Map<string, string>> {
  const schema = 'paykit_function_files';
  return db.transaction(async (tx) => {
    await tx.query(`CREATE SCHEMA ${schema}`);
    await tx.query(`SET LOCAL search_path = ${schema}`);
    await tx.query('SET LOCAL check_function_bodies = off');
    for (const fn of functions) await tx.query(fn.sql);
    const defined = await definitions(tx, schema);
    await tx.query(`DROP SCHEMA ${schema} CASCADE`);
    return defined;
  });
}

describe('the function files', () => {
  it('hold one file for each function the migrations define, and no other', () => {
    const names = FUNCTIONS.map((fn) => fn.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...functionsOfMigrations().keys()].sort());
  });

  it("are the ledger's, but for the store's own payload reader and partition maker", () => {
    expect(FUNCTIONS.filter((fn) => fn.owner !== '@paykit/ledger').map((fn) => `${fn.owner}:${fn.name}`)).toEqual([
      '@paykit/store:webhook_event_payload',
      '@paykit/store:webhook_events_add_partition',
    ]);
    for (const fn of FUNCTIONS) expect(readFileSync(fn.file, 'utf8')).toMatch(/^-- /);
  });
});

for (const kind of testDatabases(SETS)) {
  describe(`the function files on ${kind.name}`, () => {
    it('are what the migrated database defines, exactly, and valid against its schema', async () => {
      const opened = await kind.open();
      try {
        // pglite: a database copied from one migrated once per process; migrate() ran on it again.
        await migrate(opened.db, SETS);
        const schema = (await opened.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]!.s;
        const inDatabase = await definitions(opened.db, schema);
        expect([...inDatabase.keys()].sort()).toEqual(FUNCTIONS.map((fn) => fn.name).sort());
        const ofFiles = await definitionsOfFiles(opened.db, FUNCTIONS);
        for (const fn of FUNCTIONS) expect(inDatabase.get(fn.name), fn.file).toBe(ofFiles.get(fn.name));
        // With every table and function there, each body is checked as it is created.
        await opened.db.transaction(async (tx) => {
          await tx.query('SET LOCAL check_function_bodies = on');
          for (const fn of FUNCTIONS) await tx.query(fn.sql);
        });
      } finally {
        await opened.drop();
      }
    }, 60_000);
  });

  describe(`a database migrated when every migration was the store's, on ${kind.name}`, () => {
    it('migrates with nothing of its own to apply, records each package, and refuses a run without the ledger', async () => {
      const opened = await kind.open({ migrate: false });
      try {
        const migrations = loadMigrations(SETS);
        const released = migrations.filter((m) => m.version <= LAST_SHARED_FOLDER);
        await migrateAsBeforeSets(
          opened.db,
          released.map((m) => m.file),
        );
        await expect(migrate(opened.db)).rejects.toThrow(
          /holds migrations that no set given to migrate\(\) has: a package not recorded \(0003_ledger\.sql, 0004_applied_marker\.sql, 0007_ledger_facts\.sql, .*0017_intent_postings\.sql\)/,
        );
        const result = await migrate(opened.db, SETS);
        expect(result).toMatchObject({
          applied: migrations.filter((m) => m.version > LAST_SHARED_FOLDER).map((m) => m.name),
          newerBuild: false,
        });
        expect(result.functions).toHaveLength(FUNCTIONS.length);
        const { rows } = await opened.db.query<{ name: string; owner: string }>(
          'SELECT name, owner FROM schema_migrations ORDER BY version',
        );
        expect(rows).toEqual(migrations.map((m) => ({ name: m.name, owner: m.owner })));
        expect(rows.filter((row) => row.owner === '@paykit/store').map((row) => row.name)).toEqual([
          '0001_webhook_events',
          '0002_accounts',
          '0005_append_events',
          '0006_payload_from_body',
          '0008_direct_debit_source',
          ...migrations.filter((m) => m.version > LAST_SHARED_FOLDER && m.owner === '@paykit/store').map((m) => m.name),
        ]);
        await expect(migrate(opened.db)).rejects.toThrow(
          /no set given to migrate\(\) has: @paykit\/ledger \(0003_ledger\.sql/,
        );
        const schema = (await opened.db.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]!.s;
        const inDatabase = await definitions(opened.db, schema);
        const ofFiles = await definitionsOfFiles(opened.db, FUNCTIONS);
        for (const fn of FUNCTIONS) expect(inDatabase.get(fn.name), fn.file).toBe(ofFiles.get(fn.name));
      } finally {
        await opened.drop();
      }
    }, 60_000);
  });
}
