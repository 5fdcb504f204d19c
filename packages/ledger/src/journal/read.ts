// Reading the journal: every money figure paykit shows (the console's cards and volumes, the daily
// summary, the exports, the CLI's summaries, the metrics) is a sum of journal entries by account and
// value date, so no figure can disagree with the postings it summarises. Money in and money out are
// separate figures, each with what returned it (refunds and chargebacks; reversals), never added
// together; held credits and transfers still in transit are figures of their own.
import { StoreInputError, type Queryable } from '@paykit/store';
import { decimal } from '../read/decimal.ts';

/**
 * A money figure: what settled (gross), what was returned against it, the net of the two, what is
 * still in transit (out) or held (in), and what was sent without a recorded answer (out: the
 * unresolved write-ahead intents, in suspense until their answer or a refusal is attached).
 */
export const MONEY_FIGURES = ['settled', 'returned', 'net', 'in_transit', 'held', 'unconfirmed'] as const;
export type MoneyFigure = (typeof MONEY_FIGURES)[number];

/** Which account feeds which figure, and the sign that makes the figure positive. */
const FIGURE_ACCOUNTS = `(VALUES
  ('in:received', 'in', 'settled', -1), ('in:refunded', 'in', 'returned', 1), ('in:charged_back', 'in', 'returned', 1),
  ('in:held', 'in', 'held', -1),
  ('out:paid', 'out', 'settled', 1), ('out:reversed', 'out', 'returned', -1), ('out:in_transit', 'out', 'in_transit', 1),
  ('out:unconfirmed', 'out', 'unconfirmed', 1)
) AS m(account, direction, figure, sign)`;

/** The figures of one direction: money in is never in transit nor unconfirmed, money out never held. */
export function figureApplies(direction: 'in' | 'out', figure: MoneyFigure): boolean {
  return direction === 'in' ? figure !== 'in_transit' && figure !== 'unconfirmed' : figure !== 'held';
}

export interface MoneyRow {
  /** The Mexico City value day; null on the rows that total the whole range. */
  day: string | null;
  direction: 'in' | 'out';
  figure: MoneyFigure;
  /** Items with a non-zero amount on the figure's accounts. */
  count: number;
  /** Decimal string, summed by the database from the journal. */
  amount: string;
}

