// Databases for tests, for this package and every app on it: PGlite in memory always, plus a fresh
// PostgreSQL database per open() when DATABASE_URL is set (CI sets it). No test framework imported:
//   for (const kind of testDatabases()) describe(kind.name, () => { … kind.open() … drop() … });
import { randomBytes } from 'node:crypto';
import { openDatabase } from './database.ts';
import type { Database } from './database.ts';
import { migrate } from './migrate.ts';

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

async function openPgliteForTest(options: TestDatabaseOpenOptions = {}): Promise<OpenedTestDatabase> {
  const db = await openDatabase({ dataDir: 'memory://' });
  const drop = (): Promise<void> => db.close();
  await prepare(db, options, drop);
  return { db, drop };
}

async function openPostgresForTest(serverUrl: string, options: TestDatabaseOpenOptions = {}): Promise<OpenedTestDatabase> {
  const name = `paykit_test_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = withDatabase(serverUrl, name);
  let db: Database | undefined;
  let dropped: Promise<void> | undefined;
  const drop = (): Promise<void> => {
    // FORCE: a test that left a connection open (or a cut proxy's half-dead one) must not keep the database alive.
    dropped ??= (async () => {
      await db?.close();
      await onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
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
