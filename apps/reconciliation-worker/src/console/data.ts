// What the console shows, read from the store per request and shaped for the pages and the
// exports. Counts and sums come from the database; this file only arranges them.
import {
  conflictCounts,
  pageConflicts,
  pageItems,
  pageParked,
  pageReportMatches,
  pendingAging,
  receivablesByAge,
  reconciliationSummary,
  stateTotals,
  volumesByOutcome,
  type SummaryRow,
  type VolumeRow,
} from '@paykit/ledger';
import { pageDrift, type Database, type DriftRecord } from '@paykit/store';
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
  /** Settled money in and out that day (decimal strings, summed by the database). */
  amountIn: string;
  amountOut: string;
  matchRate: number | null;
}

/** The range's total of one direction and outcome ("0.00" when nothing). */
export function volumeOf(
  volumes: readonly VolumeRow[],
  day: string | null,
  direction: 'in' | 'out',
  outcome: VolumeRow['outcome'] = 'settled',
): VolumeRow {
  return (
    volumes.find((v) => v.day === day && v.direction === direction && v.outcome === outcome) ?? {
      day,
      direction,
      outcome,
      count: 0,
      amount: '0.00',
    }
  );
}

export function dayTotals(rows: SummaryRow[], volumes: readonly VolumeRow[]): DayTotals[] {
  const days = [...new Set(rows.map((r) => r.day))].sort();
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
      amountIn: volumeOf(volumes, day, 'in').amount,
      amountOut: volumeOf(volumes, day, 'out').amount,
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
    volumes,
    discrepancies,
    receivables,
    aging,
    items,
    conflicts,
    conflictTotals,
    drift,
    parked,
    reports,
  ] = await Promise.all([
    reconciliationSummary(db, view),
    volumesByOutcome(db, view),
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
  ]);
  return {
    summary,
    days: dayTotals(summary, volumes),
    volumes,
    discrepancies,
    receivables,
    aging,
    items,
    conflicts,
    conflictTotals,
    drift,
    parked,
    reports,
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
