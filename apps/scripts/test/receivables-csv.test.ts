import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli/errors.ts';
import { RECEIVABLES_HEADER, parseReceivables } from '../src/commands/ledger.ts';

const GOOD = 'INV-2,646180000000000012,10.00,,Renta,2026-12-01';

function refusal(text: string): string {
  try {
    parseReceivables(text);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected the file to be refused');
}

describe('parseReceivables', () => {
  it('reads a quoted field with a comma, a quote or a line break', () => {
    const [first, second] = parseReceivables(
      `${RECEIVABLES_HEADER}\nINV-2,646180000000000012,10.00,4400001,"Renta, mayo ""A""",2026-12-01\nINV-3,646180000000000012,5.00,,"dos\nlíneas",2026-12-02\n`,
    );
    expect(first).toEqual({
      id: 'INV-2',
      beneficiaryAccount: '646180000000000012',
      amount: '10.00',
      reference: '4400001',
      concept: 'Renta, mayo "A"',
      dueDate: '2026-12-01',
    });
    expect(second).toMatchObject({ id: 'INV-3', concept: 'dos\nlíneas', reference: null });
  });

  it('reads a file with a byte order mark and CRLF lines, skipping blank lines', () => {
    expect(parseReceivables(`\uFEFF${RECEIVABLES_HEADER}\r\n${GOOD}\r\n\r\n`)).toEqual([
      {
        id: 'INV-2',
        beneficiaryAccount: '646180000000000012',
        amount: '10.00',
        reference: null,
        concept: 'Renta',
        dueDate: '2026-12-01',
      },
    ]);
  });

  it('refuses a bad row naming its line and what is wrong', () => {
    expect(refusal(`${RECEIVABLES_HEADER}\n${GOOD}\nINV-3,6461800000,5.00,,,2026-12-01\n`)).toBe(
      'line 3: beneficiary_account must be an 18-digit CLABE; nothing was imported',
    );
    expect(refusal(`${RECEIVABLES_HEADER}\n${GOOD}\nINV-3,646180000000000012,5,,,2026-12-01\n`)).toMatch(
      /^line 3: amount "5" has no decimals: an amount has exactly two, such as "5.00"; nothing was imported/,
    );
    expect(refusal(`${RECEIVABLES_HEADER}\nINV-2,646180000000000012,10.00,,Renta\n`)).toMatch(
      /^line 2: 5 fields, expected 6/,
    );
    // A multi-line field: the line named is where the bad record ends.
    expect(
      refusal(`${RECEIVABLES_HEADER}\nINV-2,646180000000000012,10.00,,"a\nb",2026-12-01\nINV-3,1,5.00,,,2026-12-01\n`),
    ).toMatch(/^line 4: beneficiary_account/);
  });

  it('refuses what is not CSV, or not this header, naming the line', () => {
    expect(refusal(`${RECEIVABLES_HEADER}\nINV-2,646180000000000012,10.00,,"Renta,2026-12-01\n`)).toMatch(
      /^line 2: Quote Not Closed.*; nothing was imported$/,
    );
    expect(refusal(`${RECEIVABLES_HEADER}\nINV-2,646180000000000012,10.00,,Re"nta,2026-12-01\n`)).toMatch(
      /^line 2: Invalid Opening Quote/,
    );
    expect(refusal('id,amount\n')).toBe(`line 1: the header must be exactly "${RECEIVABLES_HEADER}"`);
  });
});
