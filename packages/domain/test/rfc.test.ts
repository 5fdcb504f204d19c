import { describe, expect, it } from 'vitest';
import { isValidRfc, normalizeRfc, rfcKind } from '../src/rfc.ts';

describe('rfcKind', () => {
  it('tells a persona moral (3 letters) from a persona física (4 letters)', () => {
    expect(rfcKind('ABC680524P76')).toBe('moral');
    expect(rfcKind('GODE561231GR8')).toBe('fisica');
    expect(rfcKind('XAXX010101000')).toBe('fisica'); // the SAT's generic RFC for the general public
    expect(rfcKind('XEXX010101000')).toBe('fisica'); // the generic RFC for foreign residents
  });

  it('accepts Ñ and & in the name part, composed or not', () => {
    expect(rfcKind('ÑAB010101AB1')).toBe('moral');
    expect(rfcKind('A&B010101AB1')).toBe('moral');
    expect(rfcKind('PEÑA800101AB1')).toBe('fisica');
    expect(rfcKind('PEN\u0303A800101AB1')).toBe('fisica');
  });

  it('checks the YYMMDD date', () => {
    expect(rfcKind('ABC991301AB1')).toBeUndefined(); // month 13
    expect(rfcKind('ABC990230AB1')).toBeUndefined(); // 30 February
    expect(rfcKind('ABC990431AB1')).toBeUndefined(); // 31 April
    expect(rfcKind('ABC990100AB1')).toBeUndefined(); // day 00
    expect(rfcKind('ABC000229AB1')).toBe('moral'); // 2000 was a leap year
    expect(rfcKind('ABC960229AB1')).toBe('moral');
    expect(rfcKind('ABC010229AB1')).toBeUndefined();
  });

  it('rejects other shapes', () => {
    for (const bad of [
      'abc680524p76',
      'AB680524P76',
      'ABCDE680524P76',
      'ABC680524P7',
      'ABC680524P766',
      'A1C680524P76',
      'ABC-680524-P76',
      'ABC680524P7Ñ',
      '',
      'ABC 680524 P76',
    ]) {
      expect(rfcKind(bad), bad).toBeUndefined();
      expect(isValidRfc(bad), bad).toBe(false);
    }
    expect(isValidRfc(12 as unknown as string)).toBe(false);
  });

  it('normalizeRfc prepares typed input', () => {
    expect(normalizeRfc(' xaxx-010101-000 ')).toBe('XAXX010101000');
    expect(isValidRfc(normalizeRfc('gode 561231 gr8'))).toBe(true);
  });
});
