// What each export serves (GET /<list>.csv|json): the rows of every list the console shows, with
// the same filters as its page, streamed from one snapshot on PostgreSQL.
import type { FastifyReply } from 'fastify';
import {
  allConflicts,
  allItems,
  allParked,
  allReceivables,
  allReportMatches,
  CONFLICT_KINDS,
  RECEIVABLE_AGES,
  receivablesByAge,
  listHeld,
  moneyFigures,
  reconciliationSummary,
} from '@paykit/ledger';
import { allDrift, type Queryable } from '@paykit/store';
import { allAudit, AUDIT_ACTIONS, AUDIT_OUTCOMES } from '../data/audit.ts';
import { driftRow } from '../data/overview.ts';
import { readFilters, readList, readPage } from '../filters.ts';
import type { RouteContext } from '../pages/routes.ts';
import { csvBody, fromArray, jsonBody, mapRows, type ExportRow } from './stream.ts';

/** What an export reads with: the route's context, its store being the export's snapshot on PostgreSQL. */
type ExportContext = Omit<RouteContext, 'db'> & { db: Queryable };

interface ExportSource {
  /** The CSV header, in order (every row's keys). */
  columns: readonly string[];
  rows(ctx: ExportContext, format: 'csv' | 'json'): Promise<AsyncIterable<ExportRow>> | AsyncIterable<ExportRow>;
}

const ITEM_COLUMNS = [
  'kind',
  'id',
  'product',
  'day',
  'at',
  'amount',
  'direction',
  'status',
  'trackingKey',
  'account',
  'state',
  'outcome',
  'fields',
  'note',
  'eventSeqs',
  'report',
  'reportDisagreement',
];

export const EXPORTS: Record<string, ExportSource> = {
  audit: {
    columns: ['id', 'at', 'operator', 'address', 'action', 'target', 'outcome', 'detail'],
    rows: ({ db, query }) =>
      mapRows(
        allAudit(db, {
          actions: readList(query, 'action', AUDIT_ACTIONS),
          outcomes: readList(query, 'outcome', AUDIT_OUTCOMES),
          sort: readPage(query).sort,
        }),
        (a) => ({ ...a }),
      ),
  },
  items: {
    columns: ITEM_COLUMNS,
    rows: ({ db, query, now, staleAfterSeconds }) => {
      const f = readFilters(query, now);
      return mapRows(
        allItems(db, {
          from: f.from,
          to: f.to,
          states: f.states,
          products: f.products,
          staleAfterSeconds,
          now,
          sort: f.sort,
        }),
        (i) => ({ ...i }),
      );
    },
  },
  summary: {
    columns: ['day', 'product', 'state', 'count', 'amount'],
    rows: async ({ db, query, now, staleAfterSeconds }, format) => {
      const f = readFilters(query, now);
      const rows = await reconciliationSummary(db, { from: f.from, to: f.to, staleAfterSeconds, now });
      if (format === 'json') return fromArray(rows.map((r) => ({ ...r })));
      return fromArray(
        rows.flatMap((r) =>
          Object.entries(r.states).map(([state, figures]) => ({
            day: r.day,
            product: r.product,
            state,
            count: figures.count,
            amount: figures.amount,
          })),
        ),
      );
    },
  },
  volumes: {
    columns: ['day', 'direction', 'figure', 'count', 'amount'],
    rows: async ({ db, query, now }) => {
      const f = readFilters(query, now);
      return fromArray(
        (await moneyFigures(db, { from: f.from, to: f.to })).map((v) => ({
          ...v,
          day: v.day ?? 'all days',
        })),
      );
    },
  },
  held: {
    columns: [
      'transactionId',
      'seq',
      'account',
      'amount',
      'payerAccount',
      'payerName',
      'outcome',
      'reason',
      'transactionAt',
      'redecision',
    ],
    rows: async ({ db }) =>
      fromArray(
        (await listHeld(db, { limit: 10_000 })).map((h) => ({
          ...h,
          redecision:
            h.redecision === null
              ? ''
              : `${h.redecision.outcome}${h.redecision.reason ? `: ${h.redecision.reason}` : ''}`,
        })),
      ),
  },
  'receivables-by-age': {
    columns: ['age', 'count', 'amount'],
    rows: async ({ db, now }) => fromArray((await receivablesByAge(db, { now })).map((b) => ({ ...b }))),
  },
  receivables: {
    columns: ['id', 'beneficiaryAccount', 'amount', 'open', 'reference', 'concept', 'dueDate', 'daysLate', 'age'],
    rows: ({ db, query, now }) =>
      mapRows(
        allReceivables(db, { now, ages: readList(query, 'age', RECEIVABLE_AGES), sort: readPage(query).sort }),
        (r) => ({ ...r }),
      ),
  },
  conflicts: {
    columns: [
      'id',
      'kind',
      'transactionId',
      'eventType',
      'firstSeq',
      'eventSeq',
      'dedupeKey',
      'firstAmount',
      'amount',
      'detail',
      'recordedAt',
    ],
    rows: ({ db, query }) =>
      mapRows(
        allConflicts(db, { kinds: readList(query, 'kind', CONFLICT_KINDS), sort: readPage(query).sort }),
        (c) => ({ ...c }),
      ),
  },
  parked: {
    columns: ['seq', 'eventType', 'reason', 'parkedAt', 'attempts', 'retry'],
    rows: ({ db, query }) => mapRows(allParked(db, { sort: readPage(query).sort }), (p) => ({ ...p })),
  },
  drift: {
    columns: [
      'source',
      'eventType',
      'pointer',
      'kind',
      'count',
      'firstSeen',
      'lastSeen',
      'exampleSeq',
      'expected',
      'seen',
    ],
    rows: ({ db, query }, format) =>
      mapRows(allDrift(db, { sort: readPage(query).sort }), (r) => (format === 'json' ? { ...r } : driftRow(r))),
  },
  reports: {
    columns: [
      'fileName',
      'lineNo',
      'transactionId',
      'amount',
      'status',
      'recordAmount',
      'eventAmount',
      'eventStatus',
      'state',
      'fields',
    ],
    rows: ({ db, query }) =>
      mapRows(allReportMatches(db, { fileName: query.get('file') || undefined, sort: readPage(query).sort }), (m) => ({
        ...m,
      })),
  },
};

