// Parked events: stored events that could not be applied, with the reason. They never block the
// events behind them; after a fix (a worker that reads them, a corrected rule), retry puts them
// back in line for the next claim.
import {
  StoreInputError,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { readAll, readPage, type Listing } from '../read/listing.ts';

export interface ParkedEvent {
  seq: string;
  eventType: string;
  reason: string;
  parkedAt: Date;
  attempts: number;
  retry: boolean;
}

interface ParkedRow extends Record<string, unknown> {
  seq: string;
  event_type: string;
  reason: string;
  parked_at: Date;
  attempts: number;
  retry: boolean;
}

const PARKED: KeysetQuery = {
  select: 'p.seq::text AS seq, e.event_type, p.reason, p.parked_at, p.attempts, p.retry',
  from: 'ledger_parked_events p JOIN webhook_events e ON e.seq = p.seq',
  where: 'true',
  params: [],
};

const BY_SEQ: KeyColumn = { expr: 'p.seq', type: 'bigint' };
/** The orders the parked list can be read in ("-" descending). */
export const PARKED_SORTS = {
  seq: [BY_SEQ],
  type: [{ expr: 'e.event_type', type: 'text' }, BY_SEQ],
  attempts: [{ expr: 'p.attempts', type: 'int' }, BY_SEQ],
  parked: [{ expr: 'p.parked_at', type: 'timestamptz' }, BY_SEQ],
} as const satisfies Record<string, readonly KeyColumn[]>;

const toParked = (row: ParkedRow): ParkedEvent => ({
  seq: row.seq,
  eventType: row.event_type,
  reason: row.reason,
  parkedAt: row.parked_at,
  attempts: row.attempts,
  retry: row.retry,
});

/** Every parked event, read the three ways (../read/listing.ts). */
const PARKED_EVENTS: Listing<object, ParkedRow, ParkedEvent> = {
  query: () => PARKED,
  sorts: PARKED_SORTS,
  defaultSort: 'seq',
  toRow: toParked,
};

/** The first `limit` (default 1,000) parked events by seq (for scripts; the console pages with pageParked). */
export async function listParked(db: Queryable, options: { limit?: number } = {}): Promise<ParkedEvent[]> {
  return (await pageParked(db, { limit: options.limit ?? 1000 })).rows;
}

/** A page of parked events (default by seq), with the count of all of them. */
export async function pageParked(
  db: Queryable,
  options: PageRequest & { sort?: string } = {},
): Promise<Page<ParkedEvent>> {
  return readPage(db, PARKED_EVENTS, options);
}

/** Every parked event, read in batches: for exports. */
export async function* allParked(db: Queryable, options: { sort?: string } = {}): AsyncGenerator<ParkedEvent> {
  yield* readAll(db, PARKED_EVENTS, options);
}

/** Puts parked events (all, or the seqs given) back in line; returns how many. */
export async function retryParked(db: Queryable, seqs?: readonly string[]): Promise<number> {
  if (seqs !== undefined)
    for (const seq of seqs)
      if (!/^\d{1,19}$/.test(seq))
        throw new StoreInputError(`"${seq.slice(0, 30)}" is not an event seq (a whole number)`);
  const { rowCount } = await db.query(
    'UPDATE ledger_parked_events SET retry = true WHERE NOT retry AND ($1::bigint[] IS NULL OR seq = ANY($1::bigint[]))',
    [seqs ?? null],
  );
  return rowCount;
}
