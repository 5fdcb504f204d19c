// The books' invariants, checked over the journal itself:
//   - every posting balances (its debits equal its credits), so the whole journal does too;
//   - every item's entries net to what its facts call for now (ledger_targets): no fact applied
//     without its posting, no posting without its fact.
// The worker checks the postings written since its last check (cheap, continuous) and shows the
// result on /healthz and in the console; `checkBooks(db)` with no `sincePosting` checks everything.
import type { Queryable } from '@paykit/store';
import { decimal } from '../read/decimal.ts';

export interface BooksCheck {
  /** True when every invariant held. */
  ok: boolean;
  /** Postings whose entries do not sum to zero (at most 20 listed). */
  unbalancedPostings: string[];
  /** Items whose entries differ from what their facts call for (at most 20 listed). */
  itemsOff: Array<{ item: string; account: string; booked: string; expected: string }>;
  /** Sum of all debits and of all credits of the postings checked (decimal strings). */
  debits: string;
  credits: string;
  postingsChecked: number;
  itemsChecked: number;
  /** The highest posting id checked: pass it as `sincePosting` next time. */
  throughPosting: string;
}

export async function checkBooks(db: Queryable, options: { sincePosting?: string } = {}): Promise<BooksCheck> {
  const since = options.sincePosting ?? '0';
  // The postings checked are fixed first, so the statements below (each with its own snapshot)
  // check the same ones, whatever is posted meanwhile.
  const last = await db.query<{ through: string | null }>(
    'SELECT max(posting_id)::text AS through FROM ledger_journal',
  );
  const through = last.rows[0]?.through ?? since;
  const range = [since, through];
  const totals = await db.query<{ debits: string; credits: string; postings: string }>(
    `SELECT coalesce(sum(amount) FILTER (WHERE amount > 0), 0)::text AS debits, coalesce(-sum(amount) FILTER (WHERE amount < 0), 0)::text AS credits,
            count(DISTINCT posting_id)::text AS postings
     FROM ledger_journal WHERE posting_id > $1::bigint AND posting_id <= $2::bigint`,
    range,
  );
  const unbalanced = await db.query<{ posting_id: string }>(
    `SELECT posting_id::text AS posting_id FROM ledger_journal WHERE posting_id > $1::bigint AND posting_id <= $2::bigint
     GROUP BY posting_id HAVING sum(amount) <> 0 ORDER BY posting_id LIMIT 20`,
    range,
  );
  // The items touched since (all of them on a full check), compared with their targets.
  const off = await db.query<{ item: string; account: string; booked: string; expected: string; items: string }>(
    `WITH items AS (
       SELECT CASE WHEN $1::bigint = 0 THEN ARRAY(SELECT ledger_all_items())
                   ELSE ARRAY(SELECT DISTINCT item FROM ledger_journal WHERE posting_id > $1::bigint AND posting_id <= $2::bigint) END AS list
     ), target AS (
       SELECT t.item, t.account, sum(t.amount) AS amount FROM items, ledger_targets(items.list) t GROUP BY 1, 2
     ), booked AS (
       SELECT j.item, j.account, sum(j.amount) AS amount FROM items, ledger_journal j WHERE j.item = ANY(items.list) GROUP BY 1, 2
     )
     SELECT coalesce(t.item, b.item) AS item, coalesce(t.account, b.account) AS account, coalesce(b.amount, 0)::text AS booked,
            coalesce(t.amount, 0)::text AS expected, (SELECT cardinality(list) FROM items)::text AS items
     FROM target t FULL JOIN booked b ON b.item = t.item AND b.account = t.account
     WHERE coalesce(t.amount, 0) <> coalesce(b.amount, 0)
     UNION ALL SELECT NULL, NULL, NULL, NULL, (SELECT cardinality(list) FROM items)::text
     ORDER BY 1 NULLS LAST LIMIT 21`,
    range,
  );
  const itemsChecked = Number(off.rows.at(-1)?.items ?? 0);
  const itemsOff = off.rows
    .filter((row) => row.item !== null)
    .map((row) => ({
      item: row.item,
      account: row.account,
      booked: decimal(row.booked),
      expected: decimal(row.expected),
    }));
  const row = totals.rows[0]!;
  const debits = decimal(row.debits);
  const credits = decimal(row.credits);
  return {
    ok: unbalanced.rows.length === 0 && itemsOff.length === 0 && debits === credits,
    unbalancedPostings: unbalanced.rows.map((r) => r.posting_id),
    itemsOff,
    debits,
    credits,
    postingsChecked: Number(row.postings),
    itemsChecked,
    throughPosting: through,
  };
}
