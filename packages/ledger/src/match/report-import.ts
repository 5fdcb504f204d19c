// Importing a report file and matching it three ways: each line against our record (what the API
// returned us, or the receivable a credit paid), the platform's events (status updates, MONEY_IN,
// REFUND) and the line itself. An import is all or nothing: a bad line rejects the file.
import { createHash } from 'node:crypto';
import {
  allRows,
  keysetPage,
  pickOrder,
  StoreInputError,
  type Database,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
  type Queryable,
} from '@paykit/store';
import { parseReportCsv, type ReportLine } from '@paykit/contracts';

export interface ReportImportResult {
  fileName: string;
  lines: number;
  /** false: this file (by name or by content) was imported before; nothing changed. */
  imported: boolean;
  /** The file already imported with the same content under another name (its lines are not imported again), else null. */
  duplicateOf: string | null;
  /** The REPORT event that announced it, if one arrived. */
  eventSeq: string | null;
}

/**
 * The SHA-256 of a report's text, as stored with its import (hex). The text is taken as the CSV
 * reader takes it: a byte-order mark, CRLF line ends and trailing blank lines do not make it
 * another report.
 */
export function reportContentHash(text: string): string {
  const canonical = text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n/g, '\n')
    .replace(/\n*$/, '\n');
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * Imports `text` as the report `fileName` (its REPORT event's file_name). Throws ReportFormatError
 * (with the line) and imports nothing when a line is bad. A content imported before under another
 * name is recognised by its hash: `duplicateOf` names that file, and no line is imported twice.
 */
export async function importReport(db: Database, fileName: string, text: string): Promise<ReportImportResult> {
  if (typeof fileName !== 'string' || !/^[A-Za-z0-9._-]{1,200}$/.test(fileName)) {
    throw new StoreInputError(
      'fileName must be the report\'s file name (letters, digits, ".", "_" and "-"), as the REPORT event names it',
    );
  }
  const lines = parseReportCsv(text);
  const hash = reportContentHash(text);
  try {
    return await importOnce(db, fileName, lines, hash);
  } catch (error) {
    // Two imports of one content under two names at once: the second to commit meets the unique
    // index; run again, it sees the first and records itself as the duplicate.
    if ((error as { code?: unknown }).code === '23505') return importOnce(db, fileName, lines, hash);
    throw error;
  }
}

function importOnce(db: Database, fileName: string, lines: ReportLine[], hash: string): Promise<ReportImportResult> {
  return db.transaction(async (tx) => {
    await tx.query('INSERT INTO ledger_reports (file_name) VALUES ($1) ON CONFLICT (file_name) DO NOTHING', [fileName]);
    const { rows } = await tx.query<{
      imported_at: Date | null;
      event_seq: string | null;
      line_count: number | null;
      duplicate_of: string | null;
    }>(
      'SELECT imported_at, event_seq::text AS event_seq, line_count, duplicate_of FROM ledger_reports WHERE file_name = $1 FOR UPDATE',
      [fileName],
    );
    const report = rows[0]!;
    if (report.imported_at !== null)
      return {
        fileName,
        lines: report.line_count ?? 0,
        imported: false,
        duplicateOf: report.duplicate_of,
        eventSeq: report.event_seq,
      };
    const { rows: same } = await tx.query<{ file_name: string; line_count: number | null }>(
      'SELECT file_name, line_count FROM ledger_reports WHERE content_sha256 = $1 AND duplicate_of IS NULL AND file_name <> $2',
      [hash, fileName],
    );
    const original = same[0];
    if (original) {
      await tx.query(
        'UPDATE ledger_reports SET imported_at = now(), line_count = $2, content_sha256 = $3, duplicate_of = $4 WHERE file_name = $1',
        [fileName, original.line_count ?? 0, hash, original.file_name],
      );
      return {
        fileName,
        lines: original.line_count ?? 0,
        imported: false,
        duplicateOf: original.file_name,
        eventSeq: report.event_seq,
      };
    }
    await tx.query(
      `INSERT INTO ledger_report_lines (file_name, line_no, transaction_id, tracking_key, transaction_at, sub_category, amount, status)
       SELECT $1, l.line_no, l.transaction_id, l.tracking_key, (l.local_time || '-06:00')::timestamptz, l.sub_category, l.amount::numeric, l.status
       FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
         AS l(line_no, transaction_id, tracking_key, local_time, sub_category, amount, status)`,
      [
        fileName,
        lines.map((l) => l.lineNo),
        lines.map((l) => l.transactionId),
        lines.map((l) => l.trackingKey),
        lines.map((l) => l.transactionDate),
        lines.map((l) => l.subCategory),
        lines.map((l) => l.amount),
        lines.map((l) => l.status),
      ],
    );
    // What the content says of the file's time, for ordering it among the reports of its day when
    // its REPORT event is missing or ties (../read/items-sql.ts, migration 0014).
    await tx.query(
      `UPDATE ledger_reports SET imported_at = now(), line_count = $2, content_sha256 = $3,
         content_time = (SELECT max(transaction_at) FROM ledger_report_lines WHERE file_name = $1),
         status_rank_sum = (SELECT coalesce(sum(ledger_status_rank(status)), 0) FROM ledger_report_lines WHERE file_name = $1)
       WHERE file_name = $1`,
      [fileName, lines.length, hash],
    );
    return { fileName, lines: lines.length, imported: true, duplicateOf: null, eventSeq: report.event_seq };
  });
}

export interface ReportFile {
  fileName: string;
  /** Lines imported (for a duplicate: the original's). */
  lines: number | null;
  importedAt: Date | null;
  eventSeq: string | null;
  /** When the platform generated it (its REPORT event's created_at): what orders the reports of a day. */
  createdAt: Date | null;
  /** The latest transaction_date its lines list: its order among reports without an event. */
  contentTime: Date | null;
  /** The file with the same content this one repeats (its lines are counted there, once). */
  duplicateOf: string | null;
}

const BY_NAME: KeyColumn = { expr: 'file_name', type: 'text' };
export const REPORT_FILE_SORTS = { name: [BY_NAME] } as const satisfies Record<string, readonly KeyColumn[]>;
export const REPORT_LINE_SORTS = { line: [BY_NAME, { expr: 'line_no', type: 'int' }] } as const satisfies Record<
  string,
  readonly KeyColumn[]
>;

/** A page of the report files known (announced, imported, or both), by name, with the count of files of their own content. */
export async function pageReportFiles(
  db: Queryable,
  options: PageRequest & { sort?: string } = {},
): Promise<Page<ReportFile> & { distinct: number }> {
  const { order } = pickOrder(REPORT_FILE_SORTS, options.sort, 'name');
  const page = await keysetPage<{
    file_name: string;
    line_count: number | null;
    imported_at: Date | null;
    event_seq: string | null;
    created_at: Date | null;
    content_time: Date | null;
    duplicate_of: string | null;
  }>(
    db,
    {
      select:
        'file_name, line_count, imported_at, event_seq::text AS event_seq, created_at, content_time, duplicate_of',
      from: 'ledger_reports',
      where: 'true',
      params: [],
      totals: 'count(*)::text AS count, count(*) FILTER (WHERE duplicate_of IS NULL)::text AS distinct',
    },
    order,
    options,
  );
  return {
    ...page,
    distinct: Number(page.totals.distinct ?? 0),
    rows: page.rows.map((r) => ({
      fileName: r.file_name,
      lines: r.line_count,
      importedAt: r.imported_at,
      eventSeq: r.event_seq,
      createdAt: r.created_at,
      contentTime: r.content_time,
      duplicateOf: r.duplicate_of,
    })),
  };
}

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

const MATCHES: Omit<KeysetQuery, 'params'> = {
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
  const { order } = pickOrder(REPORT_LINE_SORTS, options.sort, 'line');
  const page = await keysetPage<MatchRow>(db, { ...MATCHES, params: [options.fileName ?? null] }, order, options);
  return { ...page, rows: page.rows.map(toMatch) };
}

/** Every line's three-way match, read in batches: for exports. */
export async function* allReportMatches(
  db: Queryable,
  options: { fileName?: string; sort?: string } = {},
): AsyncGenerator<ReportMatch> {
  const { order } = pickOrder(REPORT_LINE_SORTS, options.sort, 'line');
  for await (const row of allRows<MatchRow>(db, { ...MATCHES, params: [options.fileName ?? null] }, order))
    yield toMatch(row);
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
