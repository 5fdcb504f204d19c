import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMoney, formatMXN, fromCentavos, MoneyError, toCentavos } from '../src/money.ts';

const TWO_POW_53 = 2n ** 53n;

/** A canonical platform amount: no leading zeros, exactly two decimals. */
const amountString = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: 0, max: 99 }))
  .map(([pesos, centavos]) => `${pesos}.${String(centavos).padStart(2, '0')}`);

function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

describe('toCentavos', () => {
  it('reads the platform layout exactly', () => {
    expect(toCentavos('1234.56')).toBe(123456n);
    expect(toCentavos('0.01')).toBe(1n);
    expect(toCentavos('0.00')).toBe(0n);
    expect(toCentavos('10.50')).toBe(1050n);
    expect(toCentavos('007.50')).toBe(750n);
    // 9007199254740993 centavos: 2^53 + 1, the first integer a double cannot hold.
    expect(toCentavos('90071992547409.93')).toBe(TWO_POW_53 + 1n);
    expect(toCentavos('123456789012345678901234567890.99')).toBe(12345678901234567890123456789099n);
  });

  it('refuses numbers with a message that says why', () => {
    const read = () => toCentavos(12.5 as unknown as string);
    expect(read).toThrow(MoneyError);
    expect(read).toThrow('amounts are decimal strings like "12.50", never numbers (floats lose centavos)');
    expect(() => toCentavos(1250n as unknown as string)).toThrow(/decimal strings like "12.50".*bigint 1250n/);
    expect(() => toCentavos(null as unknown as string)).toThrow(/decimal strings like "12.50": got null/);
  });

  it('accepts only ^\\d+\\.\\d{2}$ by default and says what to do with the rest', () => {
    expect(() => toCentavos('12')).toThrow(/exactly two decimals, like "12.50"; pass \{ lenient: true \}/);
    expect(() => toCentavos('12.5')).toThrow(/exactly two decimals/);
    expect(() => toCentavos('12.345')).toThrow(
      /more than two decimals: a centavo is the smallest unit; round it explicitly/,
    );
    expect(() => toCentavos('1,234.56')).toThrow(/thousands separators/);
    expect(() => toCentavos('12,50')).toThrow(/decimal comma: use a dot/);
    expect(() => toCentavos(' 12.50')).toThrow(/whitespace: trim it/);
    expect(() => toCentavos('-1.00')).toThrow(/negative: platform amounts never are/);
    for (const bad of [
      '',
      '.50',
      '12.',
      '+1.00',
      '1e3',
      '0x10.00',
      'Infinity',
      'NaN',
      '١٢.٥٠',
      '12.50 MXN',
      '$12.50',
    ]) {
      expect(() => toCentavos(bad), bad).toThrow(MoneyError);
    }
  });

  it('accepts one or no decimals with { lenient: true }', () => {
    expect(toCentavos('12', { lenient: true })).toBe(1200n);
    expect(toCentavos('12.5', { lenient: true })).toBe(1250n);
    expect(toCentavos('12.05', { lenient: true })).toBe(1205n);
    expect(toCentavos('0', { lenient: true })).toBe(0n);
    for (const bad of ['12.345', '.5', '12.', ''])
      expect(() => toCentavos(bad, { lenient: true }), bad).toThrow(MoneyError);
  });

  it('reads a leading minus with { signed: true }', () => {
    expect(toCentavos('-1234.56', { signed: true })).toBe(-123456n);
    expect(toCentavos('-0.05', { signed: true })).toBe(-5n);
  });

  it('does not echo a very long input whole', () => {
    const long = '9'.repeat(500);
    expect(() => toCentavos(long)).toThrow(MoneyError);
    try {
      toCentavos(long);
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(250);
    }
  });
});

describe('fromCentavos', () => {
  it('writes the platform layout', () => {
    expect(fromCentavos(123456n)).toBe('1234.56');
    expect(fromCentavos(0n)).toBe('0.00');
    expect(fromCentavos(5n)).toBe('0.05');
    expect(fromCentavos(50n)).toBe('0.50');
    expect(fromCentavos(100n)).toBe('1.00');
    expect(fromCentavos(-123456n)).toBe('-1234.56');
    expect(fromCentavos(-5n)).toBe('-0.05');
    expect(fromCentavos(2n ** 64n)).toBe('184467440737095516.16');
  });

  it('refuses numbers', () => {
    expect(() => fromCentavos(1250 as unknown as bigint)).toThrow(
      /centavos are a bigint \(for example 1250n for "12.50"\), never a number/,
    );
  });
});

