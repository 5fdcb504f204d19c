// Conflicts: facts that contradict one already in the ledger, kept as facts of their own
// (migration 0007, ledger_conflicts) instead of being dropped. The first fact stands in the
// ledger; the item it concerns reads "conflict" (never "matched") until someone settles it with the
// platform. Credits and refunds that reuse a transaction id with other content, and redeliveries
// with another body, are recorded where they are written (events.ts, the event store's
// append); a second refund of one transaction is recorded here, under the transaction's key lock.
import {
  StoreInputError,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { readAll, readOffset, readPage, type Listing } from '../read/listing.ts';

export const CONFLICT_KINDS = ['credit', 'refund', 'second_refund', 'redelivery'] as const;
export type ConflictKind = (typeof CONFLICT_KINDS)[number];

export interface Conflict {
  id: string;
  kind: ConflictKind;
  /** The ledger item it concerns, when known. */
  transactionId: string | null;
  eventType: string;
  /** The event whose fact stands. */
  firstSeq: string;
  /** The conflicting event (null for a redelivery: its body is kept with the conflict). */
  eventSeq: string | null;
  dedupeKey: string | null;
  firstAmount: string | null;
  amount: string | null;
  detail: string;
  recordedAt: Date;
}

/**
 * Refunds are never partial: every refund of a transaction but the one that stands is a conflict.
 * The one that stands is the journal's too (ledger_standing_refund: the earliest by the platform's
 * time, then by id, and not itself contested; never by arrival). Run after the refunds were written
 * and their originals' keys locked, so of two workers writing two refunds of one transaction, the
 * second to lock sees both.
 */
export async function recordSecondRefunds(tx: Queryable, originalIds: readonly string[]): Promise<void> {
  await tx.query(
    `INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, event_seq, first_amount, amount, detail)
     SELECT 'second_refund', f.original_transaction_id, 'REFUND', first.event_seq, f.event_seq, first.amount, f.amount,
            'a second refund of ' || f.original_transaction_id || ': ' || f.transaction_id || ' (' || f.amount || ') beside ' || first.transaction_id
              || ' (' || first.amount || '), the one that stands; refunds are never partial'
     FROM ledger_refunds f
     CROSS JOIN LATERAL ledger_standing_refund(f.original_transaction_id) first
     WHERE f.original_transaction_id = ANY($1::text[]) AND f.event_seq <> first.event_seq
     ON CONFLICT (event_seq) DO NOTHING`,
    [originalIds],
  );
}

interface ConflictRow {
  id: string;
  kind: ConflictKind;
  transaction_id: string | null;
  event_type: string;
  first_seq: string;
  event_seq: string | null;
  dedupe_key: string | null;
  first_amount: string | null;
  amount: string | null;
  detail: string;
  recorded_at: Date;
}

const CONFLICT_SELECT = `id::text AS id, kind, transaction_id, event_type, first_seq::text AS first_seq, event_seq::text AS event_seq, dedupe_key,
            first_amount::text AS first_amount, amount::text AS amount, detail, recorded_at`;

function conflictsQuery(kinds: readonly ConflictKind[]): KeysetQuery {
  for (const kind of kinds)
    if (!CONFLICT_KINDS.includes(kind)) throw new StoreInputError(`kind must be one of ${CONFLICT_KINDS.join(', ')}`);
  return {
    select: CONFLICT_SELECT,
    from: 'ledger_conflicts',
    where: 'cardinality($1::text[]) = 0 OR kind = ANY($1::text[])',
    params: [kinds],
  };
}

const BY_ID: KeyColumn = { expr: 'id', type: 'bigint' };
/** The orders a conflict list can be read in ("-" descending). */
export const CONFLICT_SORTS = {
  id: [BY_ID],
  kind: [{ expr: 'kind', type: 'text' }, BY_ID],
  amount: [{ expr: 'coalesce(amount, -1)', type: 'numeric' }, BY_ID],
  transaction: [{ expr: "coalesce(transaction_id, '')", type: 'text' }, BY_ID],
} as const satisfies Record<string, readonly KeyColumn[]>;

const toConflict = (row: ConflictRow): Conflict => ({
  id: row.id,
  kind: row.kind,
  transactionId: row.transaction_id,
  eventType: row.event_type,
  firstSeq: row.first_seq,
  eventSeq: row.event_seq,
  dedupeKey: row.dedupe_key,
  firstAmount: row.first_amount,
  amount: row.amount,
  detail: row.detail,
  recordedAt: row.recorded_at,
});

/** The conflicts of some kinds (none: all), read the three ways (../read/listing.ts). */
const CONFLICTS: Listing<{ kinds?: ConflictKind[] }, ConflictRow & Record<string, unknown>, Conflict> = {
  query: (filter) => conflictsQuery(filter.kinds ?? []),
  sorts: CONFLICT_SORTS,
  defaultSort: '-id',
  toRow: toConflict,
};

/** Newest first; `kinds` narrows them. limit default 200, at most 10,000. */
export async function listConflicts(
  db: Queryable,
  options: { kinds?: ConflictKind[]; limit?: number; offset?: number } = {},
): Promise<Conflict[]> {
  return readOffset(db, CONFLICTS, options, 'ledger_conflicts.id DESC');
}

/** A page of conflicts (default newest first), with the count of all that match. */
export async function pageConflicts(
  db: Queryable,
  options: PageRequest & { kinds?: ConflictKind[]; sort?: string } = {},
): Promise<Page<Conflict>> {
  return readPage(db, CONFLICTS, options);
}

/** Every conflict that matches, read in batches: for exports. */
export async function* allConflicts(
  db: Queryable,
  options: { kinds?: ConflictKind[]; sort?: string } = {},
): AsyncGenerator<Conflict> {
  yield* readAll(db, CONFLICTS, options);
}

/** How many conflicts are recorded, by kind (every kind present, 0 included) and in all. */
export async function conflictCounts(db: Queryable): Promise<Record<ConflictKind, number> & { total: number }> {
  const { rows } = await db.query<{ kind: ConflictKind; n: string }>(
    'SELECT kind, count(*)::text AS n FROM ledger_conflicts GROUP BY kind',
  );
  const counts = { credit: 0, refund: 0, second_refund: 0, redelivery: 0, total: 0 };
  for (const row of rows) {
    counts[row.kind] = Number(row.n);
    counts.total += Number(row.n);
  }
  return counts;
}
