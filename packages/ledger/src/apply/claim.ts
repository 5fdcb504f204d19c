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

/** What one step of the floor audit found. */
export interface FloorAudit {
  /** The highest seq this step looked at. */
  through: string;
  /** True when this step reached the floor (or lowered it): the next step starts a new sweep. */
  sweepDone: boolean;
  /** Where the next step starts: `through`, or 0 for a new sweep. */
  next: string;
  /** Stored events below the floor that are neither applied nor parked (at most 1,000 listed), oldest first. */
  found: string[];
  /** The floor after the step: lowered to just below the first event found, so claims take it again. */
  floor: string;
}

/**
 * One step of the audit of the floor's promise (every event at or below it is applied or parked),
 * over the seqs in (`after`, `after` + `span`] that lie below the floor: an index range scan of
 * at most `span` events, so its cost does not grow with the store. An event the promise missed (a
 * marker removed by hand, an event restored from an archive) would otherwise wait unseen and
 * uncounted: the floor is lowered to just below it, so the claims, the waiting count and the
 * oldest waiting age see it again and it is applied like any other. Whoever advances the floor
 * meanwhile holds the progress row, and this update waits for it.
 */
export async function auditFloor(db: Queryable, after: string, span: number): Promise<FloorAudit> {
  const { rows } = await db.query<{ floor: string; through: string; found: string[] }>(
    `WITH pr AS (SELECT floor_seq FROM webhook_events_progress),
     range AS (SELECT $1::bigint AS lo, least($1::bigint + $2::bigint, pr.floor_seq) AS hi FROM pr),
     lost AS (
       SELECT e.seq FROM webhook_events e, range
       WHERE e.seq > range.lo AND e.seq <= range.hi
         AND NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq AND a.seq > range.lo)
         AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq AND p.seq > range.lo)
       ORDER BY e.seq LIMIT 1000
     ), lowered AS (
       UPDATE webhook_events_progress SET floor_seq = least(floor_seq, (SELECT min(seq) - 1 FROM lost))
       WHERE EXISTS (SELECT 1 FROM lost)
       RETURNING floor_seq
     )
     SELECT coalesce((SELECT floor_seq FROM lowered), (SELECT floor_seq FROM pr))::text AS floor,
            (SELECT greatest(hi, lo) FROM range)::text AS through,
            ARRAY(SELECT seq::text FROM lost ORDER BY seq) AS found`,
    [after, span],
  );
  const row = rows[0]!;
  const sweepDone = row.found.length > 0 || BigInt(row.through) >= BigInt(row.floor);
  return { through: row.through, sweepDone, next: sweepDone ? '0' : row.through, found: row.found, floor: row.floor };
}

/** What waits: how many events (up to the cap asked for) and when the oldest of them was received. */
export interface Waiting {
  count: number;
  oldestReceivedAt: Date | null;
}

/**
 * Events stored but neither applied nor parked (retried parked ones included), up to `cap`, and
 * the oldest of them, by the claims' own condition (WAITING). Only events above the floor can wait,
 * besides parked ones asked to be retried (those above the floor are in the first count);
 * auditFloor lowers the floor below any event that breaks that promise, so it is counted here too.
 * Each part is an index range scan from the floor: the cost follows the backlog, not the store's history.
 */
export async function countWaiting(db: Queryable, cap: number): Promise<Waiting> {
  const unapplied = `FROM webhook_events e, webhook_events_progress pr WHERE e.seq > pr.floor_seq AND ${WAITING('> pr.floor_seq')}`;
  const retried = `FROM ledger_parked_events p JOIN webhook_events e ON e.seq = p.seq, webhook_events_progress pr
                   WHERE p.retry AND p.seq <= pr.floor_seq`;
  const { rows } = await db.query<{ waiting: string; oldest: Date | string | null }>(
    `SELECT ((SELECT count(*) FROM (SELECT 1 ${unapplied} LIMIT $1) w) + (SELECT count(*) ${retried}))::text AS waiting,
            (SELECT min(at) FROM (
               (SELECT e.received_at AS at ${unapplied} ORDER BY e.seq LIMIT 1)
               UNION ALL (SELECT min(e.received_at) ${retried})
            ) o) AS oldest`,
    [cap],
  );
  const row = rows[0]!;
  return {
    count: Math.min(Number(row.waiting), cap),
    oldestReceivedAt: row.oldest === null ? null : new Date(row.oldest),
  };
}
