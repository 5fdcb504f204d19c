// Claiming and applying stored events. Each batch is one transaction: move the claim floor up,
// lock up to `batchSize` waiting events (claim.ts: advisory locks per chunk of seqs,
// skipping what other workers hold, so concurrent workers take disjoint batches), park the ones
// that cannot be applied, apply the rest set-based, mark them applied (webhook_events_applied),
// commit. The locks are the lease: a worker killed mid-batch drops its connection, PostgreSQL
// rolls the batch back and releases the events to the next claim; a worker stuck mid-batch loses
// them after `leaseSeconds` (idle_in_transaction_session_timeout). Nothing is applied twice,
// nothing lost. A lower seq committed late is still claimed: the floor never passes a seq whose
// writer may still commit.
import { isUnavailable, messageOf, sqlState, StoreInputError, type Database, type Queryable } from '@paykit/store';
import { applyEvents, park } from './events.ts';
import { advanceFloor, lockOne, lockWaiting } from './claim.ts';
import { attachIntentsFromEvents } from '../record/attach-intents.ts';

/** Events per batch unless told otherwise (the worker's WORKER_BATCH_SIZE default): 5,000 applies faster than 1,000 and holds a batch for about a quarter of a second. */
export const DEFAULT_BATCH_SIZE = 5000;

export interface ReconcileOptions {
  /** Events per batch (default DEFAULT_BATCH_SIZE, 5,000). */
  batchSize?: number;
  /** Stop after this many batches (default: until nothing is left). */
  maxBatches?: number;
  /** How long a batch may hold its events (default 60 s). */
  leaseSeconds?: number;
  signal?: AbortSignal;
}

export interface ReconcileResult {
  batches: number;
  applied: number;
  parked: number;
}

/** Deadlock, serialization failure: another worker raced us; the batch is simply tried again. */
const RETRYABLE = new Set(['40P01', '40001']);

/** Claims that may start above this call's own last claim before one starts at the floor again. */
const CLAIMS_PER_FLOOR_SCAN = 16;

/**
 * `reconcile run --once`: applies every event that is waiting, batch after batch, and returns what
 * it did. After a full batch the next claim starts above the events this call just took instead of
 * at the floor: the floor waits for the slowest batch of every worker (and for a stuck one, its
 * whole lease), and a claim from it walks all that was applied since. Events below are not
 * forgotten: a claim that comes back short, every 16th claim, and the last one start at the floor.
 */
export async function reconcileOnce(db: Database, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const batchSize = whole('batchSize', options.batchSize ?? DEFAULT_BATCH_SIZE, 1, 50_000);
  const leaseSeconds = whole('leaseSeconds', options.leaseSeconds ?? 60, 1, 3600);
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  const result: ReconcileResult = { batches: 0, applied: 0, parked: 0 };
  let after: string | null = null;
  while (result.batches < maxBatches && !options.signal?.aborted) {
    const batch = await applyBatch(db, batchSize, leaseSeconds, after);
    if (batch.locked.length === 0) {
      if (after === null) break;
      after = null;
      continue;
    }
    result.batches++;
    result.applied += batch.applied;
    result.parked += batch.parked;
    const full = batch.locked.length === batchSize && result.batches % CLAIMS_PER_FLOOR_SCAN !== 0;
    after = full ? batch.locked.at(-1)! : null;
  }
  // Intents left without an answer that the facts just applied name exactly.
  if (!options.signal?.aborted) await attachIntentsFromEvents(db);
  return result;
}

interface BatchResult {
  /** The seqs whose chunks the batch locked, in order: none means nothing is left to claim. */
  locked: string[];
  applied: number;
  parked: number;
}

async function applyBatch(
  db: Database,
  batchSize: number,
  leaseSeconds: number,
  after: string | null,
): Promise<BatchResult> {
  for (let attempt = 1; ; attempt++) {
    let locked: string[] = [];
    try {
      return await db.transaction(async (tx) => {
        await batchSettings(tx, leaseSeconds);
        const floor = await advanceFloor(tx);
        locked = await lockWaiting(
          tx,
          floor,
          after !== null && BigInt(after) > BigInt(floor) ? after : floor,
          batchSize,
        );
        return { locked, ...(await applyEvents(tx, locked)) };
      });
    } catch (error) {
      if (isUnavailable(error)) throw error;
      if (RETRYABLE.has(sqlState(error) ?? '') && attempt < 5) continue;
      // A statement the database refused (a value no check foresaw): find the event at fault by
      // applying the locked ones alone, so it is parked with the reason and the rest go through.
      if (locked.length === 0) throw error;
      return { locked, ...(await applyOneByOne(db, locked, leaseSeconds)) };
    }
  }
}

/**
 * One round trip for the batch's settings, all LOCAL (they end with the batch):
 * - the lease: idle_in_transaction_session_timeout;
 * - synchronous_commit off: a commit is not waited for on disk. A server crash can lose the last
 *   batches' commits, but whole: their events are unapplied again and the next claim applies them
 *   (idempotent), so nothing is lost or applied twice; the gateway's own commits stay
 *   synchronous and WAL is written in order, so no stored event is ever lost with them;
 * - jit off: compiling these short statements costs more than it saves (they are costed high
 *   because of the jsonb they read);
 * - random_page_cost 1.1 (the usual value for SSDs, against the default 4 of spinning disks): a
 *   batch finds its few hundred rows per table by key, and with the default PostgreSQL reads a
 *   ledger table of tens of thousands of rows whole instead, a cost that grows with the ledger.
 */
async function batchSettings(tx: Queryable, leaseSeconds: number): Promise<void> {
  await tx.query(
    `SELECT set_config('idle_in_transaction_session_timeout', $1, true), set_config('synchronous_commit', 'off', true), set_config('jit', 'off', true),
            set_config('random_page_cost', '1.1', true)`,
    [`${leaseSeconds}s`],
  );
}

async function applyOneByOne(
  db: Database,
  seqs: readonly string[],
  leaseSeconds: number,
): Promise<Omit<BatchResult, 'locked'>> {
  const result = { applied: 0, parked: 0 };
  // Each event in a transaction of its own, under its chunk lock; one that another worker holds
  // now is left to that worker (or to the next claim).
  const alone = <T>(seq: string, fn: (tx: Queryable) => Promise<T>): Promise<T | undefined> =>
    db.transaction(async (tx) => {
      await batchSettings(tx, leaseSeconds);
      return (await lockOne(tx, seq)) ? fn(tx) : undefined;
    });
  for (const seq of seqs) {
    try {
      const one = await alone(seq, (tx) => applyEvents(tx, [seq]));
      result.applied += one?.applied ?? 0;
      result.parked += one?.parked ?? 0;
    } catch (error) {
      if (isUnavailable(error)) throw error;
      const reason = `the database refused to apply it: ${messageOf(error)}`;
      if (await alone(seq, (tx) => park(tx, seq, reason))) result.parked++;
    }
  }
  return result;
}

function whole(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new StoreInputError(`${name} must be a whole number from ${min} to ${max}, got ${String(value)}`);
  return value;
}
