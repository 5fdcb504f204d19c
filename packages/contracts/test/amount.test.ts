// The amount rule in TypeScript: the table every enforcement of the rule is checked with
// (fixtures/amounts), and readAmount's verdict always AMOUNT_PATTERN's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AMOUNT_MAX, AMOUNT_PATTERN, isAmount, readAmount } from '../src/index.ts';

interface AmountCase {
  name: string;
  /** The JSON text of body.amount as sent; null when the field is absent. */
  json: string | null;
  valid: boolean;
}

const CASES = JSON.parse(
  readFileSync(new URL('../fixtures/amounts/amounts.json', import.meta.url), 'utf8'),
) as AmountCase[];

const valueOf = (c: AmountCase): unknown => (c.json === null ? undefined : JSON.parse(c.json));

describe('the amount rule', () => {
  it.each(CASES)('$name: valid is $valid', (c) => {
    const reading = readAmount(valueOf(c));
    expect(reading.ok).toBe(c.valid);
    expect(isAmount(valueOf(c))).toBe(c.valid);
    if (!reading.ok) {
      expect(reading.problem).toMatch(/^amount /);
      expect(reading.problem.endsWith(reading.reason)).toBe(true);
      // Bounded, whatever was sent.
      expect(reading.problem.length).toBeLessThan(240);
    }
  });

  it('reads centavos exactly, leading zeros as the value they write', () => {
    expect(readAmount('0.01')).toEqual({ ok: true, amount: '0.01', centavos: 1n });
    expect(readAmount('0100.00')).toMatchObject({ ok: true, centavos: 10_000n });
    expect(readAmount(AMOUNT_MAX)).toMatchObject({ ok: true, centavos: 10n ** 18n - 1n });
  });

  it('says what was wrong and what to do', () => {
    const problem = (value: unknown) => (readAmount(value) as { problem: string }).problem;
    expect(problem('0.00')).toBe('amount "0.00" is zero: no money moved; an amount is 0.01 or more');
    expect(problem(10.5)).toMatch(
      /^amount is the JSON number 10.5, not a decimal string: a number may already have lost centavos; send a decimal string with exactly two decimals/,
    );
    expect(problem('1.5')).toBe('amount "1.5" has one decimal: an amount has exactly two, such as "1.50"');
    expect(problem('1.500')).toMatch(/^amount "1.500" has 3 decimals: a centavo is the smallest unit/);
    expect(problem('-1.00')).toMatch(/^amount "-1.00" is negative/);
    expect(problem(' 1.00')).toMatch(/^amount " 1.00" is padded with white space/);
    expect(problem('1,000.00')).toMatch(/^amount "1,000.00" has a comma/);
    expect(problem('10000000000000000.00')).toMatch(
      /has more than 16 digits before the point: the ledger holds at most 9999999999999999.99/,
    );
    expect(problem(undefined)).toMatch(/^amount is missing: send a decimal string/);
    expect(problem('')).toMatch(/^amount is missing/);
    expect(problem({ value: '1.00' })).toMatch(/^amount is a JSON object, not a decimal string/);
    expect(readAmount('1.5', 'body.amount')).toMatchObject({ problem: /^body\.amount "1\.5" / });
    expect(problem(`${'9'.repeat(5000)}.00`).length).toBeLessThan(200);
  });

  it('gives the verdict of AMOUNT_PATTERN for every string', () => {
    const alphabet = ['0', '1', '9', '.', '-', ' ', ',', 'e'];
    // Every string of up to five of these characters, and some long ones.
    let strings = [''];
    const all: string[] = [];
    for (let length = 1; length <= 5; length++) {
      strings = strings.flatMap((s) => alphabet.map((c) => s + c));
      all.push(...strings);
    }
    all.push('1'.repeat(16) + '.00', '1'.repeat(17) + '.00', '0'.repeat(30) + '1.00');
    for (const value of all) expect(readAmount(value).ok, JSON.stringify(value)).toBe(AMOUNT_PATTERN.test(value));
  });
});
