import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidCardNumber, luhnCheckDigit } from '../src/card.ts';

describe('isValidCardNumber', () => {
  it('accepts published test card numbers', () => {
    // Card networks' public test numbers (Visa, Mastercard, Amex, Discover, Visa 13 digits), each checked
    // with a separate Python Luhn implementation before being pasted here.
    for (const number of [
      '4111111111111111',
      '5555555555554444',
      '378282246310005',
      '6011111111111117',
      '4012888888881881',
      '4222222222222',
    ]) {
      expect(isValidCardNumber(number), number).toBe(true);
    }
  });

  it('ignores spaces and dashes as typed by people', () => {
    expect(isValidCardNumber('4111 1111 1111 1111')).toBe(true);
    expect(isValidCardNumber('4111-1111-1111-1111')).toBe(true);
    expect(isValidCardNumber(' 4111 1111 1111 1111 ')).toBe(true);
  });

  it('rejects a wrong check digit, a wrong length and anything that is not digits', () => {
    expect(isValidCardNumber('4111111111111112')).toBe(false);
    expect(isValidCardNumber('79927398713')).toBe(false); // Luhn-valid but only 11 digits
    expect(isValidCardNumber('79927398713'.padStart(20, '0'))).toBe(false); // 20 digits
    expect(isValidCardNumber('4111a11111111111')).toBe(false);
    expect(isValidCardNumber('4111.1111.1111.1111')).toBe(false);
    expect(isValidCardNumber('')).toBe(false);
    expect(isValidCardNumber(4111111111111111 as unknown as string)).toBe(false);
  });

  it('computes Luhn check digits (Wikipedia: 7992739871 → 3)', () => {
    expect(luhnCheckDigit('7992739871')).toBe(3);
    expect(luhnCheckDigit('411111111111111')).toBe(1);
    expect(() => luhnCheckDigit('4111 1111')).toThrow(TypeError);
  });
});

describe('Luhn properties', () => {
  const partial = fc.stringMatching(/^\d{11,18}$/);

  it('every 11-18 digit prefix plus its check digit validates', () => {
    fc.assert(fc.property(partial, (digits) => isValidCardNumber(digits + luhnCheckDigit(digits))));
  });

  it('changing any single digit invalidates it', () => {
    fc.assert(
      fc.property(partial, fc.nat(), fc.integer({ min: 1, max: 9 }), (digits, where, delta) => {
        const number = digits + luhnCheckDigit(digits);
        const position = where % number.length;
        const altered =
          number.slice(0, position) + ((Number(number[position]) + delta) % 10) + number.slice(position + 1);
        return !isValidCardNumber(altered);
      }),
    );
  });
});
