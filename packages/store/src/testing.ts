// Databases for tests, for this package and every app on it: PGlite in memory always, plus a fresh
// PostgreSQL database per open() when DATABASE_URL is set (CI sets it), migrated with the store's
// migrations and those of the sets given (a package's tests pass its own set and those it reads;
// the store never imports them). No test framework imported:
//   for (const kind of testDatabases([ledgerMigrations])) describe(kind.name, () => { … kind.open() … drop() … });
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from './database.ts';
import { createEventStore } from './events.ts';
import type { EventStore } from './events.ts';
import type { Database } from './database.ts';
import { migrate, type MigrationSet } from './migrate.ts';
import { dumpPglite, openPglite } from './pglite-database.ts';
import { parseDatabaseUrl } from './database-url.ts';
import { sqlState } from './connection-errors.ts';

const MEMORY = 'memory://';

export { creditEvent } from './credit-event.ts';

export interface OpenedTestDatabase {
  db: Database;
  /** postgres only: the URL of this test's own database (no password is added to the one given). */
  url?: string;
  /** Closes the database and, on PostgreSQL, drops it. */
  drop(): Promise<void>;
}

export interface TestDatabaseOpenOptions {
  /** Apply the migrations of the kind's sets (default true); false for tests of migrate() itself. */
  migrate?: boolean;
}

export interface TestDatabaseKind {
  name: 'pglite' | 'postgres';
  open(options?: TestDatabaseOpenOptions): Promise<OpenedTestDatabase>;
}

/**
 * PGlite (in memory) always; plus PostgreSQL when DATABASE_URL is set: a fresh database per open()
 * (CREATE DATABASE paykit_test_<random>; drop() closes and drops it). Both migrated with the
 * store's set and `sets` (`[ledgerMigrations]` from @paykit/ledger/migrations for the ledger's tables).
 */
export function testDatabases(sets: readonly MigrationSet[] = []): TestDatabaseKind[] {
  const kinds: TestDatabaseKind[] = [{ name: 'pglite', open: (options) => openPgliteForTest(sets, options) }];
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) kinds.push({ name: 'postgres', open: (options) => openPostgresForTest(databaseUrl, sets, options) });
  return kinds;
}

/**
 * A migrated in-memory PGlite's files, made once per test process and list of sets: each migrated
 * test database starts from a copy of them, which spares initdb and the migrations (about a second
 * of CPU each).
 */
const migratedCopies = new Map<string, Promise<Blob>>();
function migratedPglite(sets: readonly MigrationSet[]): Promise<Blob> {
  const key = JSON.stringify(sets.map((set) => [set.owner, set.migrations, set.functions]));
  let copy = migratedCopies.get(key);
  if (copy === undefined) {
    copy = (async () => {
      const seed = await openPglite(MEMORY);
      try {
        await migrate(seed, sets);
        return await dumpPglite(seed);
      } finally {
        await seed.close();
      }
    })();
    migratedCopies.set(key, copy);
    copy.catch(() => migratedCopies.delete(key));
  }
  return copy;
}

async function openPgliteForTest(
  sets: readonly MigrationSet[],
  options: TestDatabaseOpenOptions = {},
): Promise<OpenedTestDatabase> {
  const db =
    options.migrate === false
      ? await openPglite(MEMORY)
      : await openPglite(MEMORY, { loadDataDir: await migratedPglite(sets) });
  const drop = (): Promise<void> => db.close();
  // On a copy of a migrated database, migrate() finds nothing to apply: it still checks every
  // migration's checksum against the files, and applies the function files again.
  await prepare(db, sets, options, drop);
  return { db, drop };
}

export interface StoreSuite {
  opened: OpenedTestDatabase;
  store: EventStore;
}

/** The test framework's block hooks (vitest's or node:test's `before`/`after` under these names). */
export interface SuiteHooks {
  beforeAll(run: () => Promise<void>): void;
  afterAll(run: () => Promise<void>): void;
}