describe('formatMoney', () => {
  it('groups the digits of the decimal string and names the currency, decimals as given', () => {
    expect(formatMoney('13065.50', 'MXN')).toBe('MXN 13,065.50');
    expect(formatMoney('1300', 'MXN')).toBe('MXN 1,300');
    expect(formatMoney('0.01', 'mxn')).toBe('MXN 0.01');
    expect(formatMoney('999.00', 'MXN')).toBe('MXN 999.00');
    expect(formatMoney('1000', 'USD')).toBe('USD 1,000');
    expect(formatMoney('-1234567.89', 'MXN')).toBe('MXN -1,234,567.89');
    expect(formatMoney('000123.40', 'MXN')).toBe('MXN 123.40');
  });

  it('keeps every digit past what a float holds', () => {
    expect(formatMoney('90071992547409.93', 'MXN')).toBe('MXN 90,071,992,547,409.93');
    expect(formatMoney(`1${'0'.repeat(30)}.01`, 'MXN')).toBe(`MXN 1${',000'.repeat(10)}.01`);
  });

  it('refuses what is not a decimal amount or a currency code, saying what was wrong', () => {
    expect(() => formatMoney('1,300.00', 'MXN')).toThrow(/thousands separators/);
    expect(() => formatMoney('12,50', 'MXN')).toThrow(/decimal comma/);
    expect(() => formatMoney(' 12.50', 'MXN')).toThrow(/whitespace/);
    expect(() => formatMoney(12.5 as unknown as string, 'MXN')).toThrow(/never numbers/);
    expect(() => formatMoney('12.50', 'pesos')).toThrow(/ISO 4217/);
  });
});

describe('formatMXN', () => {
  it('formats es-MX by default', () => {
    expect(formatMXN(123456n)).toBe('$1,234.56');
    expect(formatMXN(0n)).toBe('$0.00');
    expect(formatMXN(1n)).toBe('$0.01');
    expect(formatMXN(-123456n)).toBe('-$1,234.56');
    expect(formatMXN(100000000n)).toBe('$1,000,000.00');
  });

  it('is exact far past 2^53', () => {
    expect(formatMXN(TWO_POW_53 + 1n)).toBe('$90,071,992,547,409.93');
    expect(formatMXN(10n ** 30n + 1n)).toBe('$10,000,000,000,000,000,000,000,000,000.01');
  });

  it('stays exact where Intl would print ∞ (past about 10^308)', () => {
    const huge = 10n ** 400n + 1n;
    const formatted = formatMXN(huge);
    // 10^398 pesos: 399 integer digits, "100" then 132 groups of "000".
    expect(formatted).toBe(`$100${',000'.repeat(132)}.01`);
    expect(digitsOf(formatted)).toBe(huge.toString());
    expect(formatMXN(-huge)).toBe(`-$100${',000'.repeat(132)}.01`);
    expect(formatMXN(huge, { locale: 'de-DE' })).toBe(`100${'.000'.repeat(132)},01\u00a0MX$`);
  });

  it('follows the locale asked for', () => {
    expect(formatMXN(123456n, { locale: 'en-US' })).toBe('MX$1,234.56');
    expect(formatMXN(123456n, { locale: 'de-DE' })).toBe('1.234,56\u00a0MX$');
  });
});

describe('money properties', () => {
  it('fromCentavos(toCentavos(s)) === s for platform amounts', () => {
    fc.assert(fc.property(amountString, (amount) => fromCentavos(toCentavos(amount)) === amount));
  });

  it('toCentavos(fromCentavos(n)) === n for bigints, including past 2^53', () => {
    const big = fc.bigInt({ min: 0n, max: 2n ** 128n });
    fc.assert(
      fc.property(big, (n) => toCentavos(fromCentavos(n)) === n),
      {
        examples: [[TWO_POW_53 - 1n], [TWO_POW_53], [TWO_POW_53 + 1n], [0n], [1n], [99n], [100n]],
      },
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 128n), max: 2n ** 128n }),
        (n) => toCentavos(fromCentavos(n), { signed: true }) === n,
      ),
    );
  });

  it('lenient amounts read the same as their two-decimal form', () => {
    const lenient = fc.tuple(
      fc.bigInt({ min: 0n, max: 10n ** 20n }),
      fc.constantFrom('', '.0', '.5', '.05', '.9', '.99'),
    );
    fc.assert(
      fc.property(lenient, ([pesos, tail]) => {
        const fraction = tail === '' ? '00' : tail.slice(1).padEnd(2, '0');
        return toCentavos(`${pesos}${tail}`, { lenient: true }) === toCentavos(`${pesos}.${fraction}`);
      }),
    );
  });

  it('formatting never loses or adds a digit, and keeps the sign', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 60n), max: 10n ** 60n }),
        fc.constantFrom('es-MX', 'en-US', 'de-DE'),
        (n, locale) => {
          const formatted = formatMXN(n, { locale });
          const absolute = fromCentavos(n < 0n ? -n : n);
          return digitsOf(formatted) === digitsOf(absolute) && formatted.startsWith('-') === n < 0n;
        },
      ),
    );
  });

  it('es-MX output is "$" then comma-grouped digits and two decimals, and reads back', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 50n }), (n) => {
        const formatted = formatMXN(n);
        return /^\$\d{1,3}(,\d{3})*\.\d{2}$/.test(formatted) && toCentavos(formatted.replace(/[$,]/g, '')) === n;
      }),
    );
  });

  it('no number ever passes as an amount', () => {
    fc.assert(
      fc.property(fc.double(), (n) => {
        expect(() => toCentavos(n as unknown as string)).toThrow(MoneyError);
      }),
    );
  });
});
