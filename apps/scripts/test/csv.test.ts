import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import { CSV_EXPORT_OPTIONS } from '../src/commands/products.ts';

/** The one data line the CLI's CSV writes for a record holding `value`. */
const cell = (value: unknown): string => stringify([{ value }], CSV_EXPORT_OPTIONS).split('\n')[1]!;

describe('the CLI’s CSV cells', () => {
  it('quotes what needs quoting and never lets a spreadsheet run a field as a formula', () => {
    expect(cell('plain')).toBe('plain');
    expect(cell('a,b')).toBe('"a,b"');
    expect(cell('say "hi"')).toBe('"say ""hi"""');
    expect(cell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(cell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(cell('-12.50')).toBe('-12.50');
    // A leading tab or carriage return, and the full-width = + - @, run as formulas in some spreadsheets too.
    expect(cell('\t=1+1')).toBe("'\t=1+1");
    expect(stringify([{ value: '\r=1+1' }], CSV_EXPORT_OPTIONS)).toBe(`value\n"'\r=1+1"\n`);
    expect(cell('\uFF1DSUM(A1)')).toBe("'\uFF1DSUM(A1)");
    expect(cell(null)).toBe('');
    expect(cell({ a: 1 })).toBe('"{""a"":1}"');
  });

  it('writes numbers and booleans as their text, and the first record’s fields as the header', () => {
    expect(
      stringify(
        [
          { id: 'x', amount: -5, active: true, ok: false },
          { id: 'y', amount: 12.5, active: false, ok: true },
        ],
        CSV_EXPORT_OPTIONS,
      ),
    ).toBe('id,amount,active,ok\nx,-5,true,false\ny,12.5,false,true\n');
  });
});
