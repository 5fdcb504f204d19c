// A fresh PostgreSQL database per contender, so each starts empty and the audit counts only its
// own rows: created through the admin connection (DATABASE_URL), dropped after the run.
import pg from 'pg';
import { createScratchDatabase, type ScratchDatabase } from '@paykit/store/testing';

export { describeDatabaseUrl } from '@paykit/store/testing';

/** `url` is what the contender connects to. */
export type BenchDatabase = ScratchDatabase;

export function createBenchDatabase(adminUrl: string, contender: string): Promise<BenchDatabase> {
  return createScratchDatabase(adminUrl, `bench_${contender}`);
}

/**
 * A CHECKPOINT through the admin connection before each load: the WAL the previous load wrote
 * (another contender's, or a peak's) is flushed now, not during this one, where its writes and
 * fsyncs would stall whichever contender happens to run. Returns why it could not be taken (a user
 * without the pg_checkpoint role), or undefined.
 */
export async function checkpoint(adminUrl: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
    await client.query('CHECKPOINT');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => {});
  }
}
