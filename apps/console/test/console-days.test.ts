// The overview's table of days: money is booked on its value day, so a transfer sent on one day
// and settled on the next puts settled money on a day that may have no item of its own. The table
// lists that day too, so its money agrees with the cards.
import { ITEM_STATES, type MoneyRow, type SummaryRow } from '@paykit/ledger';
import { describe, expect, it } from 'vitest';
import { dayTotals } from '../src/data/overview.ts';

const summaryOf = (day: string, matched: number): SummaryRow => ({
  day,
  product: 'spei_out',
  states: Object.fromEntries(
    ITEM_STATES.map((state) => [state, { count: state === 'matched' ? matched : 0, amount: '0.00' }]),
  ) as SummaryRow['states'],
  total: { count: matched, amount: '0.00' },
  matchRate: matched === 0 ? null : 1,
});
const moneyOf = (day: string | null, direction: 'in' | 'out', amount: string): MoneyRow => ({
  day,
  direction,
  figure: 'settled',
  count: 1,
  amount,
});

describe('the overview’s table of days', () => {
  it('lists a day with settled money and no item of its own, and leaves out a day with neither', () => {
    const days = dayTotals(
      [summaryOf('2026-11-21', 1)],
      [moneyOf(null, 'out', '310.00'), moneyOf('2026-11-22', 'out', '310.00'), moneyOf('2026-11-23', 'in', '0.00')],
    );
    expect(days.map((d) => [d.day, d.count, d.amountIn, d.amountOut])).toEqual([
      ['2026-11-21', 1, '0.00', '0.00'],
      ['2026-11-22', 0, '0.00', '310.00'],
    ]);
    expect(days[1]?.matchRate).toBeNull();
  });
});
