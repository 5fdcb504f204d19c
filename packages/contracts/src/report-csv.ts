// The report file format. The platform's REPORT event announces a file whose download is not in
// the reference, so paykit defines the CSV it imports (the ledger) and produces (the sandbox):
//
//   transaction_id,tracking_key,transaction_date,sub_category,amount,status
//   7f0c…,PK202611210000000001,2026-11-21 10:15:00,SPEI_DEBIT,1500.00,LIQUIDATED
//
// UTF-8 (a byte-order mark is ignored), one header line with exactly these columns, comma-separated
// with RFC 4180 quoting: a field holding a comma or a quote is written in double quotes, a quote
// inside doubled (""). LF or CRLF line ends, a final newline optional; one record per line (no
// field holds a line break). transaction_date is Mexico City local time without an offset, like
// MONEY_IN's; amount a decimal with two decimals; status a transaction status. A bad line rejects
// the whole file with its line number.
import { CsvError, parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

export const REPORT_CSV_HEADER = 'transaction_id,tracking_key,transaction_date,sub_category,amount,status';
export const REPORT_CSV_COLUMNS = REPORT_CSV_HEADER.split(',');

export interface ReportLine {
  /** 1-based line number in the file (the header is line 1). */
  lineNo: number;
  transactionId: string;
  trackingKey: string | null;
  /** Mexico City local, "YYYY-MM-DD HH:MM:SS". */
  transactionDate: string;
  subCategory: string;
  amount: string;
  status: string;
}

export class ReportFormatError extends Error {
  override readonly name = 'ReportFormatError';
  readonly line: number;

  constructor(line: number, problem: string) {
    super(`line ${line}: ${problem}`);
    this.line = line;
  }
}

const SUB_CATEGORIES = new Set([
  'OTHERS',
  'SPEI_CREDIT',
  'SPEI_DEBIT',
  'INT_DEBIT',
  'INT_CREDIT',
  'SPEI_REFUNDED',
  'SPEI_REFUNDED_CREDIT',
  'SPEI_REFUNDED_DEBIT',
  'INT_ADJ_CREDIT',
  'INT_ADJ_DEBIT',
]);
const STATUSES = new Set(['INITIALIZED', 'IN_PROGRESS', 'LIQUIDATED', 'CANCELLED', 'REFUNDED', 'REJECTED', 'DECLINED']);
const LOCAL_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** A record as csv-parse read it: its fields, and the lines it spans. */
interface Row {
  fields: string[];
  firstLine: number;
  lastLine: number;
}

/** Parses and checks the whole file; throws ReportFormatError at the first bad line. */
export function parseReportCsv(text: string): ReportLine[] {
  if (text.includes('\0')) throw new ReportFormatError(1, 'the file contains a NUL byte: it is not a text CSV');
  const [header, ...rows] = readRows(text);
  if (header === undefined || header.fields.join(',') !== REPORT_CSV_HEADER) {
    throw new ReportFormatError(
      1,
      `the header must be exactly "${REPORT_CSV_HEADER}"${header === undefined ? ' (the file is empty)' : ''}`,
    );
  }
  const seen = new Map<string, number>();
  return rows.map(({ fields, firstLine: lineNo, lastLine }) => {
    if (lastLine !== lineNo)
      throw new ReportFormatError(
        lineNo,
        `a quoted field runs on to line ${lastLine}: no field holds a line break (is a closing quote missing?)`,
      );
    if (fields.length === 1 && fields[0] === '')
      throw new ReportFormatError(lineNo, 'the line is empty (remove blank lines)');
    if (fields.length !== REPORT_CSV_COLUMNS.length)
      throw new ReportFormatError(
        lineNo,
        `expected ${REPORT_CSV_COLUMNS.length} fields (${REPORT_CSV_HEADER}), found ${fields.length}`,
      );
    const [transactionId, trackingKey, transactionDate, subCategory, amount, status] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (transactionId === '') throw new ReportFormatError(lineNo, 'transaction_id is empty');
    const first = seen.get(transactionId);
    if (first !== undefined)
      throw new ReportFormatError(
        lineNo,
        `transaction ${transactionId} is already on line ${first}: a report lists a transaction once`,
      );
    seen.set(transactionId, lineNo);
    const time = LOCAL_TIME.exec(transactionDate);
    if (!time || !validDate(time))
      throw new ReportFormatError(
        lineNo,
        `transaction_date "${transactionDate.slice(0, 40)}" is not a Mexico City time "YYYY-MM-DD HH:MM:SS"`,
      );
    if (!SUB_CATEGORIES.has(subCategory))
      throw new ReportFormatError(
        lineNo,
        `sub_category "${subCategory.slice(0, 40)}" is not one of ${[...SUB_CATEGORIES].join(', ')}`,
      );
    if (!/^\d{1,16}\.\d{2}$/.test(amount))
      throw new ReportFormatError(
        lineNo,
        `amount "${amount.slice(0, 40)}" is not a decimal with two decimals, such as 1500.00`,
      );
    if (!STATUSES.has(status))
      throw new ReportFormatError(lineNo, `status "${status.slice(0, 40)}" is not one of ${[...STATUSES].join(', ')}`);
    return {
      lineNo,
      transactionId,
      trackingKey: trackingKey === '' ? null : trackingKey,
      transactionDate,
      subCategory,
      amount,
      status,
    };
  });
}

/**
 * Every record of the file with the lines it spans (fields trimmed; a blank line is one empty
 * field). A quote csv-parse cannot read becomes a ReportFormatError on the line of its record.
 */
function readRows(text: string): Row[] {
  const rows: Row[] = [];
  let lastLine = 0;
  try {
    parse(text, {
      bom: true,
      trim: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n'],
      on_record: (fields, context) => {
        rows.push({ fields, firstLine: lastLine + 1, lastLine: context.lines });
        lastLine = context.lines;
        return fields;
      },
    });
    return rows;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const lineNo = lastLine + 1;
    if (error.code === 'CSV_QUOTE_NOT_CLOSED')
      throw new ReportFormatError(lineNo, 'a quoted field is never closed: end it with a quote (")');
    if (error.code === 'CSV_INVALID_CLOSING_QUOTE')
      throw new ReportFormatError(
        lineNo,
        'a quoted field goes on after its closing quote: quote the whole field, and double a quote inside it ("")',
      );
    if (error.code === 'INVALID_OPENING_QUOTE')
      throw new ReportFormatError(
        lineNo,
        'a quote inside an unquoted field: quote the whole field, and double a quote inside it ("")',
      );
    throw new ReportFormatError(lineNo, `the line is not CSV: ${error.message}`);
  }
}

function validDate(match: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}

/** Writes lines in the format, quoting a field only when it needs it (the sandbox serves its report files with it, and tests and tools use it). */
export function formatReportCsv(lines: ReadonlyArray<Omit<ReportLine, 'lineNo'>>): string {
  const records = lines.map((l) => [
    l.transactionId,
    l.trackingKey ?? '',
    l.transactionDate,
    l.subCategory,
    l.amount,
    l.status,
  ]);
  return stringify([REPORT_CSV_COLUMNS, ...records], { record_delimiter: '\n' });
}
