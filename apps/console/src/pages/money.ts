// Money in and out from the journal: what settled, what was returned, the net, in transit, held
// and unconfirmed, per direction and by day.
import { figureApplies, figureOf, MONEY_FIGURES, type MoneyRow } from '@paykit/ledger';
import type { ConsoleFilters } from '../filters.ts';
import { count, money } from './format.ts';
import { esc, page, table } from './html.ts';
import { dayCell, exportLinks, n } from './list.ts';
import { rangeForm, rangeParams } from './range.ts';

const FIGURE_LABEL: Record<MoneyRow['figure'], string> = {
  settled: 'settled (gross)',
  returned: 'returned (in: refunds and chargebacks; out: reversals)',
  net: 'net (settled less returned)',
  in_transit: 'in transit (sent, not final)',
  held: 'held (not money in until released)',
  unconfirmed: 'unconfirmed (sent, no answer recorded: may have left)',
};

export function moneyTable(rows: readonly MoneyRow[]): string {
  const cells = (direction: 'in' | 'out', figure: MoneyRow['figure']) => {
    if (!figureApplies(direction, figure)) return ['<td class="n">—</td>', '<td class="n">—</td>'];
    const f = figureOf(rows, direction, figure);
    return [n(count(f.count)), `<td class="n" data-money="${direction}|${figure}">${esc(money(f.amount))}</td>`];
  };
  const body = MONEY_FIGURES.map((figure) => [
    `<td class="${figure}">${esc(FIGURE_LABEL[figure])}</td>`,
    ...cells('in', figure),
    ...cells('out', figure),
  ]);
  return table(['figure', 'in: items', 'money in', 'out: items', 'money out'], body, 'data-table="money"');
}

export function moneyPage(rows: readonly MoneyRow[], filters: ConsoleFilters): string {
  const days = [...new Set(rows.map((v) => v.day).filter((d): d is string => d !== null))];
  const shown = (['in', 'out'] as const).flatMap((direction) =>
    MONEY_FIGURES.filter((figure) => figureApplies(direction, figure)).map((figure) => ({ direction, figure })),
  );
  const dayRows = days.map((day) => [
    dayCell(day),
    ...shown.map(({ direction, figure }) => n(money(figureOf(rows, direction, figure, day).amount))),
  ]);
  return page(
    'Money in and out · paykit',
    `<h1>Money in and out, ${esc(filters.from)} to ${esc(filters.to)}</h1>${rangeForm('/volumes', filters)}
<p>From the journal, by value day: what settled, what was returned against it and the net of the two, per direction (money in and money out are never added together); transfers still in transit and credits held apart. ${exportLinks('volumes', rangeParams(filters))}</p>
${moneyTable(rows)}<h2>By day</h2>${table(['day', ...shown.map(({ direction, figure }) => `${direction}: ${figure.replace('_', ' ')}`)], dayRows, 'data-table="money-by-day"')}`,
    '/volumes',
  );
}
