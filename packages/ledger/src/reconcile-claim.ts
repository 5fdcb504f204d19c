// Claiming stored events for a batch, without writing to webhook_events (migration 0004).
//
// Exclusion: a worker takes a transaction-scoped advisory lock per chunk of 256 seqs before it
// uses an event of that chunk, skipping chunks another worker holds (pg_try_advisory_xact_lock:
// SKIP LOCKED without a row lock, so no page of the wide events table is dirtied and the
// gateway's redelivery updates never wait for a worker). The locks end with the batch: commit,
// rollback, or the connection dropping when a worker dies or overstays its lease.
// A lock taken during a statement is newer than that statement's snapshot, so what it read may
// be stale: applyEvents re-reads the locked events in a new statement, whose snapshot sees every
// batch that held those chunks before (a commit is visible before its locks are released).
//
// Where to start: webhook_events_progress.floor_seq, below which every event is applied or
// parked (see the migration for why a seq still unseen below it can never be stored). Each batch
// moves it up; claims then read only the events above it, and retried parked events.
import type { Queryable } from '@paykit/store';

/** The first key of the two-key advisory locks: "payk" in ASCII, so it is recognisable in pg_locks. */
const LOCK_CLASS = 1_885_436_267;

/** The chunk key of a seq (SQL). 256 seqs per lock: a batch of 5,000 holds about 20 locks. */
const chunkLock = (seq: string) => `pg_try_advisory_xact_lock(${LOCK_CLASS}, ((${seq} >> 8) & 2147483647)::int)`;

/**
 * SQL over `e.seq`: the event is neither applied nor parked (unless asked to be retried). `bound`
 * repeats the outer scan's range on the inner tables (`> floor`, `= ANY(…)`), so the planner reads
 * only that part of them instead of merging from their first row.
 */
export const WAITING = (
  bound: string,
) => `NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq AND a.seq ${bound})
  AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq AND p.seq ${bound} AND NOT p.retry)`;

interface Progress {
  floor: string;
  candidate: string | null;
  settled: boolean;
}

/**
 * The floor to claim above, moved up first when this worker gets the progress row (SKIP LOCKED:
 * another worker moving it is enough). Two statements: the second needs a snapshot taken after
 * the first saw the candidate's writers gone, so that whatever they stored is visible to it.
 */
export async function advanceFloor(tx: Queryable): Promise<string> {
  const { rows } = await tx.query<Progress>(
    `SELECT floor_seq::text AS floor, candidate_seq::text AS candidate,
            NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.virtualtransaction = ANY(candidate_writers)) AS settled
     FROM webhook_events_progress FOR UPDATE SKIP LOCKED`,
  );
  const progress = rows[0];
  if (progress === undefined) return readFloor(tx);
  if (progress.candidate !== null && !progress.settled) return progress.floor;
  // The floor rises to just below the first event of (floor, candidate] still waiting (claimed by
  // a batch in flight, retried after parking, or not applied yet), or to the candidate. The new
  // candidate is the highest seq this statement's snapshot sees; its writers are read after that
  // snapshot, so any transaction that drew a lower seq and has not committed is among them.
  const moved = await tx.query<{ floor: string }>(
    `UPDATE webhook_events_progress SET
       floor_seq = CASE WHEN $1::bigint IS NULL THEN $2::bigint ELSE greatest($2::bigint, coalesce(
         (SELECT e.seq - 1 FROM webhook_events e
          WHERE e.seq > $2::bigint AND e.seq <= $1::bigint AND ${WAITING('> $2::bigint')}
          ORDER BY e.seq LIMIT 1),
         $1::bigint)) END,
       candidate_seq = (SELECT max(seq) FROM webhook_events),
       candidate_writers = ARRAY(
         SELECT DISTINCT l.virtualtransaction FROM pg_locks l
         WHERE l.locktype = 'relation' AND l.relation = 'webhook_events'::regclass AND l.mode = 'RowExclusiveLock'
           AND l.pid IS DISTINCT FROM pg_backend_pid() AND l.virtualtransaction IS NOT NULL)
     RETURNING floor_seq::text AS floor`,
    [progress.candidate, progress.floor],
  );
  return moved.rows[0]!.floor;
}

async function readFloor(tx: Queryable): Promise<string> {
  const { rows } = await tx.query<{ floor: string }>('SELECT floor_seq::text AS floor FROM webhook_events_progress');
  return rows[0]!.floor;
}

/**
 * Locks the chunks of up to `limit` waiting events, oldest first — retried parked events below the
 * floor, then the events above `start` (the floor, or higher: see reconcileOnce) — skipping chunks
 * other workers hold; returns their seqs. The lock is tried only on rows that passed the filters:
 * the subquery (OFFSET 0) is not merged into the outer query, and a volatile condition is never
 * pushed into it.
 */
export async function lockWaiting(tx: Queryable, floor: string, start: string, limit: number): Promise<string[]> {
  const { rows } = await tx.query<{ seq: string }>(
    `SELECT c.seq::text AS seq FROM (
       (SELECT p.seq FROM ledger_parked_events p WHERE p.retry AND p.seq <= $1::bigint ORDER BY p.seq)
       UNION ALL
       (SELECT e.seq FROM webhook_events e WHERE e.seq > $2::bigint AND ${WAITING('> $2::bigint')} ORDER BY e.seq)
       OFFSET 0
     ) c
     WHERE ${chunkLock('c.seq')}
     LIMIT $3`,
    [floor, start, limit],
  );
  return rows.map((row) => row.seq);
}

/** Locks the chunk of one event (applying a failed batch event by event); false when another worker holds it. */
export async function lockOne(tx: Queryable, seq: string): Promise<boolean> {
  const { rows } = await tx.query<{ locked: boolean }>(`SELECT ${chunkLock('$1::bigint')} AS locked`, [seq]);
  return rows[0]!.locked;
}
