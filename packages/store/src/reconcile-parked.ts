// Parked events: stored events that could not be applied, with the reason. They never block the
// events behind them; after a fix (a worker that reads them, a corrected rule), retry puts them
// back in line for the next claim.
import type { Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';

export interface ParkedEvent {
  seq: string;
  eventType: string;
  reason: string;
  parkedAt: Date;
  attempts: number;
  retry: boolean;
}

export async function listParked(db: Queryable, options: { limit?: number } = {}): Promise<ParkedEvent[]> {
  const { rows } = await db.query<{ seq: string; event_type: string; reason: string; parked_at: Date; attempts: number; retry: boolean }>(
    `SELECT p.seq::text AS seq, e.event_type, p.reason, p.parked_at, p.attempts, p.retry
     FROM ledger_parked_events p JOIN webhook_events e ON e.seq = p.seq ORDER BY p.seq LIMIT $1`,
    [options.limit ?? 1000],
  );
  return rows.map((row) => ({ seq: row.seq, eventType: row.event_type, reason: row.reason, parkedAt: row.parked_at, attempts: row.attempts, retry: row.retry }));
}

/** Puts parked events (all, or the seqs given) back in line; returns how many. */
export async function retryParked(db: Queryable, seqs?: readonly string[]): Promise<number> {
  if (seqs !== undefined) for (const seq of seqs) if (!/^\d{1,19}$/.test(seq)) throw new StoreInputError(`"${seq.slice(0, 30)}" is not an event seq (a whole number)`);
  const { rowCount } = await db.query(
    'UPDATE ledger_parked_events SET retry = true WHERE NOT retry AND ($1::bigint[] IS NULL OR seq = ANY($1::bigint[]))',
    [seqs ?? null],
  );
  return rowCount;
}
