// A fresh PostgreSQL database per measured size (paykit_bench_reconcile_<size>_<hex>), migrated,
// dropped after; created through the admin connection DATABASE_URL names. Never prints a password.
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { migrate, openDatabase, type Database } from '@paykit/store';
import { createScratchDatabase } from '@paykit/store/testing';

export { describeDatabaseUrl } from '@paykit/store/testing';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  name: string;
  db: Database;
  drop(): Promise<void>;
}

export async function createBenchDatabase(adminUrl: string, label: string): Promise<BenchDatabase> {
  const scratch = await createScratchDatabase(adminUrl, `bench_reconcile_${label}`);
  let db: Database | undefined;
  const drop = async () => {
    await db?.close();
    await scratch.drop();
  };
  try {
    db = await openDatabase({ databaseUrl: scratch.url, poolSize: 4 });
    await migrate(db, [ledgerMigrations]);
  } catch (error) {
    await drop();
    throw error;
  }
  return { name: scratch.name, db, drop };
}
