// Receivables by age: what is still owed on each receivable (its journal account receivable:<id>:
// the amount registered less what the credits applied to it paid), by how late it is on the Mexico
// City day of `now` (a fake-clockable "now" for the console and tests). Counts and sums come from
// the journal.
import {
  StoreInputError,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { decimal } from './decimal.ts';
import { readAll, readPage, type Listing } from './listing.ts';

export const RECEIVABLE_AGES = [
  'not yet due',
  'due today',
  '1 to 7 days late',
  '8 to 30 days late',
  'over 30 days late',
] as const;
export type ReceivableAge = (typeof RECEIVABLE_AGES)[number];

export interface ReceivableAgeBucket {
  age: ReceivableAge;
  count: number;
  /** Decimal string. */
  amount: string;
}

export interface OpenReceivable {
  id: string;
  beneficiaryAccount: string;
  /** What was registered. */
  amount: string;
  /** What is still owed (the journal's balance of receivable:<id>); less than `amount` when partly paid. */
  open: string;
  reference: string | null;
  concept: string | null;
  dueDate: string;
  /** Days past the due date on now's Mexico City day (negative: not due yet). */
  daysLate: number;
  age: ReceivableAge;
}

const LATE = `(ledger_day($1::timestamptz) - r.due_date)`;
/** Each receivable (r) with what is still owed on it (b.open): the balance of its own journal account. */
export const OPEN_FROM = `ledger_receivables r
  CROSS JOIN LATERAL (SELECT coalesce(sum(j.amount), 0) AS open FROM ledger_journal j WHERE j.item = 'rcv:' || r.id AND j.account = 'receivable:' || r.id) b`;
const AGE = `CASE WHEN ${LATE} < 0 THEN 'not yet due' WHEN ${LATE} = 0 THEN 'due today' WHEN ${LATE} <= 7 THEN '1 to 7 days late'
  WHEN ${LATE} <= 30 THEN '8 to 30 days late' ELSE 'over 30 days late' END`;

function at(now: Date | undefined): string {
  const value = now ?? new Date();
  if (Number.isNaN(value.getTime())) throw new StoreInputError('now must be a valid date');
  return value.toISOString();
}

/** Every age, in order, with the count and sum of the open receivables in it (0 for an empty one). */
export async function receivablesByAge(db: Queryable, options: { now?: Date } = {}): Promise<ReceivableAgeBucket[]> {
  const { rows } = await db.query<{ age: ReceivableAge; count: string; amount: string }>(
    `SELECT ${AGE} AS age, count(*)::text AS count, sum(b.open)::text AS amount FROM ${OPEN_FROM} WHERE b.open > 0 GROUP BY 1`,
    [at(options.now)],
  );
  const found = new Map(rows.map((row) => [row.age, row]));
  return RECEIVABLE_AGES.map((age) => ({
    age,
    count: Number(found.get(age)?.count ?? 0),
    amount: decimal(found.get(age)?.amount ?? '0'),
  }));
}

export interface ReceivableFilter extends PageRequest {
  now?: Date;
  ages?: ReceivableAge[];
  /** due (default, the most overdue first is "due"), amount, id; "-" descending. */
  sort?: string;
}

const BY_ID: KeyColumn = { expr: 'r.id', type: 'text' };
export const RECEIVABLE_SORTS = {
  due: [{ expr: 'r.due_date', type: 'date' }, BY_ID],
  amount: [{ expr: 'b.open', type: 'numeric' }, BY_ID],
  id: [BY_ID],
} as const satisfies Record<string, readonly KeyColumn[]>;

function receivablesQuery(filter: ReceivableFilter): KeysetQuery {
  const ages = filter.ages ?? [];
  for (const age of ages)
    if (!RECEIVABLE_AGES.includes(age)) throw new StoreInputError(`age must be one of ${RECEIVABLE_AGES.join(', ')}`);
  return {
    select: `r.id, r.beneficiary_account, r.amount::text AS amount, b.open::text AS open, r.reference, r.concept, r.due_date::text AS due_date, ${LATE} AS days_late, ${AGE} AS age`,
    from: OPEN_FROM,
    where: `b.open > 0 AND (cardinality($2::text[]) = 0 OR ${AGE} = ANY($2::text[]))`,
    params: [at(filter.now), ages],
    totals: 'count(*)::text AS count, coalesce(sum(b.open), 0)::text AS amount',
  };
}

interface ReceivableRow extends Record<string, unknown> {
  id: string;
  beneficiary_account: string;
  amount: string;
  open: string;
  reference: string | null;
  concept: string | null;
  due_date: string;
  days_late: number;
  age: ReceivableAge;
}

const toReceivable = (row: ReceivableRow): OpenReceivable => ({
  id: row.id,
  beneficiaryAccount: row.beneficiary_account,
  amount: row.amount,
  open: decimal(row.open),
  reference: row.reference,
  concept: row.concept,
  dueDate: row.due_date,
  daysLate: Number(row.days_late),
  age: row.age,
});

/** The open receivables of a filter, read a page at a time or whole (listing.ts). */
const RECEIVABLES: Listing<ReceivableFilter, ReceivableRow, OpenReceivable> = {
  query: receivablesQuery,
  sorts: RECEIVABLE_SORTS,
  defaultSort: 'due',
  toRow: toReceivable,
};

/** A page of open receivables (default: due date, the oldest first), with the count and the sum still owed of all that match. */
export async function pageReceivables(
  db: Queryable,
  filter: ReceivableFilter = {},
): Promise<Page<OpenReceivable> & { amount: string }> {
  const page = await readPage(db, RECEIVABLES, filter);
  return { ...page, amount: decimal(page.totals.amount ?? '0') };
}

/** Every open receivable that matches, read in batches: for exports. */
export async function* allReceivables(
  db: Queryable,
  filter: Omit<ReceivableFilter, keyof PageRequest> = {},
): AsyncGenerator<OpenReceivable> {
  yield* readAll(db, RECEIVABLES, filter);
}
