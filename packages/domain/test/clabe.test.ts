import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClabeError, clabeControlDigit, isValidClabe, KNOWN_BANK_CODES, parseClabe } from '../src/clabe.ts';

// Valid CLABEs given with the task (their control digits were also recomputed with a separate
// Python implementation of the 3-7-1 weighting before being pasted here).
const VALID = [
  '646180000000000012',
  '012180000045678907',
  '072180000012345672',
  '014180000076543216',
  '002180700123456788',
];

/** A second, independent reading of the rule, to cross-check clabeControlDigit. */
function referenceControlDigit(first17: string): number {
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7, 1, 3, 7];
  const sum = weights.reduce((total, weight, index) => total + ((weight * Number(first17.charAt(index))) % 10), 0);
  return (10 - (sum % 10)) % 10;
}

function ruleOf(clabe: string): string | undefined {
  try {
    parseClabe(clabe);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ClabeError);
    return (error as ClabeError).rule;
  }
}

describe('CLABE known answers', () => {
  it('accepts the valid vectors and no other last digit', () => {
    for (const clabe of VALID) {
      expect(isValidClabe(clabe), clabe).toBe(true);
      expect(clabeControlDigit(clabe.slice(0, 17))).toBe(Number(clabe[17]));
      for (let digit = 0; digit <= 9; digit++) {
        if (String(digit) === clabe[17]) continue;
        const altered = clabe.slice(0, 17) + digit;
        expect(isValidClabe(altered), altered).toBe(false);
        expect(ruleOf(altered)).toBe('control-digit');
      }
    }
  });

  it('splits a CLABE into bank, branch, account and control digit, naming known banks', () => {
    expect(parseClabe('012180000045678907')).toEqual({
      bankCode: '012',
      branch: '180',
      account: '00004567890',
      controlDigit: 7,
      bankName: 'BBVA MEXICO',
    });
    expect(parseClabe('646180000000000012')).toEqual({
      bankCode: '646',
      branch: '180',
      account: '00000000001',
      controlDigit: 2,
      bankName: 'STP',
    });
    expect(parseClabe('002180700123456788').bankName).toBe('BANAMEX');
  });

  it('never rejects a bank code just because the table does not list it', () => {
    // Control digits computed with the separate Python implementation: 99918000001234567 → 4, 13818000000000001 → 2.
    expect(parseClabe('999180000012345674')).toEqual({
      bankCode: '999',
      branch: '180',
      account: '00001234567',
      controlDigit: 4,
    });
    expect(isValidClabe('138180000000000012')).toBe(true);
  });

  it('names the rule that failed, without echoing the number', () => {
    // 000 + a correct control digit (3, from the Python implementation): only the bank code is wrong.
    expect(ruleOf('000180000012345673')).toBe('bank-code');
    expect(() => parseClabe('000180000012345673')).toThrow(/000 is no bank/);
    expect(ruleOf('64618000000000001')).toBe('length');
    expect(() => parseClabe('64618000000000001')).toThrow(/exactly 18 digits, this one has 17 characters/);
    expect(() => parseClabe('646 180 00000000001')).toThrow(/remove spaces and dashes/);
    expect(ruleOf('6461800000000000A2')).toBe('digits');
    expect(() => parseClabe('6461800000000000A2')).toThrow(/character 17 is not a digit/);
    expect(ruleOf(12180000045678 as unknown as string)).toBe('type'); // a number, which would lose leading zeros
    for (const bad of ['012180000045678900', '000180000012345673', '6461800000000000A2']) {
      try {
        parseClabe(bad);
      } catch (error) {
        expect((error as Error).message).not.toContain(bad.slice(3, 17));
      }
    }
  });

  it('clabeControlDigit checks its input', () => {
    expect(() => clabeControlDigit('123')).toThrow(/exactly the first 17 digits/);
    expect(() => clabeControlDigit('01218000004567890x')).toThrow(ClabeError);
    expect(() => clabeControlDigit('0121800000456789x')).toThrow(/not a digit/);
  });

  it('isValidClabe never throws', () => {
    for (const value of [undefined, null, 12, {}, '', 'x'.repeat(18)])
      expect(isValidClabe(value as unknown as string)).toBe(false);
  });

  it('keeps a small frozen table of bank names', () => {
    expect(Object.isFrozen(KNOWN_BANK_CODES)).toBe(true);
    expect(KNOWN_BANK_CODES).toMatchObject({
      '002': 'BANAMEX',
      '006': 'BANCOMEXT',
      '009': 'BANOBRAS',
      '012': 'BBVA MEXICO',
      '014': 'SANTANDER',
      '019': 'BANJERCITO',
      '021': 'HSBC',
      '030': 'BAJIO',
      '036': 'INBURSA',
      '042': 'MIFEL',
      '044': 'SCOTIABANK',
      '058': 'BANREGIO',
      '059': 'INVEX',
      '062': 'AFIRME',
      '072': 'BANORTE',
      '127': 'AZTECA',
      '130': 'COMPARTAMOS',
      '132': 'MULTIVA',
      '133': 'ACTINVER',
      '137': 'BANCOPPEL',
      '646': 'STP',
    });
    for (const code of Object.keys(KNOWN_BANK_CODES)) expect(code).toMatch(/^\d{3}$/);
  });
});

describe('CLABE properties', () => {
  const prefix = fc.stringMatching(/^\d{17}$/).filter((digits) => !digits.startsWith('000'));

  it('every 17-digit prefix plus its control digit validates, and matches the reference reading', () => {
    fc.assert(
      fc.property(prefix, (first17) => {
        const control = clabeControlDigit(first17);
        expect(control).toBe(referenceControlDigit(first17));
        expect(isValidClabe(first17 + control)).toBe(true);
      }),
    );
  });

  it('changing any single digit invalidates it', () => {
    fc.assert(
      fc.property(prefix, fc.nat(17), fc.integer({ min: 1, max: 9 }), (first17, position, delta) => {
        const clabe = first17 + clabeControlDigit(first17);
        const digit = (Number(clabe[position]) + delta) % 10;
        const altered = clabe.slice(0, position) + digit + clabe.slice(position + 1);
        expect(isValidClabe(altered)).toBe(false);
      }),
    );
  });
});
