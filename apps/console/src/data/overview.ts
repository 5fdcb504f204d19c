// What the console shows, read from the store per request and shaped for the pages and the
// exports. Counts and sums come from the database; this file only arranges them.
import {
  conflictCounts,
  figureOf,
  listHeld,
  moneyFigures,
  pageConflicts,
  pageItems,
  pageParked,
  pageReportMatches,
  pendingAging,
  receivablesByAge,
  reconciliationSummary,
  stateTotals,
  type MoneyRow,
  type SummaryRow,
} from '@paykit/ledger';
import { pageDrift, type Database, type DriftRecord } from '@paykit/store';
import type { ConsoleFilters } from '../filters.ts';

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
  /** Settled money in and out that day (decimal strings, from the journal). */
  amountIn: string;
  amountOut: string;
  matchRate: number | null;
}

/**
 * The overview's table of days: each day with items or with money settled on it. Money is booked on
 * its value day (a transfer settles on a later day than it was sent), so a day may have settled
 * money and no item of its own; leaving it out would make the table's money disagree with the cards.
 */
export function dayTotals(rows: SummaryRow[], money: readonly MoneyRow[]): DayTotals[] {
  const settledDays = money.flatMap((m) =>
    m.day !== null && m.figure === 'settled' && m.amount !== '0.00' ? [m.day] : [],
  );
  const days = [...new Set([...rows.map((r) => r.day), ...settledDays])].sort();
  return days.map((day) => {
    const mine = rows.filter((r) => r.day === day);
    const sum = (state: keyof SummaryRow['states']) => mine.reduce((n, r) => n + r.states[state].count, 0);
    const count = mine.reduce((n, r) => n + r.total.count, 0);
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
      amountIn: figureOf(money, 'in', 'settled', day).amount,
      amountOut: figureOf(money, 'out', 'settled', day).amount,
      matchRate: count === 0 ? null : (sum('matched') + sum('refunded')) / count,
    };
  });
}

/** How many rows each list on the overview shows before "all N". */
export const OVERVIEW_ROWS = 10;

export async function loadConsole(db: Database, filters: ConsoleFilters, staleAfterSeconds: number, now: Date) {
  const view = { from: filters.from, to: filters.to, staleAfterSeconds, now };
  const short = { limit: OVERVIEW_ROWS };
  const [
    summary,
    money,
    discrepancies,
    receivables,
    aging,
    items,
    conflicts,
    conflictTotals,
    drift,
    parked,
    reports,
    held,
  ] = await Promise.all([
    reconciliationSummary(db, view),
    moneyFigures(db, { from: filters.from, to: filters.to }),
    stateTotals(db, view),
    receivablesByAge(db, { now }),
    pendingAging(db, view),
    pageItems(db, {
      ...view,
      states: filters.states,
      products: filters.products,
      limit: filters.limit,
      sort: filters.sort,
      after: filters.after,
      before: filters.before,
    }),
    pageConflicts(db, short),
    conflictCounts(db),
    pageDrift(db, short),
    pageParked(db, short),
    pageReportMatches(db, short),
    listHeld(db, { limit: OVERVIEW_ROWS }),
  ]);
  return {
    summary,
    days: dayTotals(summary, money),
    money,
    discrepancies,
    receivables,
    aging,
    items,
    conflicts,
    conflictTotals,
    drift,
    parked,
    reports,
    held,
  };
}

/** A drift record as one flat row (the CSV cannot hold the nested example). */
export function driftRow(r: DriftRecord): Record<string, unknown> {
  return {
    source: r.source,
    eventType: r.eventType,
    pointer: r.pointer,
    kind: r.kind,
    count: r.count,
    firstSeen: r.firstSeen,
    lastSeen: r.lastSeen,
    exampleSeq: r.example.seq,
    expected: r.example.expected,
    seen: r.example.seen,
  };
}

/** Everything the overview shows, as loadConsole reads it. */
export type ConsoleData = Awaited<ReturnType<typeof loadConsole>>;
