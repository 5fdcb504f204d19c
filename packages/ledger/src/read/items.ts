// Reading the reconciliation: items with their state, the summary by day and product, the aging
// of what is still open, and the events behind an item. What the console and the exports show.
import {
  allRows,
  keysetPage,
  pageLimit,
  pageOf,
  pickOrder,
  StoreInputError,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { ITEM_STATES, ITEMS_SQL, OUTCOMES, PRODUCTS } from './items-sql.ts';

export type ItemState = (typeof ITEM_STATES)[number];
export type Product = (typeof PRODUCTS)[number];
export type MoneyOutcome = (typeof OUTCOMES)[number];
export { ITEM_STATES, OUTCOMES, PRODUCTS };

export interface ReconcileView {
  /** Pending items older than this are stale (and records with no event at all, orphans). Default 86,400 s. */
  staleAfterSeconds?: number;
  /** "Now" for ages (default: the clock). */
  now?: Date;
  /** Mexico City days, YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
}

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

export interface StateFigures {
  count: number;
  /** Decimal string. */
  amount: string;
}

export interface SummaryRow {
  day: string;
  product: Product;
  states: Record<ItemState, StateFigures>;
  total: StateFigures;
  /** (matched + refunded) / total, 0 to 1; null with no items. */
  matchRate: number | null;
}

function viewParams(view: ReconcileView): unknown[] {
  const stale = view.staleAfterSeconds ?? 86_400;
  if (!Number.isFinite(stale) || stale < 0)
    throw new StoreInputError('staleAfterSeconds must be a number of seconds, 0 or more');
  const now = view.now ?? new Date();
  for (const [name, day] of [
    ['from', view.from],
    ['to', view.to],
  ] as const) {
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day))
      throw new StoreInputError(`${name} must be a day, YYYY-MM-DD (Mexico City)`);
  }
  return [stale, now.toISOString(), view.from ?? null, view.to ?? null];
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

/** The items a filter matches, as a query to page or read whole (keyset.ts). */
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

