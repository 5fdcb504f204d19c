// What each console page serves (GET /, /items, /volumes …), reading its filters from the query
// string and its rows from the store. server.ts routes to them; the exports are ../exports/routes.ts.
import {
  CONFLICT_KINDS,
  conflictCounts,
  pageConflicts,
  pageItems,
  pageParked,
  pageReceivables,
  pageReportFiles,
  pageReportMatches,
  RECEIVABLE_AGES,
  receivablesByAge,
  listHeld,
  moneyFigures,
  listUnresolvedIntents,
  unresolvedIntentTotals,
} from '@paykit/ledger';
import { pageDrift, type Database } from '@paykit/store';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES, pageAudit } from '../data/audit.ts';
import { loadConsole } from '../data/overview.ts';
import { mexicoCityToday, readFilters, readList, readPage } from '../filters.ts';
import type { WorkerStatus } from '../worker-status.ts';
import { auditPage } from './audit.ts';
import { conflictsPage } from './conflicts.ts';
import { driftPage } from './drift.ts';
import { heldPage } from './held.ts';
import { itemsPage } from './items.ts';
import { moneyPage } from './money.ts';
import { overviewPage } from './overview.ts';
import { parkedPage } from './parked.ts';
import { receivablesPage } from './receivables.ts';
import { reportFilesPage, reportsPage } from './reports.ts';
import { unresolvedPage } from './unresolved.ts';

export interface RouteContext {
  db: Database;
  query: URLSearchParams;
  now: Date;
  staleAfterSeconds: number;
  /** The worker's progress as its /healthz last said (null: not known to the console). */
  status: WorkerStatus | null;
}

/** The query without the page and the order: what the links and exports carry. */
function only(query: URLSearchParams, names: string[]): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of names) for (const value of query.getAll(name)) params.append(name, value);
  return params;
}

export const PAGES: Record<string, (ctx: RouteContext) => Promise<string>> = {
  '/': async ({ db, query, now, staleAfterSeconds, status }) => {
    const filters = readFilters(query, now, { states: ['conflict', 'mismatched', 'orphan', 'stale'] });
    const data = await loadConsole(db, filters, staleAfterSeconds, now);
    return overviewPage(data, filters, { staleAfterSeconds, worker: status });
  },
  '/items': async ({ db, query, now, staleAfterSeconds }) => {
    const f = readFilters(query, now);
    return itemsPage(
      await pageItems(db, {
        from: f.from,
        to: f.to,
        states: f.states,
        products: f.products,
        staleAfterSeconds,
        now,
        limit: f.limit,
        sort: f.sort,
        after: f.after,
        before: f.before,
      }),
      f,
    );
  },
  '/volumes': async ({ db, query, now }) => {
    const f = readFilters(query, now);
    return moneyPage(await moneyFigures(db, { from: f.from, to: f.to }), f);
  },
  '/held': async ({ db }) => heldPage(await listHeld(db)),
  '/receivables': async ({ db, query, now }) => {
    const p = readPage(query);
    const ages = readList(query, 'age', RECEIVABLE_AGES);
    const [buckets, list] = await Promise.all([
      receivablesByAge(db, { now }),
      pageReceivables(db, { now, ages, ...p }),
    ]);
    return receivablesPage(buckets, list, only(query, ['age', 'limit']), p.sort, mexicoCityToday(now));
  },
  '/conflicts': async ({ db, query }) => {
    const p = readPage(query);
    const kinds = readList(query, 'kind', CONFLICT_KINDS);
    const [list, totals] = await Promise.all([pageConflicts(db, { kinds, ...p }), conflictCounts(db)]);
    return conflictsPage(list, totals, only(query, ['kind', 'limit']), p.sort);
  },
  '/parked': async ({ db, query }) => {
    const p = readPage(query);
    return parkedPage(await pageParked(db, p), only(query, ['limit']), p.sort);
  },
  '/unresolved': async ({ db, now }) => {
    const [intents, totals] = await Promise.all([listUnresolvedIntents(db, { now }), unresolvedIntentTotals(db)]);
    return unresolvedPage(intents, totals);
  },
  '/drift': async ({ db, query }) => {
    const p = readPage(query);
    return driftPage(await pageDrift(db, p), only(query, ['limit']), p.sort);
  },
  '/reports': async ({ db, query }) => {
    const p = readPage(query);
    const fileName = query.get('file') || undefined;
    return reportsPage(await pageReportMatches(db, { fileName, ...p }), only(query, ['file', 'limit']), p.sort);
  },
  '/audit': async ({ db, query }) => {
    const p = readPage(query);
    const actions = readList(query, 'action', AUDIT_ACTIONS);
    const outcomes = readList(query, 'outcome', AUDIT_OUTCOMES);
    return auditPage(
      await pageAudit(db, { actions, outcomes, ...p }),
      only(query, ['action', 'outcome', 'limit']),
      p.sort,
    );
  },
  '/reports/files': async ({ db, query }) => {
    const p = readPage(query);
    return reportFilesPage(await pageReportFiles(db, p), only(query, ['limit']), p.sort);
  },
};
