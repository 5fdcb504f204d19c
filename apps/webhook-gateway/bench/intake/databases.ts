// A fresh PostgreSQL database per contender, so each starts empty and the audit counts only its
// own rows: created through the admin connection (DATABASE_URL), dropped after the run.
import { createScratchDatabase, type ScratchDatabase } from '@paykit/store/testing';

export { describeDatabaseUrl } from '@paykit/store/testing';

/** `url` is what the contender connects to. */
export type BenchDatabase = ScratchDatabase;

export function createBenchDatabase(adminUrl: string, contender: string): Promise<BenchDatabase> {
  return createScratchDatabase(adminUrl, `bench_${contender}`);
}
