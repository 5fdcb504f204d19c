// The three-way match of a report's lines, computed when read: each line against our record (what
// the API returned us, or the receivable a credit paid), the platform's events (status updates,
// MONEY_IN, REFUND) and the line itself.
import type { KeyColumn, KeysetQuery, Page, PageRequest, Queryable } from '@paykit/store';
import { readAll, readPage, type Listing } from '../read/listing.ts';

export const REPORT_LINE_SORTS = {
  line: [
    { expr: 'file_name', type: 'text' },
    { expr: 'line_no', type: 'int' },
  ],
} as const satisfies Record<string, readonly KeyColumn[]>;

export interface ReportMatch {
  fileName: string;
  lineNo: number;
  transactionId: string;
  amount: string;
  status: string;
  /** Our record: the outbound transaction, or the receivable the credit paid. */
  recordAmount: string | null;
  /** What the platform's events say. */
  eventAmount: string | null;
  eventStatus: string | null;
  state: 'matched' | 'mismatched' | 'pending' | 'orphan';
  /** Which disagree: amount (ours), amount (events), status. */
  fields: string[];
}

interface MatchRow extends Record<string, unknown> {
  file_name: string;
  line_no: number;
  transaction_id: string;
  amount: string;
  status: string;
  record_amount: string | null;
  event_amount: string | null;
  event_status: string | null;
}

/** The lines of one file (or of all) with what our record and the platform's events say of them. */
const matchesQuery = (filter: { fileName?: string }): KeysetQuery => ({
  select: 'm.*',
  from: `(SELECT l.file_name, l.line_no, l.transaction_id, l.amount::text AS amount, l.status,
            coalesce(o.amount, r.amount)::text AS record_amount,
            coalesce(c.amount, f.amount)::text AS event_amount,
            CASE WHEN o.transaction_id IS NOT NULL THEN (CASE WHEN o.status_seq IS NOT NULL THEN o.status END)
                 WHEN c.transaction_id IS NOT NULL THEN (CASE WHEN EXISTS (SELECT 1 FROM ledger_refunds x WHERE x.original_transaction_id = c.transaction_id) THEN 'REFUNDED' ELSE 'LIQUIDATED' END)
                 WHEN f.transaction_id IS NOT NULL THEN 'LIQUIDATED' END AS event_status
     FROM ledger_report_lines l
     LEFT JOIN ledger_outbound o ON o.transaction_id = l.transaction_id
     LEFT JOIN ledger_credits c ON c.transaction_id = l.transaction_id
     LEFT JOIN ledger_credit_matches cm ON cm.credit_id = c.transaction_id
     LEFT JOIN ledger_receivables r ON r.id = cm.receivable_id
     LEFT JOIN ledger_refunds f ON f.transaction_id = l.transaction_id
     WHERE $1::text IS NULL OR l.file_name = $1) m`,
  where: 'true',
  params: [filter.fileName ?? null],
});

/** The three-way match of the lines, read the three ways (../read/listing.ts). */
const MATCHES: Listing<{ fileName?: string }, MatchRow, ReportMatch> = {
  query: matchesQuery,
  sorts: REPORT_LINE_SORTS,
  defaultSort: 'line',
  toRow: toMatch,
};

/** The three-way match of every imported line (of one file, or all), by file and line. */
export async function reportMatches(db: Queryable, fileName?: string): Promise<ReportMatch[]> {
  const matches: ReportMatch[] = [];
  for await (const match of allReportMatches(db, { fileName })) matches.push(match);
  return matches;
}

/** A page of the three-way match, by file and line, with the count of every line. */
export async function pageReportMatches(
  db: Queryable,
  options: PageRequest & { fileName?: string; sort?: string } = {},
): Promise<Page<ReportMatch>> {
  return readPage(db, MATCHES, options);
}

/** Every line's three-way match, read in batches: for exports. */
export async function* allReportMatches(
  db: Queryable,
  options: { fileName?: string; sort?: string } = {},
): AsyncGenerator<ReportMatch> {
  yield* readAll(db, MATCHES, options);
}

function toMatch(row: MatchRow): ReportMatch {
  const fields = [
    row.record_amount !== null && row.record_amount !== row.amount ? 'amount (ours)' : null,
    row.event_amount !== null && row.event_amount !== row.amount ? 'amount (events)' : null,
    row.event_status !== null && row.event_status !== row.status ? 'status' : null,
  ].filter((field): field is string => field !== null);
  const known = row.record_amount !== null || row.event_amount !== null || row.event_status !== null;
  const state = !known
    ? 'orphan'
    : fields.length > 0
      ? 'mismatched'
      : row.event_status === null
        ? 'pending'
        : 'matched';
  return {
    fileName: row.file_name,
    lineNo: row.line_no,
    transactionId: row.transaction_id,
    amount: row.amount,
    status: row.status,
    recordAmount: row.record_amount,
    eventAmount: row.event_amount,
    eventStatus: row.event_status,
    state,
    fields,
  };
}
