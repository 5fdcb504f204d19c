// The one CLABE module (src/clabe.ts) that the core service's private accounts and direct debit's
// generated instruments share: control digit, validity, building from bank + branch + account.
import { describe, expect, it } from 'vitest';
import { buildClabe, clabeControlDigit, isValidClabe } from '../src/clabe.ts';
import { DEFAULT_SEED } from '../src/index.ts';

/** Valid CLABEs: the seed's platform, external and direct debit ones, and the spec's example. */
const KNOWN_VALID = [
  '646180000000000012',
  '012180000045678907',
  '072180000012345672',
  '014180000076543216',
  '002180700123456788',
];

describe('CLABE control digit', () => {
  it('weights 3, 7, 1 over the first 17 digits', () => {
    // A published example CLABE and the seed's: all valid.
    expect(isValidClabe('032180000118359719')).toBe(true);
    for (const instrument of DEFAULT_SEED.core.instruments) expect(isValidClabe(instrument.clabe)).toBe(true);
    expect(clabeControlDigit('03218000011835971')).toBe(9);
    expect(isValidClabe('032180000118359718')).toBe(false);
    expect(isValidClabe('03218000011835971')).toBe(false);
  });

  it.each(KNOWN_VALID)('%s is valid; any other last digit is not', (clabe) => {
    expect(isValidClabe(clabe)).toBe(true);
    expect(clabeControlDigit(clabe.slice(0, 17))).toBe(Number(clabe[17]));
    for (let digit = 0; digit <= 9; digit++) {
      if (String(digit) === clabe[17]) continue;
      expect(isValidClabe(`${clabe.slice(0, 17)}${digit}`)).toBe(false);
    }
  });

  it('refuses anything but 18 digits', () => {
    for (const clabe of ['', '64618000000000001', '6461800000000000120', '64618000000000001x', ' 646180000000000012'])
      expect(isValidClabe(clabe)).toBe(false);
  });
});

describe('buildClabe', () => {
  it('appends the control digit to bank + branch + account', () => {
    expect(buildClabe('646', '180', '00000000001')).toBe('646180000000000012');
    expect(buildClabe('012', '180', '00004567890')).toBe('012180000045678907');
    expect(buildClabe('002', '180', '70012345678')).toBe('002180700123456788');
    for (const clabe of KNOWN_VALID)
      expect(buildClabe(clabe.slice(0, 3), clabe.slice(3, 6), clabe.slice(6, 17))).toBe(clabe);
  });

  it('throws on parts of the wrong length or with non-digits', () => {
    expect(() => buildClabe('64', '180', '00000000001')).toThrow(/3-digit bank/);
    expect(() => buildClabe('646', '18', '00000000001')).toThrow();
    expect(() => buildClabe('646', '180', '0000000001')).toThrow();
    expect(() => buildClabe('646', '180', '0000000000a')).toThrow();
  });
});
