// Receivables not paid yet, by age past their due date, and the list of open ones.
import type { OpenReceivable, ReceivableAgeBucket } from '@paykit/ledger';
import type { Page } from '@paykit/store';
import { count, money } from './format.ts';
import { esc, page, table } from './html.ts';
import { dayCell, exportLinks, idCell, listView, n, td, type Column } from './list.ts';

export function agesTable(buckets: readonly ReceivableAgeBucket[]): string {
  return table(
    ['age', 'receivables', 'amount'],
    buckets.map((b) => [
      `<td><a href="/receivables?age=${encodeURIComponent(b.age)}">${esc(b.age)}</a></td>`,
      `<td class="n" data-age-count="${esc(b.age)}">${esc(count(b.count))}</td>`,
      `<td class="n" data-age-amount="${esc(b.age)}">${esc(money(b.amount))}</td>`,
    ]),
    'data-table="receivable-ages"',
  );
}

const RECEIVABLE_COLUMNS: Column<OpenReceivable>[] = [
  { label: 'receivable', sort: 'id', cell: (r) => idCell(r.id) },
  { label: 'due', sort: 'due', cell: (r) => dayCell(r.dueDate) },
  { label: 'days late', cell: (r) => n(r.daysLate) },
  { label: 'age', cell: (r) => td(r.age, r.daysLate > 0 ? 'stale' : '') },
  { label: 'amount', cell: (r) => n(money(r.amount)) },
  { label: 'still owed', sort: 'amount', cell: (r) => n(money(r.open)) },
  { label: 'account', cell: (r) => td(r.beneficiaryAccount) },
  { label: 'reference', cell: (r) => td(r.reference ?? '') },
  { label: 'concept', cell: (r) => td(r.concept ?? '') },
];

export function receivablesPage(
  buckets: readonly ReceivableAgeBucket[],
  list: Page<OpenReceivable> & { amount: string },
  params: URLSearchParams,
  sort: string | undefined,
  today: string,
): string {
  return page(
    'Receivables · paykit',
    `<h1>Receivables not paid yet, by age on ${esc(today)}</h1>
<p>Open receivables (no credit has paid them) by days past their due date, on the Mexico City day of now. ${exportLinks('receivables-by-age', new URLSearchParams())}</p>
${agesTable(buckets)}<h2>Open receivables${params.getAll('age').length > 0 ? `: ${esc(params.getAll('age').join(', '))}` : ''}</h2>
${listView({ path: '/receivables', params, sort, defaultSort: 'due', page: list, columns: RECEIVABLE_COLUMNS, attrs: 'data-table="receivables"', exportName: 'receivables', noun: 'receivable', extra: `${money(list.amount)} in all` })}`,
    '/receivables',
  );
}
