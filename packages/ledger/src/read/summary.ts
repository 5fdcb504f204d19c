// The reconciliation summed up: counts and amounts per state by Mexico City day and product (with
// the match rate), the open discrepancies' totals, and the aging of what is still pending.
import type { Queryable } from '@paykit/store';
import { addDecimals, decimal } from './decimal.ts';
import type { DirectionTotals } from './items.ts';
import { ITEM_STATES, ITEMS_SQL, viewParams, type ItemState, type Product, type ReconcileView } from './items-sql.ts';

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
