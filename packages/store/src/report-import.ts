// Importing a report file and matching it three ways: each line against our record (what the API
// returned us, or the receivable a credit paid), the platform's events (status updates, MONEY_IN,
// REFUND) and the line itself. An import is all or nothing: a bad line rejects the file.
import type { Database, Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';
import { parseReportCsv } from './report-csv.ts';

export interface ReportImportResult {
  fileName: string;
  lines: number;
  /** false: this file was imported before; nothing changed. */
  imported: boolean;
  /** The REPORT event that announced it, if one arrived. */
  eventSeq: string | null;
}

/** Imports `text` as the report `fileName` (its REPORT event's file_name). Throws ReportFormatError (with the line) and imports nothing when a line is bad. */
export async function importReport(db: Database, fileName: string, text: string): Promise<ReportImportResult> {
  if (typeof fileName !== 'string' || !/^[A-Za-z0-9._-]{1,200}$/.test(fileName)) {
    throw new StoreInputError('fileName must be the report\'s file name (letters, digits, ".", "_" and "-"), as the REPORT event names it');
  }
  const lines = parseReportCsv(text);
  return db.transaction(async (tx) => {
    await tx.query('INSERT INTO ledger_reports (file_name) VALUES ($1) ON CONFLICT (file_name) DO NOTHING', [fileName]);
    const { rows } = await tx.query<{ imported_at: Date | null; event_seq: string | null; line_count: number | null }>(
      'SELECT imported_at, event_seq::text AS event_seq, line_count FROM ledger_reports WHERE file_name = $1 FOR UPDATE',
      [fileName],
    );
    const report = rows[0]!;
    if (report.imported_at !== null) return { fileName, lines: report.line_count ?? 0, imported: false, eventSeq: report.event_seq };
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
    await tx.query('UPDATE ledger_reports SET imported_at = now(), line_count = $2 WHERE file_name = $1', [fileName, lines.length]);
    return { fileName, lines: lines.length, imported: true, eventSeq: report.event_seq };
  });
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

/** The three-way match of every imported line (of one file, or all). */
export async function reportMatches(db: Queryable, fileName?: string): Promise<ReportMatch[]> {
  const { rows } = await db.query<{
    file_name: string; line_no: number; transaction_id: string; amount: string; status: string;
    record_amount: string | null; event_amount: string | null; event_status: string | null;
  }>(
    `SELECT l.file_name, l.line_no, l.transaction_id, l.amount::text AS amount, l.status,
            coalesce(o.amount, r.amount)::text AS record_amount,
            coalesce(c.amount, f.amount)::text AS event_amount,
            CASE WHEN o.transaction_id IS NOT NULL THEN (CASE WHEN o.status_seq IS NOT NULL THEN o.status END)
                 WHEN c.transaction_id IS NOT NULL THEN (CASE WHEN EXISTS (SELECT 1 FROM ledger_refunds x WHERE x.original_transaction_id = c.transaction_id) THEN 'REFUNDED' ELSE 'LIQUIDATED' END)
                 WHEN f.transaction_id IS NOT NULL THEN 'LIQUIDATED' END AS event_status
     FROM ledger_report_lines l
     LEFT JOIN ledger_outbound o ON o.transaction_id = l.transaction_id
     LEFT JOIN ledger_credits c ON c.transaction_id = l.transaction_id
     LEFT JOIN ledger_receivables r ON r.credit_id = c.transaction_id
     LEFT JOIN ledger_refunds f ON f.transaction_id = l.transaction_id
     WHERE $1::text IS NULL OR l.file_name = $1
     ORDER BY l.file_name, l.line_no`,
    [fileName ?? null],
  );
  return rows.map((row) => {
    const fields = [
      row.record_amount !== null && row.record_amount !== row.amount ? 'amount (ours)' : null,
      row.event_amount !== null && row.event_amount !== row.amount ? 'amount (events)' : null,
      row.event_status !== null && row.event_status !== row.status ? 'status' : null,
    ].filter((field): field is string => field !== null);
    const known = row.record_amount !== null || row.event_amount !== null || row.event_status !== null;
    const state = !known ? 'orphan' : fields.length > 0 ? 'mismatched' : row.event_status === null ? 'pending' : 'matched';
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
  });
}
