// Importing a report file: its lines stored once, whatever name it comes under (a content imported
// before is recognised by its hash), matched three ways when read (report-match.ts). An import is
// all or nothing: a bad line rejects the file.
import { createHash } from 'node:crypto';
import { StoreInputError, type Database } from '@paykit/store';
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
