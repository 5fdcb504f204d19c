// Reading the reconciliation's items: each with its state, the report line it was compared with
// and the events behind it, listed, paged and read whole. What the console and the exports show.
import {
  pageLimit,
  StoreInputError,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { decimal } from './decimal.ts';
import { readAll, readOffset, readPage, type Listing } from './listing.ts';
import {
  ITEM_STATES,
  ITEMS_SQL,
  PRODUCTS,
  viewParams,
  type ItemState,
  type MoneyOutcome,
  type Product,
  type ReconcileView,
} from './items-sql.ts';

export interface ItemFilter extends ReconcileView {
  states?: ItemState[];
  products?: Product[];
  /** Default 200, at most 10,000. */
  limit?: number;
  offset?: number;
}

export interface ReconItem {
  kind: 'outbound' | 'credit' | 'refund' | 'status_update' | 'charge';
  id: string;
  product: Product;
  day: string;
  at: Date;
  /** Decimal string; null for a status update of an unknown transaction or a result of an unrecorded charge. */
  amount: string | null;
  direction: 'in' | 'out';
  status: string;
  trackingKey: string | null;
  account: string | null;
  state: ItemState;
  /** Where the money went (OUTCOMES): settled, rejected, refused, refunded or pending. */
  outcome: MoneyOutcome;
  /** The fields that disagree (mismatched). */
  fields: string[];
  note: string | null;
  /** The stored events behind it (webhook_events.seq). */
  eventSeqs: string[];
  /**
   * The report line a transfer or credit was compared with: the line of the newest report listing
   * it (reports by their own time: ITEMS_SQL). null: no imported report lists it, or the item is
   * of a kind not compared with reports.
   */
  report: ReportLineRef | null;
  /**
   * The newest line of an older report that says otherwise (amount or status), also named in the
   * note. Shown, not a mismatch by itself: the state follows the newest report's line.
   */
  reportDisagreement: ReportLineRef | null;
}

export interface ReportLineRef {
  fileName: string;
  lineNo: number;
  /** Decimal string, as the line states it. */
  amount: string;
  status: string;
}

/** The amounts of a set of items in one direction and the other (decimal strings), never added together. */
export interface DirectionTotals {
  amountIn: string;
  amountOut: string;
}

// The conflicting events of an item (ledger_conflicts.event_seq) are among its events too. A
// status update of an unknown transaction is named by its id, or by its tracking key when it has
// none (orphan_updates): each of the two is read through its own index.
const EVENT_SEQS = `CASE i.kind
  WHEN 'outbound' THEN ARRAY(SELECT event_seq::text FROM ledger_status_history h WHERE h.transaction_id = i.id
                             UNION SELECT event_seq::text FROM ledger_status_history h WHERE h.transaction_id IS NULL AND h.tracking_key = i.tracking_key
                             UNION SELECT event_seq::text FROM ledger_cep_results c WHERE c.transaction_id = i.id
                             UNION SELECT event_seq::text FROM ledger_refunds f WHERE f.original_transaction_id = i.id
                             UNION SELECT event_seq::text FROM ledger_conflicts k WHERE k.transaction_id = i.id AND k.event_seq IS NOT NULL)
  WHEN 'credit' THEN ARRAY(SELECT event_seq::text FROM ledger_credits c WHERE c.transaction_id = i.id
                           UNION SELECT event_seq::text FROM ledger_refunds f WHERE f.original_transaction_id = i.id
                           UNION SELECT event_seq::text FROM ledger_conflicts k WHERE k.transaction_id = i.id AND k.event_seq IS NOT NULL)
  WHEN 'refund' THEN ARRAY(SELECT event_seq::text FROM ledger_refunds f WHERE f.transaction_id = i.id
                           UNION SELECT event_seq::text FROM ledger_conflicts k WHERE k.transaction_id = i.id AND k.event_seq IS NOT NULL)
  WHEN 'charge' THEN ARRAY(SELECT event_seq::text FROM ledger_dd_results r WHERE r.charge_id = i.id)
  ELSE ARRAY(SELECT event_seq::text FROM ledger_status_history h WHERE h.transaction_id = i.id
             UNION ALL SELECT event_seq::text FROM ledger_status_history h WHERE h.transaction_id IS NULL AND h.tracking_key = i.id) END`;

interface ItemRow {
  kind: ReconItem['kind'];
  id: string;
  product: Product;
  day: string;
  at: Date;
  amount: string | null;
  direction: 'in' | 'out';
  status: string;
  tracking_key: string | null;
  account: string | null;
  state: ItemState;
  outcome: MoneyOutcome;
  fields: string[];
  note: string | null;
  event_seqs: string[];
  report_file: string | null;
  report_line: number | null;
  report_amount: string | null;
  report_status: string | null;
  older_file: string | null;
  older_line: number | null;
  older_amount: string | null;
  older_status: string | null;
}

const ITEM_SELECT = `i.kind, i.id, i.product, i.day::text AS day, i.at, i.amount::text AS amount, i.direction, i.status, i.tracking_key, i.account, i.state, i.outcome, i.fields, i.note,
            ${EVENT_SEQS} AS event_seqs,
            i.report_file, i.report_line, i.report_amount::text AS report_amount, i.report_status,
            i.older_file, i.older_line, i.older_amount::text AS older_amount, i.older_status`;
// The report line comes with the item (ITEMS_SQL joins it to transfers and credits, the only items
// compared with reports), not joined again to every item here.
const ITEM_FROM = 'items i';

/** The items a filter matches, as a query to page or read whole. */
function itemsQuery(filter: ItemFilter): KeysetQuery {
  const params = viewParams(filter);
  const states = filter.states ?? [];
  const products = filter.products ?? [];
  for (const state of states)
    if (!ITEM_STATES.includes(state)) throw new StoreInputError(`state must be one of ${ITEM_STATES.join(', ')}`);
  for (const product of products)
    if (!PRODUCTS.includes(product)) throw new StoreInputError(`product must be one of ${PRODUCTS.join(', ')}`);
  return {
    with: ITEMS_SQL,
    select: ITEM_SELECT,
    from: ITEM_FROM,
    where:
      '(cardinality($5::text[]) = 0 OR i.state = ANY($5::text[])) AND (cardinality($6::text[]) = 0 OR i.product = ANY($6::text[]))',
    params: [...params, states, products],
    // Money in and out are summed apart, never added together.
    totals: `count(*)::text AS count, coalesce(sum(i.amount) FILTER (WHERE i.direction = 'in'), 0)::text AS amount_in,
             coalesce(sum(i.amount) FILTER (WHERE i.direction = 'out'), 0)::text AS amount_out`,
  };
}

const TIE: KeyColumn[] = [
  { expr: 'i.at', type: 'timestamptz' },
  { expr: 'i.kind', type: 'text' },
  { expr: 'i.id', type: 'text' },
];
/** The orders an item list can be read in (`-name` descending). */
export const ITEM_SORTS = {
  at: TIE,
  amount: [{ expr: 'coalesce(i.amount, -1)', type: 'numeric' }, ...TIE],
  product: [{ expr: 'i.product', type: 'text' }, ...TIE],
  state: [{ expr: 'i.state', type: 'text' }, ...TIE],
  status: [{ expr: 'i.status', type: 'text' }, ...TIE],
} as const satisfies Record<string, readonly KeyColumn[]>;

function toItem(row: ItemRow): ReconItem {
  const report = lineRef(row.report_file, row.report_line, row.report_amount, row.report_status);
  const older = lineRef(row.older_file, row.older_line, row.older_amount, row.older_status);
  const disagreement =
    report && older
      ? `report ${older.fileName} line ${older.lineNo} says ${older.status} ${older.amount}; the newest, ${report.fileName} line ${report.lineNo}, says ${report.status} ${report.amount}`
      : null;
  return {
    kind: row.kind,
    id: row.id,
    product: row.product,
    day: row.day,
    at: row.at,
    amount: row.amount,
    direction: row.direction,
    status: row.status,
    trackingKey: row.tracking_key,
    account: row.account,
    state: row.state,
    outcome: row.outcome,
    fields: row.fields,
    note: disagreement === null ? row.note : row.note === null ? disagreement : `${row.note}; ${disagreement}`,
    eventSeqs: [...row.event_seqs].sort((a, b) => Number(BigInt(a) - BigInt(b))),
    report,
    reportDisagreement: older,
  };
}

function lineRef(
  fileName: string | null,
  lineNo: number | null,
  amount: string | null,
  status: string | null,
): ReportLineRef | null {
  return fileName === null || lineNo === null || amount === null || status === null
    ? null
    : { fileName, lineNo, amount, status };
}

/** The items of a filter, read the three ways (listing.ts). */
const ITEMS: Listing<ItemFilter, ItemRow & Record<string, unknown>, ReconItem> = {
  query: itemsQuery,
  sorts: ITEM_SORTS,
  defaultSort: '-at',
  toRow: toItem,
};

/** Newest first, `limit` from `offset` (for scripts; the console pages with pageItems). */
export async function listItems(db: Queryable, filter: ItemFilter = {}): Promise<ReconItem[]> {
  return readOffset(db, ITEMS, filter, 'i.at DESC, i.id');
}

/** A page of items in the order `sort` names (default "-at", newest first), with the count and sum of every item the filter matches. */
export async function pageItems(
  db: Queryable,
  filter: ItemFilter & PageRequest & { sort?: string } = {},
): Promise<Page<ReconItem> & DirectionTotals> {
  const page = await readPage(db, ITEMS, filter);
  return {
    ...page,
    amountIn: decimal(page.totals.amount_in ?? '0'),
    amountOut: decimal(page.totals.amount_out ?? '0'),
  };
}

/**
 * Every item the filter matches, newest first, read `batch` at a time (default 5,000: each batch
 * computes every item of the range before it picks its rows, so fewer, larger batches): for exports.
 */
export async function* allItems(
  db: Queryable,
  filter: ItemFilter & { sort?: string; batch?: number } = {},
): AsyncGenerator<ReconItem> {
  yield* readAll(db, ITEMS, filter, pageLimit(filter.batch ?? 5000));
}
