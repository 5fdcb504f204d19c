import { describe, expect, it } from 'vitest';
import { csvCell } from '../src/commands/products.ts';

describe('csvCell', () => {
  it('quotes what needs quoting and never lets a spreadsheet run a field as a formula', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-12.50')).toBe('-12.50');
    // A leading tab or carriage return, and the full-width = + - @, run as formulas in some spreadsheets too.
    expect(csvCell('\t=1+1')).toBe("'\t=1+1");
    expect(csvCell('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvCell('\uFF1DSUM(A1)')).toBe("'\uFF1DSUM(A1)");
    expect(csvCell(null)).toBe('');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });
});
