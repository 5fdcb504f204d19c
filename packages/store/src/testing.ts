// Databases for tests, for this package and every app on it: PGlite in memory always, plus a fresh
// PostgreSQL database per open() when DATABASE_URL is set (CI sets it). No test framework imported:
//   for (const kind of testDatabases()) describe(kind.name, () => { … kind.open() … drop() … });
import { randomBytes } from 'node:crypto';
import { openDatabase } from './database.ts';
import { createEventStore } from './events.ts';
import type { EventStore } from './events.ts';
import type { Database } from './database.ts';
import { migrate } from './migrate.ts';
import { dumpPglite, openPglite } from './pglite-database.ts';

const MEMORY = 'memory://';
import { parseDatabaseUrl } from './database-url.ts';

export { creditEvent } from './credit-event.ts';

export interface OpenedTestDatabase {
  db: Database;
  /** postgres only: the URL of this test's own database (no password is added to the one given). */
  url?: string;
  /** Closes the database and, on PostgreSQL, drops it. */
  drop(): Promise<void>;
}

export interface TestDatabaseOpenOptions {
  /** Apply the package's migrations (default true); false for tests of migrate() itself. */
  migrate?: boolean;
}

export interface TestDatabaseKind {
  name: 'pglite' | 'postgres';
  open(options?: TestDatabaseOpenOptions): Promise<OpenedTestDatabase>;
}

/** PGlite (in memory) always; plus PostgreSQL when DATABASE_URL is set: a fresh database per open() (CREATE DATABASE paykit_test_<random>; drop() closes and drops it). Both migrated. */
export function testDatabases(): TestDatabaseKind[] {
  const kinds: TestDatabaseKind[] = [{ name: 'pglite', open: openPgliteForTest }];
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) kinds.push({ name: 'postgres', open: (options) => openPostgresForTest(databaseUrl, options) });
  return kinds;
}

/**
 * A migrated in-memory PGlite's files, made once per test process: each migrated test database
 * starts from a copy of them, which spares initdb and the migrations (about a second of CPU each).
 */
let migratedCopy: Promise<Blob> | undefined;
function migratedPglite(): Promise<Blob> {
  migratedCopy ??= (async () => {
    const seed = await openPglite(MEMORY);
    try {
      await migrate(seed);
      return await dumpPglite(seed);
    } finally {
      await seed.close();
    }
  })();
  migratedCopy.catch(() => (migratedCopy = undefined));
  return migratedCopy;
}

async function openPgliteForTest(options: TestDatabaseOpenOptions = {}): Promise<OpenedTestDatabase> {
  const db =
    options.migrate === false
      ? await openPglite(MEMORY)
      : await openPglite(MEMORY, { loadDataDir: await migratedPglite() });
  const drop = (): Promise<void> => db.close();
  // On a copy of a migrated database, migrate() finds nothing to apply: it still checks every
  // migration's checksum against the files.
  await prepare(db, options, drop);
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
    drop: () => (dropped ??= onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function openPostgresForTest(
  serverUrl: string,
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
  await prepare(db, options, drop);
  return { db, url, drop };
}

async function prepare(db: Database, options: TestDatabaseOpenOptions, drop: () => Promise<void>): Promise<void> {
  if (options.migrate === false) return;
  try {
    await migrate(db);
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
