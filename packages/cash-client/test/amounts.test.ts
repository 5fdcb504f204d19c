import { MoneyError } from '@paykit/domain';
import { describe, expect, it } from 'vitest';
import { centavosToPesos, pesosToCentavos } from '../src/amounts.ts';

describe('pesosToCentavos and centavosToPesos (cash: integer MXN)', () => {
  it('converts whole pesos', () => {
    expect(pesosToCentavos(150)).toBe(15000n);
    expect(pesosToCentavos(0)).toBe(0n);
    expect(pesosToCentavos(150n)).toBe(15000n);
    expect(pesosToCentavos(2n ** 60n)).toBe(2n ** 60n * 100n);
    expect(centavosToPesos(15000n)).toBe(150n);
  });

  it('throws on anything that is not a whole, exact peso amount', () => {
    expect(() => pesosToCentavos(12.5)).toThrow(/cash amounts are whole pesos \(integer MXN\): got the number 12.5/);
    expect(() => pesosToCentavos(Number.NaN)).toThrow(MoneyError);
    expect(() => pesosToCentavos(Number.POSITIVE_INFINITY)).toThrow(MoneyError);
    expect(() => pesosToCentavos(2 ** 53)).toThrow(/no longer exact: pass the amount as a bigint/);
    expect(() => pesosToCentavos('150' as unknown as number)).toThrow(MoneyError);
    expect(() => centavosToPesos(15050n)).toThrow(/150.50 MXN has centavos, but cash amounts are whole pesos/);
  });
});
