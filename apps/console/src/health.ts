// What the console's /healthz says, read fresh: whether the database answers (within a deadline: a
// frozen store must not hold a probe) and how many conflicting facts the ledger holds (the figure
// finance alerts on). It never names the database (user, host, name, address): only its kind.
import { conflictCounts } from '@paykit/ledger';
import { withTimeout, type Database } from '@paykit/store';

/** The longest a probe waits for the database. */
const PROBE_DEADLINE_MS = 2_000;

export interface ConsoleHealth {
  /** The database answered. */
  ok: boolean;
  store: string;
  /** Conflicting facts the ledger holds; null when it did not answer in time. */
  conflicts: number | null;
  /** Why `ok` is false. */
  storeError: string | null;
}

export function createConsoleHealth(db: Database): () => Promise<ConsoleHealth> {
  return async () => {
    const conflicts = withTimeout(conflictCounts(db), PROBE_DEADLINE_MS, () => new Error('no answer')).then(
      (counts) => counts.total,
      () => null,
    );
    let storeError: string | null = null;
    try {
      await db.ping(PROBE_DEADLINE_MS);
    } catch {
      storeError = `the ${db.kind} store did not answer within ${PROBE_DEADLINE_MS} ms`;
    }
    return { ok: storeError === null, store: db.kind, conflicts: await conflicts, storeError };
  };
}
