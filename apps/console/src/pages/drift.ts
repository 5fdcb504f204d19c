// Drift: deliveries that differ from the spec, one line per source, event type, field and kind.
import type { DriftRecord, Page } from '@paykit/store';
import { esc, page } from './html.ts';
import { eventLink, listView, td, timeCell, type Column } from './list.ts';

export const DRIFT_COLUMNS: Column<DriftRecord>[] = [
  { label: 'source', cell: (r) => td(r.source) },
  { label: 'type', sort: 'type', cell: (r) => td(r.eventType) },
  { label: 'field (JSON Pointer)', cell: (r) => td(r.pointer || '(root)') },
  { label: 'kind', cell: (r) => td(r.kind) },
  { label: 'events', sort: 'count', cell: (r) => `<td class="n" data-drift-count>${esc(r.count)}</td>` },
  { label: 'first seen', cell: (r) => timeCell(r.firstSeen) },
  { label: 'last seen', sort: 'last', cell: (r) => timeCell(r.lastSeen) },
  { label: 'expected', cell: (r) => td(r.example.expected) },
  { label: 'seen (latest)', cell: (r) => td(r.example.seen) },
  { label: 'latest event', cell: (r) => `<td>${eventLink(r.example.seq)}</td>` },
];

export function driftIntro(total: number): string {
  return `<p>Deliveries that differ from the spec, one line per source, event type, field and kind of difference; an event counts once.
<strong data-drift-records>${esc(total)}</strong> record${total === 1 ? '' : 's'}. <code>paykit drift --overlay</code> proposes the spec change.</p>`;
}

export function driftPage(list: Page<DriftRecord>, params: URLSearchParams, sort: string | undefined): string {
  return page(
    'Drift · paykit',
    `<h1>Drift</h1>${driftIntro(list.total)}
${listView({ path: '/drift', params, sort, defaultSort: '-count', page: list, columns: DRIFT_COLUMNS, attrs: 'data-table="drift"', exportName: 'drift', noun: 'drift record' })}`,
    '/drift',
  );
}
