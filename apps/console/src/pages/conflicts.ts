// Conflicts: facts that contradict one already applied, by kind.
import { CONFLICT_KINDS, type Conflict } from '@paykit/ledger';
import type { Page } from '@paykit/store';
import type { ConsoleData } from '../data/overview.ts';
import { money } from './format.ts';
import { esc, page } from './html.ts';
import { eventLink, idCell, listView, n, td, timeCell, type Column } from './list.ts';

export const CONFLICT_COLUMNS: Column<Conflict>[] = [
  { label: 'recorded at', sort: 'id', cell: (c) => timeCell(c.recordedAt) },
  { label: 'kind', sort: 'kind', cell: (c) => td(c.kind, 'conflict') },
  { label: 'transaction', sort: 'transaction', cell: (c) => idCell(c.transactionId) },
  { label: 'type', cell: (c) => td(c.eventType) },
  { label: 'amount applied', cell: (c) => n(money(c.firstAmount)) },
  { label: 'conflicting amount', sort: 'amount', cell: (c) => n(money(c.amount)) },
  {
    label: 'events (applied, conflicting)',
    cell: (c) => `<td>${eventLink(c.firstSeq)}${c.eventSeq === null ? '' : ` ${eventLink(c.eventSeq)}`}</td>`,
  },
  { label: 'detail', cell: (c) => td(c.detail) },
];

export function conflictsIntro(totals: ConsoleData['conflictTotals']): string {
  return `<p>Facts that contradict one already applied: the first stands in the ledger, the item reads "conflict" until it is settled with the platform.
<strong data-conflict-count>${esc(totals.total)}</strong> recorded (${CONFLICT_KINDS.map((kind) => `${esc(kind)} ${esc(totals[kind])}`).join(', ')}).</p>`;
}

export function conflictsPage(
  list: Page<Conflict>,
  totals: ConsoleData['conflictTotals'],
  params: URLSearchParams,
  sort: string | undefined,
): string {
  const chosen = params.getAll('kind');
  const kinds = [['all', '/conflicts'], ...CONFLICT_KINDS.map((kind) => [kind, `/conflicts?kind=${kind}`])].map(
    ([label, link]) =>
      (label === 'all' ? chosen.length === 0 : chosen.length === 1 && chosen[0] === label)
        ? `<strong>${esc(label)}</strong>`
        : `<a href="${esc(link)}">${esc(label)}</a>`,
  );
  return page(
    'Conflicts · paykit',
    `<h1>Conflicts</h1>${conflictsIntro(totals)}<p class="pager">Kind: ${kinds.join(' ')}</p>
${listView({ path: '/conflicts', params, sort, defaultSort: '-id', page: list, columns: CONFLICT_COLUMNS, attrs: 'data-table="conflicts"', exportName: 'conflicts', noun: 'conflict' })}`,
    '/conflicts',
  );
}
