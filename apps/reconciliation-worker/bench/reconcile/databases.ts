// A fresh PostgreSQL database per measured size (paykit_bench_reconcile_<size>_<hex>), migrated,
// dropped after; created through the admin connection DATABASE_URL names. Never prints a password.
import { randomBytes } from 'node:crypto';
import { migrate, openDatabase, type Database } from '@paykit/store';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  name: string;
  db: Database;
  drop(): Promise<void>;
}

/** "user@host:port/database", never the password: safe to print. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  return `${user}${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/** CREATE/DROP DATABASE cannot run inside a transaction: one statement on a one-connection pool. */
async function onServer(adminUrl: string, sql: string): Promise<void> {
  const admin = await openDatabase({ databaseUrl: adminUrl, poolSize: 1, connectTimeoutMs: 5000 });
  try {
    await admin.query(sql);
  } finally {
    await admin.close();
  }
}

export async function createBenchDatabase(adminUrl: string, label: string): Promise<BenchDatabase> {
  // Only [a-z0-9_] goes into the name, so the identifier needs no quoting.
  const name = `paykit_bench_reconcile_${label.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  await onServer(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let db: Database | undefined;
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await db?.close();
    // FORCE: an interrupted run may still hold connections.
    await onServer(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  };
  try {
    db = await openDatabase({ databaseUrl: url.toString(), poolSize: 4 });
    await migrate(db);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, db, drop };
}
