// The items: every transaction the books know for the range, with its state, its outcome and the
// report line it was compared with.
import type { DirectionTotals, ReconItem, ReportLineRef } from '@paykit/ledger';
import type { Page } from '@paykit/store';
import type { ConsoleFilters } from '../filters.ts';
import { money, productName } from './format.ts';
import { esc, page } from './html.ts';
import { dayCell, eventLink, idCell, listView, n, td, type Column } from './list.ts';
import { filterParams, rangeForm } from './range.ts';

const ITEM_COLUMNS: Column<ReconItem>[] = [
  { label: 'day', sort: 'at', cell: (i) => dayCell(i.day) },
  { label: 'product', sort: 'product', cell: (i) => td(productName(i.product)) },
  { label: 'state', sort: 'state', cell: (i) => td(i.state, i.state) },
  { label: 'outcome', cell: (i) => td(i.outcome, i.outcome) },
  { label: 'fields', cell: (i) => td(i.fields.join(', ')) },
  { label: 'direction', cell: (i) => td(i.direction) },
  { label: 'amount', sort: 'amount', cell: (i) => n(money(i.amount)) },
  { label: 'status', sort: 'status', cell: (i) => td(i.status) },
  { label: 'transaction', cell: (i) => idCell(i.id) },
  { label: 'tracking key', cell: (i) => td(i.trackingKey ?? '') },
  { label: 'note', cell: (i) => td(i.note ?? '') },
  { label: 'report line', cell: reportLineCell },
  { label: 'events', cell: (i) => `<td>${i.eventSeqs.map(eventLink).join(' ')}</td>` },
];

const reportLineLink = (line: ReportLineRef) =>
  `<a href="/reports?file=${encodeURIComponent(line.fileName)}">${esc(line.fileName)} line ${esc(line.lineNo)}</a>`;

/** The line of the newest report the item was compared with, and an older file's line that said otherwise. */
function reportLineCell(item: ReconItem): string {
  const { report, reportDisagreement: older } = item;
  if (!report) return td('');
  const disagreement = older
    ? `<br><span class="disagreement" data-report-disagreement="${esc(`${older.fileName}:${older.lineNo}`)}">older: ${reportLineLink(older)} says ${esc(older.status)} ${esc(money(older.amount))}</span>`
    : '';
  return `<td data-report-line="${esc(`${report.fileName}:${report.lineNo}`)}">${reportLineLink(report)}${disagreement}</td>`;
}

export function itemsSection(path: string, items: Page<ReconItem> & DirectionTotals, filters: ConsoleFilters): string {
  return listView({
    path,
    params: filterParams(filters),
    sort: filters.sort,
    defaultSort: '-at',
    page: items,
    columns: ITEM_COLUMNS,
    attrs: 'data-table="items"',
    exportName: 'items',
    noun: 'item',
    extra: `${money(items.amountIn)} in, ${money(items.amountOut)} out${filters.states.length === 0 ? ', every state' : ''}`,
  });
}

export function itemsPage(items: Page<ReconItem> & DirectionTotals, filters: ConsoleFilters): string {
  return page(
    'Items · paykit',
    `<h1>Items ${esc(filters.from)} to ${esc(filters.to)}</h1>${rangeForm('/items', filters, true)}${itemsSection('/items', items, filters)}`,
    '/items',
  );
}
