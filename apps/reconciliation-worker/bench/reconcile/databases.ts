// A fresh PostgreSQL database per measured run (paykit_bench_reconcile_<label>_<hex>), migrated,
// dropped after; created through the admin connection DATABASE_URL names. Never prints a password.
// The bench's connections have a statement deadline of their own (BENCH_STATEMENT_TIMEOUT_MS): a
// loaded machine makes a batch slower, and the measurement says so, but does not end it.
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { migrate, openDatabase, type Database } from '@paykit/store';
import { createScratchDatabase } from '@paykit/store/testing';

export { describeDatabaseUrl } from '@paykit/store/testing';

export const DEFAULT_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The statement deadline of the bench's connections: long enough for a 5,000-event batch on a machine slowed tenfold. */
export const BENCH_STATEMENT_TIMEOUT_MS = 10 * 60_000;

export interface BenchDatabase {
  name: string;
  db: Database;
  /** Another connection pool on the same database, as another worker process would have; closed by drop(). */
  open(): Promise<Database>;
  drop(): Promise<void>;
}

export interface BenchDatabaseOptions {
  /** false: autovacuum never runs on the ledger's and the store's tables while the bench runs. */
  autovacuum?: boolean;
}

export async function createBenchDatabase(
  adminUrl: string,
  label: string,
  { autovacuum = true }: BenchDatabaseOptions = {},
): Promise<BenchDatabase> {
  const scratch = await createScratchDatabase(adminUrl, `bench_reconcile_${label}`);
  const handles: Database[] = [];
  const open = async () => {
    const db = await openDatabase({
      databaseUrl: scratch.url,
      poolSize: 4,
      queryTimeoutMs: BENCH_STATEMENT_TIMEOUT_MS,
    });
    handles.push(db);
    return db;
  };
  const drop = async () => {
    await Promise.allSettled(handles.map((db) => db.close()));
    await scratch.drop();
  };
  try {
    const db = await open();
    await migrate(db, [ledgerMigrations]);
    if (!autovacuum) {
      const { rows } = await db.query<{ name: string }>(
        "SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
      );
      for (const { name } of rows)
        await db.query(`ALTER TABLE ${name} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)`);
    }
    return { name: scratch.name, db, open, drop };
  } catch (error) {
    await drop();
    throw error;
  }
}

/** On SIGINT or SIGTERM, drops the bench databases still in `open` and exits 130: none is left behind. */
export function dropOnSignal(open: ReadonlySet<BenchDatabase>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: dropping the bench databases…`);
      void Promise.allSettled([...open].map((d) => d.drop())).then(() => process.exit(130));
    });
  }
}