/** Newest first, `limit` from `offset` (for scripts; the console pages with pageItems). */
export async function listItems(db: Queryable, filter: ItemFilter = {}): Promise<ReconItem[]> {
  const query = itemsQuery(filter);
  const { limit, offset } = pageOf(filter);
  const n = query.params.length;
  const { rows } = await db.query<ItemRow>(
    `WITH ${query.with} SELECT ${query.select} FROM ${query.from} WHERE ${query.where} ORDER BY i.at DESC, i.id LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...query.params, limit, offset],
  );
  return rows.map(toItem);
}

/** A page of items in the order `sort` names (default "-at", newest first), with the count and sum of every item the filter matches. */
export async function pageItems(
  db: Queryable,
  filter: ItemFilter & PageRequest & { sort?: string } = {},
): Promise<Page<ReconItem> & DirectionTotals> {
  const { order } = pickOrder(ITEM_SORTS, filter.sort, '-at');
  const page = await keysetPage<ItemRow & Record<string, unknown>>(db, itemsQuery(filter), order, filter);
  return {
    ...page,
    rows: page.rows.map(toItem),
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
  const { order } = pickOrder(ITEM_SORTS, filter.sort, '-at');
  for await (const row of allRows<ItemRow & Record<string, unknown>>(
    db,
    itemsQuery(filter),
    order,
    pageLimit(filter.batch ?? 5000),
  ))
    yield toItem(row);
}

/** Counts and amounts per state, by Mexico City day and product, with the match rate. */
export async function reconciliationSummary(db: Queryable, view: ReconcileView = {}): Promise<SummaryRow[]> {
  const { rows } = await db.query<{ day: string; product: Product; state: ItemState; count: string; amount: string }>(
    `WITH ${ITEMS_SQL}
     SELECT day::text AS day, product, state, count(*)::text AS count, coalesce(sum(amount), 0)::text AS amount
     FROM items GROUP BY day, product, state ORDER BY day, product`,
    viewParams(view),
  );
  const byKey = new Map<string, SummaryRow>();
  for (const row of rows) {
    const key = `${row.day}|${row.product}`;
    let summary = byKey.get(key);
    if (!summary) {
      summary = {
        day: row.day,
        product: row.product,
        states: emptyStates(),
        total: { count: 0, amount: '0.00' },
        matchRate: null,
      };
      byKey.set(key, summary);
    }
    summary.states[row.state] = { count: Number(row.count), amount: decimal(row.amount) };
  }
  for (const summary of byKey.values()) {
    const figures = Object.values(summary.states);
    const count = figures.reduce((sum, f) => sum + f.count, 0);
    summary.total = { count, amount: addDecimals(figures.map((f) => f.amount)) };
    summary.matchRate = count === 0 ? null : (summary.states.matched.count + summary.states.refunded.count) / count;
  }
  return [...byKey.values()];
}

/** The amounts of a set of items in one direction and the other (decimal strings), never added together. */
export interface DirectionTotals {
  amountIn: string;
  amountOut: string;
}

/** Items in the given states (default: the open discrepancies, mismatched, orphan, conflict and stale) over the range: count, and sums per direction from the database. */
export async function stateTotals(
  db: Queryable,
  view: ReconcileView & { states?: ItemState[] } = {},
): Promise<{ count: number } & DirectionTotals> {
  const states = view.states ?? ['mismatched', 'orphan', 'conflict', 'stale'];
  const { rows } = await db.query<{ count: string; amount_in: string; amount_out: string }>(
    `WITH ${ITEMS_SQL} SELECT count(*)::text AS count, coalesce(sum(amount) FILTER (WHERE direction = 'in'), 0)::text AS amount_in,
            coalesce(sum(amount) FILTER (WHERE direction = 'out'), 0)::text AS amount_out
     FROM items WHERE state = ANY($5::text[])`,
    [...viewParams(view), states],
  );
  return {
    count: Number(rows[0]!.count),
    amountIn: decimal(rows[0]!.amount_in),
    amountOut: decimal(rows[0]!.amount_out),
  };
}

export interface AgingBucket {
  bucket: string;
  count: number;
  amount: string;
}

/** Pending and stale items by age: under 1 h, 1 to 24 h, 1 to 7 days, over 7 days. */
export async function pendingAging(db: Queryable, view: ReconcileView = {}): Promise<AgingBucket[]> {
  const { rows } = await db.query<{ bucket: string; count: string; amount: string }>(
    `WITH ${ITEMS_SQL},
     aged AS (SELECT amount, $2::timestamptz - at AS age FROM items WHERE state IN ('pending', 'stale'))
     SELECT b.bucket, count(a.age)::text AS count, coalesce(sum(a.amount), 0)::text AS amount
     FROM (VALUES (1, 'under 1 h', interval '0', interval '1 hour'), (2, '1 to 24 h', interval '1 hour', interval '1 day'),
                  (3, '1 to 7 days', interval '1 day', interval '7 days'), (4, 'over 7 days', interval '7 days', interval '1000 years')) AS b(n, bucket, low, high)
     LEFT JOIN aged a ON a.age >= b.low AND a.age < b.high OR (b.n = 1 AND a.age < interval '0')
     GROUP BY b.n, b.bucket ORDER BY b.n`,
    viewParams(view),
  );
  return rows.map((row) => ({ bucket: row.bucket, count: Number(row.count), amount: decimal(row.amount) }));
}

function emptyStates(): Record<ItemState, StateFigures> {
  return Object.fromEntries(ITEM_STATES.map((state) => [state, { count: 0, amount: '0.00' }])) as Record<
    ItemState,
    StateFigures
  >;
}

/** Sums decimal strings exactly, as centavos. */
export function addDecimals(values: readonly string[]): string {
  const centavos = values.reduce((sum, value) => sum + toCentavos(value), 0n);
  return fromCentavos(centavos);
}

function toCentavos(value: string): bigint {
  const [whole = '0', fraction = ''] = decimal(value).replace('-', '').split('.');
  const cents = BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  return value.startsWith('-') ? -cents : cents;
}

function fromCentavos(centavos: bigint): string {
  const sign = centavos < 0n ? '-' : '';
  const abs = centavos < 0n ? -centavos : centavos;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

/** numeric text → two decimals ("12" → "12.00", "3.5" → "3.50"). */
export function decimal(value: string): string {
  const [whole = '0', fraction = ''] = value.split('.');
  return `${whole}.${fraction.padEnd(2, '0').slice(0, 2)}`;
}
