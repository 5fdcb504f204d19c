// Claiming and applying stored events. Each batch is one transaction: claim up to `batchSize`
// unapplied, unparked events (FOR UPDATE SKIP LOCKED, so concurrent workers take disjoint
// batches), park the ones that cannot be applied, apply the rest set-based, mark them applied,
// commit. The row locks are the lease: a worker killed mid-batch drops its connection, PostgreSQL
// rolls the batch back and releases the rows to the next claim; a worker stuck mid-batch loses them
// after `leaseSeconds` (idle_in_transaction_session_timeout). Nothing is applied twice, nothing lost.
// Claims follow no "last seq seen": a lower seq committed late is still unapplied and still claimed.
import { isUnavailable, messageOf, sqlState } from './connection-errors.ts';
import type { Database, Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';
import { applyEvents, park, parkInvalid } from './reconcile-apply.ts';

export interface ReconcileOptions {
  /** Events per batch (default 1000). */
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

/** `reconcile run --once`: applies every event that is waiting, batch after batch, and returns what it did. */
export async function reconcileOnce(db: Database, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const batchSize = whole('batchSize', options.batchSize ?? 1000, 1, 50_000);
  const leaseSeconds = whole('leaseSeconds', options.leaseSeconds ?? 60, 1, 3600);
  const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
  const result: ReconcileResult = { batches: 0, applied: 0, parked: 0 };
  while (result.batches < maxBatches && !options.signal?.aborted) {
    const batch = await applyBatch(db, batchSize, leaseSeconds);
    if (batch.claimed === 0) break;
    result.batches++;
    result.applied += batch.applied;
    result.parked += batch.parked;
  }
  return result;
}

interface BatchResult {
  claimed: number;
  applied: number;
  parked: number;
}

async function applyBatch(db: Database, batchSize: number, leaseSeconds: number): Promise<BatchResult> {
  for (let attempt = 1; ; attempt++) {
    let claimed: string[] = [];
    try {
      return await db.transaction(async (tx) => {
        const rows = await claim(tx, batchSize, leaseSeconds);
        claimed = rows.map((row) => row.seq);
        if (claimed.length === 0) return { claimed: 0, applied: 0, parked: 0 };
        // The claim already asked which events cannot be applied; parkInvalid records why.
        const invalid = rows.filter((row) => row.problem).map((row) => row.seq);
        const parked = invalid.length > 0 ? await parkInvalid(tx, invalid) : new Set<string>();
        await applyEvents(tx, claimed.filter((seq) => !parked.has(seq)));
        return { claimed: claimed.length, applied: claimed.length - parked.size, parked: parked.size };
      });
    } catch (error) {
      if (isUnavailable(error)) throw error;
      if (RETRYABLE.has(sqlState(error) ?? '') && attempt < 5) continue;
      // A statement the database refused (a value no check foresaw): find the event at fault by
      // applying the claimed ones alone, so it is parked with the reason and the rest go through.
      if (claimed.length === 0) throw error;
      return applyOneByOne(db, claimed, leaseSeconds);
    }
  }
}

interface Claimed {
  seq: string;
  /** The event's body does not read as its type (ledger_event_problem). */
  problem: boolean;
}

async function claim(tx: Queryable, batchSize: number, leaseSeconds: number, only?: string): Promise<Claimed[]> {
  // One round trip for the batch's settings, all LOCAL (they end with the batch):
  // - the lease: idle_in_transaction_session_timeout;
  // - synchronous_commit off: a commit is not waited for on disk. A server crash can lose the
  //   last batches' commits, but whole: their events are unapplied again and the next claim
  //   applies them (idempotent), so nothing is lost or applied twice; the gateway's own commits
  //   stay synchronous and WAL is written in order, so no stored event is ever lost with them;
  // - jit off: compiling these short statements costs more than it saves (they are costed high
  //   because of the jsonb they read);
  // - random_page_cost 1.1 (the usual value for SSDs, against the default 4 of spinning disks):
  //   a batch finds its few hundred rows per table by key, and with the default PostgreSQL reads
  //   a ledger table of tens of thousands of rows whole instead, a cost that grows with the ledger.
  await tx.query(
    `SELECT set_config('idle_in_transaction_session_timeout', $1, true), set_config('synchronous_commit', 'off', true), set_config('jit', 'off', true),
            set_config('random_page_cost', '1.1', true)`,
    [`${leaseSeconds}s`],
  );
  const { rows } = await tx.query<Claimed>(
    `SELECT e.seq::text AS seq, ledger_event_problem(e.event_type, e.payload) IS NOT NULL AS problem FROM webhook_events e
     WHERE e.applied_at IS NULL ${only === undefined ? '' : 'AND e.seq = $2::bigint'}
       AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq AND NOT p.retry)
     ORDER BY e.seq LIMIT $1
     FOR UPDATE OF e SKIP LOCKED`,
    only === undefined ? [batchSize] : [1, only],
  );
  return rows;
}

async function applyOneByOne(db: Database, seqs: readonly string[], leaseSeconds: number): Promise<BatchResult> {
  const result: BatchResult = { claimed: 0, applied: 0, parked: 0 };
  for (const seq of seqs) {
    try {
      const outcome = await db.transaction(async (tx) => {
        const mine = (await claim(tx, 1, leaseSeconds, seq)).map((row) => row.seq);
        if (mine.length === 0) return 'gone';
        const parked = await parkInvalid(tx, mine);
        if (parked.size > 0) return 'parked';
        await applyEvents(tx, mine);
        return 'applied';
      });
      if (outcome === 'gone') continue;
      result.claimed++;
      if (outcome === 'applied') result.applied++;
      else result.parked++;
    } catch (error) {
      if (isUnavailable(error)) throw error;
      const reason = `the database refused to apply it: ${messageOf(error)}`;
      await db.transaction(async (tx) => {
        if ((await claim(tx, 1, leaseSeconds, seq)).length > 0) await park(tx, seq, reason);
      });
      result.claimed++;
      result.parked++;
    }
  }
  return result;
}

function whole(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new StoreInputError(`${name} must be a whole number from ${min} to ${max}, got ${String(value)}`);
  return value;
}
