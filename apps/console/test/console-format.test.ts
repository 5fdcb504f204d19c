// Figures as people read them: durations in seconds, minutes, hours or days, and products by name.
import { PRODUCTS } from '@paykit/ledger';
import { describe, expect, it } from 'vitest';
import { duration, PRODUCT_NAMES, productName } from '../src/pages/format.ts';

describe('the console reads', () => {
  it('a duration in the largest unit that keeps it exact enough', () => {
    expect(
      [0, 45, 59, 60, 300, 3_599, 3_600, 11_100, 86_400, 172_799, 172_800, 266_400, 90 * 86_400].map(duration),
    ).toEqual([
      '0 s',
      '45 s',
      '59 s',
      '1 min',
      '5 min',
      '59 min',
      '1 h',
      '3 h 05 min',
      '24 h',
      '47 h 59 min',
      '2 d',
      '3 d 2 h',
      '90 d',
    ]);
  });

  it('every product by a name of words, and a code it does not know as it is', () => {
    expect(Object.keys(PRODUCT_NAMES).sort()).toEqual([...PRODUCTS].sort());
    for (const product of PRODUCTS) expect(productName(product)).toMatch(/^[A-Z][A-Za-z ]+$/);
    expect(productName('direct_debit_charge')).toBe('Direct debit charge');
    expect(productName('constructor')).toBe('constructor');
  });
});