export interface DayRange {
  /** Mexico City days, YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
}

function dayParams(range: DayRange): [string | null, string | null] {
  for (const [name, day] of [
    ['from', range.from],
    ['to', range.to],
  ] as const)
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day))
      throw new StoreInputError(`${name} must be a day, YYYY-MM-DD (Mexico City)`);
  return [range.from ?? null, range.to ?? null];
}

/**
 * Money in and out by figure, per value day and (day null) over the range. Net is settled less
 * returned, per direction. Every figure present on each row set, 0 when nothing was booked.
 */
export async function moneyFigures(db: Queryable, range: DayRange = {}): Promise<MoneyRow[]> {
  const { rows } = await db.query<{
    day: string | null;
    direction: 'in' | 'out';
    figure: MoneyFigure;
    count: string;
    amount: string;
  }>(
    `WITH entries AS (
       -- Each item's net on each figure's account and day (the account's index finds them).
       SELECT j.value_date AS day, m.direction, m.figure, j.item, m.sign * sum(j.amount) AS amount
       FROM ${FIGURE_ACCOUNTS} JOIN ledger_journal j ON j.account = m.account
       WHERE ($1::date IS NULL OR j.value_date >= $1::date) AND ($2::date IS NULL OR j.value_date <= $2::date)
       GROUP BY j.value_date, m.direction, m.figure, m.sign, j.item HAVING sum(j.amount) <> 0
     ), figures AS (
       SELECT day, direction, figure, item, amount FROM entries
       UNION ALL
       SELECT day, direction, 'net', item, CASE WHEN figure = 'settled' THEN amount ELSE -amount END
       FROM entries WHERE figure IN ('settled', 'returned')
     )
     SELECT day::text AS day, direction, figure, count(DISTINCT item)::text AS count, sum(amount)::text AS amount
     FROM figures GROUP BY GROUPING SETS ((day, direction, figure), (direction, figure))
     ORDER BY day NULLS FIRST, direction, figure`,
    dayParams(range),
  );
  const found = new Map(rows.map((row) => [`${row.day}|${row.direction}|${row.figure}`, row]));
  const days = [null, ...new Set(rows.flatMap((row) => (row.day === null ? [] : [row.day])))];
  const result: MoneyRow[] = [];
  for (const day of days)
    for (const direction of ['in', 'out'] as const)
      for (const figure of MONEY_FIGURES) {
        if (!figureApplies(direction, figure)) continue;
        const row = found.get(`${day}|${direction}|${figure}`);
        result.push({
          day,
          direction,
          figure,
          count: Number(row?.count ?? 0),
          amount: decimal(row?.amount ?? '0'),
        });
      }
  return result;
}

/** One figure of `moneyFigures`' rows: of a day, or (day null) of the range; "0.00" when nothing was booked. */
export function figureOf(
  rows: readonly MoneyRow[],
  direction: 'in' | 'out',
  figure: MoneyFigure = 'settled',
  day: string | null = null,
): MoneyRow {
  return (
    rows.find((row) => row.day === day && row.direction === direction && row.figure === figure) ?? {
      day,
      direction,
      figure,
      count: 0,
      amount: '0.00',
    }
  );
}

export interface AccountBalance {
  account: string;
  /** Decimal string: debits less credits over the range (a credit-normal account reads negative). */
  balance: string;
  debits: string;
  credits: string;
  entries: number;
}

/** Every account's balance over the range, by account name. */
export async function accountBalances(db: Queryable, range: DayRange = {}): Promise<AccountBalance[]> {
  const { rows } = await db.query<{
    account: string;
    balance: string;
    debits: string;
    credits: string;
    entries: string;
  }>(
    `SELECT account, sum(amount)::text AS balance, coalesce(sum(amount) FILTER (WHERE amount > 0), 0)::text AS debits,
            coalesce(-sum(amount) FILTER (WHERE amount < 0), 0)::text AS credits, count(*)::text AS entries
     FROM ledger_journal
     WHERE ($1::date IS NULL OR value_date >= $1::date) AND ($2::date IS NULL OR value_date <= $2::date)
     GROUP BY account ORDER BY account`,
    dayParams(range),
  );
  return rows.map((row) => ({
    account: row.account,
    balance: decimal(row.balance),
    debits: decimal(row.debits),
    credits: decimal(row.credits),
    entries: Number(row.entries),
  }));
}

export interface JournalEntry {
  postingId: string;
  item: string;
  account: string;
  valueDate: string;
  /** Decimal string: positive debits, negative credits. */
  amount: string;
  /** The fact it stands on: event:<seq> (a stored webhook event: its bytes are in webhook_events), record:<transaction id>, receivable:<id>, release:<credit id>. */
  source: string;
  cause: string;
  postedAt: Date;
}

/** Every entry of one item (tx:<transaction id>, dd:<charge id>, rcv:<receivable id>, int:<intent id>), in posting order: how its figures came to be. */
export async function itemJournal(db: Queryable, item: string): Promise<JournalEntry[]> {
  if (!/^(tx|dd|rcv|int):.{1,200}$/s.test(item))
    throw new StoreInputError(
      'item must be tx:<transaction id>, dd:<charge id>, rcv:<receivable id> or int:<intent id>',
    );
  const { rows } = await db.query<{
    posting_id: string;
    item: string;
    account: string;
    value_date: string;
    amount: string;
    source: string;
    cause: string;
    posted_at: Date;
  }>(
    `SELECT posting_id::text AS posting_id, item, account, value_date::text AS value_date, amount::text AS amount, source, cause, posted_at
     FROM ledger_journal WHERE item = $1 ORDER BY posting_id, account, value_date, source`,
    [item],
  );
  return rows.map((row) => ({
    postingId: row.posting_id,
    item: row.item,
    account: row.account,
    valueDate: row.value_date,
    amount: decimal(row.amount),
    source: row.source,
    cause: row.cause,
    postedAt: row.posted_at,
  }));
}
