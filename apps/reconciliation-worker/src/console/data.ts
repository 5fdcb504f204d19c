// What the console shows, read once per request from the store and shaped for the page and the exports.
import { addDecimals, conflictCounts, listConflicts, listDrift, listItems, listParked, pendingAging, reconciliationSummary, reportMatches, type Database, type DriftRecord, type SummaryRow } from '@paykit/store';
import type { ConsoleFilters } from './filters.ts';

export interface DayTotals {
  day: string;
  count: number;
  matched: number;
  refunded: number;
  pending: number;
  stale: number;
  mismatched: number;
  orphan: number;
  conflict: number;
  /** Decimal strings. */
  amountIn: string;
  amountOut: string;
  matchRate: number | null;
}

export function dayTotals(rows: SummaryRow[]): DayTotals[] {
  const days = [...new Set(rows.map((r) => r.day))].sort();
  return days.map((day) => {
    const mine = rows.filter((r) => r.day === day);
    const sum = (state: keyof SummaryRow['states']) => mine.reduce((n, r) => n + r.states[state].count, 0);
    const count = mine.reduce((n, r) => n + r.total.count, 0);
    const amountOf = (products: string[]) => addDecimals(mine.filter((r) => products.includes(r.product)).map((r) => r.total.amount));
    return {
      day,
      count,
      matched: sum('matched'),
      refunded: sum('refunded'),
      pending: sum('pending'),
      stale: sum('stale'),
      mismatched: sum('mismatched'),
      orphan: sum('orphan'),
      conflict: sum('conflict'),
      amountIn: amountOf(['spei_in', 'internal_in', 'reversal']),
      amountOut: amountOf(['spei_out', 'internal_out', 'penny_validation', 'credit_refund']),
      matchRate: count === 0 ? null : (sum('matched') + sum('refunded')) / count,
    };
  });
}

export async function loadConsole(db: Database, filters: ConsoleFilters, staleAfterSeconds: number, now: Date) {
  const view = { from: filters.from, to: filters.to, staleAfterSeconds, now };
  const summary = await reconciliationSummary(db, view);
  const [items, aging, parked, reports, conflicts, conflictTotals, drift] = await Promise.all([
    listItems(db, { ...view, states: filters.states, products: filters.products, limit: filters.limit }),
    pendingAging(db, view),
    listParked(db, { limit: 200 }),
    reportMatches(db),
    listConflicts(db, { limit: 200 }),
    conflictCounts(db),
    listDrift(db, { limit: 200 }),
  ]);
  return { summary, days: dayTotals(summary), items, aging, parked, reports, conflicts, conflictTotals, drift };
}

/** A drift record as one flat row (the CSV cannot hold the nested example). */
export function driftRow(r: DriftRecord): Record<string, unknown> {
  return { source: r.source, eventType: r.eventType, pointer: r.pointer, kind: r.kind, count: r.count, firstSeen: r.firstSeen, lastSeen: r.lastSeen, exampleSeq: r.example.seq, expected: r.example.expected, seen: r.example.seen };
}
