// Parked events: stored events that could not be applied, with the form that retries them.
import type { ParkedEvent } from '@paykit/ledger';
import type { Page } from '@paykit/store';
import { page } from './html.ts';
import { eventLink, listView, n, td, timeCell, type Column } from './list.ts';

export const PARKED_COLUMNS: Column<ParkedEvent>[] = [
  { label: 'event', sort: 'seq', cell: (p) => `<td>${eventLink(p.seq)}</td>` },
  { label: 'type', sort: 'type', cell: (p) => td(p.eventType) },
  { label: 'reason', cell: (p) => td(p.reason) },
  { label: 'attempts', sort: 'attempts', cell: (p) => n(p.attempts) },
  { label: 'retry', cell: (p) => td(p.retry ? 'queued' : '') },
  { label: 'parked at', sort: 'parked', cell: (p) => timeCell(p.parkedAt) },
];

export function retryForm(list: Page<ParkedEvent>): string {
  return list.total > 0
    ? '<form method="post" action="/parked/retry"><button type="submit">Retry every parked event</button></form>'
    : '';
}

export function parkedPage(list: Page<ParkedEvent>, params: URLSearchParams, sort: string | undefined): string {
  return page(
    'Parked events · paykit',
    `<h1>Parked events</h1><p>Stored events that could not be applied, with the reason; they never hold back the events behind them.</p>
${listView({ path: '/parked', params, sort, defaultSort: 'seq', page: list, columns: PARKED_COLUMNS, attrs: 'data-table="parked"', exportName: 'parked', noun: 'parked event' })}${retryForm(list)}`,
    '/parked',
  );
}
