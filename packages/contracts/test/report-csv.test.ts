// The report file format: what formatReportCsv writes, parseReportCsv reads back; RFC 4180 quoting
// is read and written; every bad line is refused with its line number and what was wrong.
import { describe, expect, it } from 'vitest';
import { formatReportCsv, parseReportCsv, REPORT_CSV_HEADER, ReportFormatError } from '../src/index.ts';

const LINE = {
  transactionId: 'tx-1',
  trackingKey: 'PK1',
  transactionDate: '2026-11-21 10:15:00',
  subCategory: 'SPEI_DEBIT',
  amount: '1500.00',
  status: 'LIQUIDATED',
};
const ROW = 'tx-1,PK1,2026-11-21 10:15:00,SPEI_DEBIT,1500.00,LIQUIDATED';

function refusal(text: string): string {
  try {
    parseReportCsv(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ReportFormatError);
    return (error as ReportFormatError).message;
  }
  throw new Error('the file was accepted');
}

describe('report CSV', () => {
  it('writes the header and one unquoted line per transaction, and reads them back', () => {
    const text = formatReportCsv([LINE, { ...LINE, transactionId: 'tx-2', trackingKey: null }]);
    expect(text).toBe(`${REPORT_CSV_HEADER}\n${ROW}\ntx-2,,2026-11-21 10:15:00,SPEI_DEBIT,1500.00,LIQUIDATED\n`);
    expect(parseReportCsv(text)).toEqual([
      { lineNo: 2, ...LINE },
      { lineNo: 3, ...LINE, transactionId: 'tx-2', trackingKey: null },
    ]);
  });

  it('reads a quoted field holding a comma or a doubled quote, and writes one the same way', () => {
    const text = `${REPORT_CSV_HEADER}\n"tx,1","PK ""1""",2026-11-21 10:15:00,SPEI_DEBIT,"1500.00",LIQUIDATED\n`;
    expect(parseReportCsv(text)).toEqual([{ lineNo: 2, ...LINE, transactionId: 'tx,1', trackingKey: 'PK "1"' }]);
    expect(formatReportCsv([{ ...LINE, transactionId: 'tx,1', trackingKey: 'PK "1"' }])).toBe(
      text.replace('"1500.00"', '1500.00'),
    );
  });

  it('reads CRLF line ends, a byte-order mark, spaces around fields and no final newline', () => {
    const text = `\uFEFF${REPORT_CSV_HEADER}\r\n tx-1 , PK1 ,2026-11-21 10:15:00,SPEI_DEBIT,1500.00,LIQUIDATED\r\n${ROW.replace('tx-1', 'tx-2')}`;
    expect(parseReportCsv(text).map((l) => [l.lineNo, l.transactionId, l.trackingKey])).toEqual([
      [2, 'tx-1', 'PK1'],
      [3, 'tx-2', 'PK1'],
    ]);
  });

  it('refuses a malformed quote with the line it is on', () => {
    expect(refusal(`${REPORT_CSV_HEADER}\n${ROW}\n"tx-2"x,PK2,2026-11-21 10:15:00,SPEI_DEBIT,1.00,LIQUIDATED\n`)).toBe(
      'line 3: a quoted field goes on after its closing quote: quote the whole field, and double a quote inside it ("")',
    );
    expect(refusal(`${REPORT_CSV_HEADER}\ntx"2,PK2,2026-11-21 10:15:00,SPEI_DEBIT,1.00,LIQUIDATED\n`)).toBe(
      'line 2: a quote inside an unquoted field: quote the whole field, and double a quote inside it ("")',
    );
    expect(
      refusal(
        `${REPORT_CSV_HEADER}\n${ROW}\n${ROW}\n"tx-4,PK4,2026-11-21 10:15:00,SPEI_DEBIT,1.00,LIQUIDATED\n${ROW}\n`,
      ),
    ).toBe('line 4: a quoted field is never closed: end it with a quote (")');
    expect(refusal(`${REPORT_CSV_HEADER}\n"tx\n2",PK2,2026-11-21 10:15:00,SPEI_DEBIT,1.00,LIQUIDATED\n`)).toBe(
      'line 2: a quoted field runs on to line 3: no field holds a line break (is a closing quote missing?)',
    );
  });

  it('refuses a bad header, a blank line, a short line and a repeated transaction by line', () => {
    expect(refusal('')).toBe(`line 1: the header must be exactly "${REPORT_CSV_HEADER}" (the file is empty)`);
    expect(refusal('transaction_id,amount\n')).toBe(`line 1: the header must be exactly "${REPORT_CSV_HEADER}"`);
    expect(refusal(`${REPORT_CSV_HEADER}\n${ROW}\n\n`)).toBe('line 3: the line is empty (remove blank lines)');
    expect(refusal(`${REPORT_CSV_HEADER}\n${ROW}\n${ROW}\n`)).toBe(
      'line 3: transaction tx-1 is already on line 2: a report lists a transaction once',
    );
    expect(refusal(`${REPORT_CSV_HEADER}\n"tx,2",PK2,2026-11-21 10:15:00,SPEI_DEBIT,1.00\n`)).toBe(
      `line 2: expected 6 fields (${REPORT_CSV_HEADER}), found 5`,
    );
    expect(refusal(`${REPORT_CSV_HEADER}\n${ROW.replace('1500.00', '41')}\n`)).toBe(
      'line 2: amount "41" is not a decimal with two decimals, such as 1500.00',
    );
    expect(refusal(`${REPORT_CSV_HEADER}\n${ROW.replace('10:15:00', '25:15:00')}\n`)).toMatch(
      /^line 2: transaction_date "2026-11-21 25:15:00" is not a Mexico City time/,
    );
    expect(refusal(`${REPORT_CSV_HEADER}\x00\n`)).toBe('line 1: the file contains a NUL byte: it is not a text CSV');
  });
});
