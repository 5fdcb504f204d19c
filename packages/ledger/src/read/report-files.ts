// The report files known: announced by a REPORT event, imported, or both, with what orders them
// among the reports of a day. What the console's reports page lists.
import type { KeyColumn, Page, PageRequest, Queryable } from '@paykit/store';
import { readPage, type Listing } from './listing.ts';

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

export const REPORT_FILE_SORTS = { name: [{ expr: 'file_name', type: 'text' }] } as const satisfies Record<
  string,
  readonly KeyColumn[]
>;

interface ReportFileRow extends Record<string, unknown> {
  file_name: string;
  line_count: number | null;
  imported_at: Date | null;
  event_seq: string | null;
  created_at: Date | null;
  content_time: Date | null;
  duplicate_of: string | null;
}

/** Every report file known, read a page at a time (listing.ts). */
const REPORT_FILES: Listing<object, ReportFileRow, ReportFile> = {
  query: () => ({
    select: 'file_name, line_count, imported_at, event_seq::text AS event_seq, created_at, content_time, duplicate_of',
    from: 'ledger_reports',
    where: 'true',
    params: [],
    totals: 'count(*)::text AS count, count(*) FILTER (WHERE duplicate_of IS NULL)::text AS distinct',
  }),
  sorts: REPORT_FILE_SORTS,
  defaultSort: 'name',
  toRow: (r) => ({
    fileName: r.file_name,
    lines: r.line_count,
    importedAt: r.imported_at,
    eventSeq: r.event_seq,
    createdAt: r.created_at,
    contentTime: r.content_time,
    duplicateOf: r.duplicate_of,
  }),
};

/** A page of the report files known (announced, imported, or both), by name, with the count of files of their own content. */
export async function pageReportFiles(
  db: Queryable,
  options: PageRequest & { sort?: string } = {},
): Promise<Page<ReportFile> & { distinct: number }> {
  const page = await readPage(db, REPORT_FILES, options);
  return { ...page, distinct: Number(page.totals.distinct ?? 0) };
}