/**
 * One event store per describe block on one kind of test database: opened before the block's
 * first test, closed and its database dropped after the last. Call inside a describe; its tests
 * read `opened` and `store` from the result.
 */
export function eventStoreSuite(kind: TestDatabaseKind, hooks: SuiteHooks): StoreSuite {
  const suite = {} as StoreSuite;
  hooks.beforeAll(async () => {
    suite.opened = await kind.open();
    suite.store = createEventStore(suite.opened.db);
  });
  hooks.afterAll(async () => {
    await suite.store?.close();
    await suite.opened?.drop();
  });
  return suite;
}

/** "PostgreSQL user@host:port/database": a server URL fit to print (never the password). */
export function describeDatabaseUrl(url: string): string {
  return parseDatabaseUrl(url).description;
}

export interface ScratchDatabase {
  /** paykit_<prefix>_<random hex>. */
  name: string;
  /** The server URL with this database's name. */
  url: string;
  /** Drops it (FORCE: connections left open do not keep it alive); a second call does nothing. */
  drop(): Promise<void>;
}

/**
 * A new, empty database on the PostgreSQL server `serverUrl` names (a test's, a benchmark
 * contender's), created through that connection and dropped by drop().
 */
export async function createScratchDatabase(serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  // Only [a-z0-9_] goes into the name, so the identifier needs no quoting.
  const name = `paykit_${prefix.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: () => (dropped ??= dropDatabase(serverUrl, name)),
  };
}

/**
 * DROP DATABASE … WITH (FORCE) ends the database's sessions and waits 5 s for them to exit; on a
 * loaded machine a session in a long statement can take longer, and the drop then fails with
 * 55006 (object in use). It is tried again, up to five times, a second apart.
 */
async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } catch (error) {
      if (sqlState(error) !== '55006' || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function openPostgresForTest(
  serverUrl: string,
  sets: readonly MigrationSet[],
  options: TestDatabaseOpenOptions = {},
): Promise<OpenedTestDatabase> {
  const scratch = await createScratchDatabase(serverUrl, 'test');
  const url = scratch.url;
  let db: Database | undefined;
  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> => {
    dropped ??= (async () => {
      await db?.close();
      await scratch.drop();
    })();
    return dropped;
  };
  try {
    db = await openDatabase({ databaseUrl: url });
  } catch (error) {
    await drop();
    throw error;
  }
  await prepare(db, sets, options, drop);
  return { db, url, drop };
}

async function prepare(
  db: Database,
  sets: readonly MigrationSet[],
  options: TestDatabaseOpenOptions,
  drop: () => Promise<void>,
): Promise<void> {
  if (options.migrate === false) return;
  try {
    await migrate(db, sets);
  } catch (error) {
    await drop();
    throw error;
  }
}

/** One statement on the server's own database (CREATE/DROP DATABASE cannot run inside the test database). */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = await openDatabase({ databaseUrl: serverUrl, poolSize: 1 });
  try {
    await admin.query(sql);
  } finally {
    await admin.close();
  }
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * A database as migrate() left it before migration sets, for tests that such a database migrates
 * cleanly now: the migration files given (loadMigrations(sets).map((m) => m.file), as they were
 * released) applied in version order, as if from one folder, each recorded by version, name and
 * checksum (sha256 of the text, CRLF read as LF) in a schema_migrations without owners.
 */
export async function migrateAsBeforeSets(db: Database, files: readonly string[]): Promise<void> {
  await db.query(`CREATE TABLE schema_migrations (
    version    text        PRIMARY KEY,
    name       text        NOT NULL,
    checksum   text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  for (const file of [...files].sort((a, b) => path.basename(a).localeCompare(path.basename(b)))) {
    const sql = readFileSync(file, 'utf8').replace(/\r\n/g, '\n');
    await db.query(sql);
    const name = path.basename(file, '.sql');
    await db.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      name.slice(0, 4),
      name,
      createHash('sha256').update(sql).digest('hex'),
    ]);
  }
}