/**
 * Answers the export `name` as CSV or JSON, streamed. Filters are read (and a bad one refused with
 * 400) before the first byte is written. On PostgreSQL every batch is read from one snapshot (a
 * read-only REPEATABLE READ transaction): a row updated meanwhile (its status, its state) would
 * otherwise move across the batches' cursor in a list sorted by that column and be read twice or
 * not at all. The server ends the snapshot of a client that stops reading
 * (idle_in_transaction_session_timeout), cutting its download. PGlite has one connection, which a
 * snapshot would take from everything else for the whole download: there the batches are read as
 * the ledger goes on. A failure once rows are flowing cuts the connection (fastify destroys it), so
 * a partial file never passes for a complete one.
 */
export async function serveExport(
  reply: FastifyReply,
  name: string,
  format: 'csv' | 'json',
  ctx: RouteContext,
): Promise<void> {
  try {
    if (ctx.db.kind !== 'postgres') return await streamExport(reply, name, format, ctx);
    await ctx.db.transaction(async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      await streamExport(reply, name, format, { ...ctx, db: tx });
    });
  } catch (error) {
    // Once the head is sent the failure is the stream's, and fastify has cut the connection.
    if (!reply.sent) throw error;
  }
}

async function streamExport(
  reply: FastifyReply,
  name: string,
  format: 'csv' | 'json',
  ctx: ExportContext,
): Promise<void> {
  const source = EXPORTS[name]!;
  const rows = await source.rows(ctx, format);
  // The first row is read before the head is sent, so a bad sort or cursor is still a 400.
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* all(): AsyncGenerator<ExportRow> {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const answer = format === 'csv' ? csvBody(name, source.columns, all()) : jsonBody(all());
  reply.headers(answer.headers).send(answer.body);
  await answer.done;
}
