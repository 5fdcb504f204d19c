// The imported reports: each line against our record and the platform's events (three-way
// match), and the files, recognised by their content.
import type { ReportFile, ReportMatch } from '@paykit/ledger';
import type { Page } from '@paykit/store';
import { money } from './format.ts';
import { esc, page } from './html.ts';
import { eventLink, idCell, listView, n, td, timeCell, type Column } from './list.ts';

export const REPORT_COLUMNS: Column<ReportMatch>[] = [
  { label: 'file', sort: 'line', cell: (m) => td(m.fileName) },
  { label: 'line', cell: (m) => n(m.lineNo) },
  { label: 'transaction', cell: (m) => idCell(m.transactionId) },
  { label: 'amount', cell: (m) => n(money(m.amount)) },
  { label: 'status', cell: (m) => td(m.status) },
  { label: 'our amount', cell: (m) => n(money(m.recordAmount)) },
  { label: 'event amount', cell: (m) => n(money(m.eventAmount)) },
  { label: 'event status', cell: (m) => td(m.eventStatus ?? '') },
  { label: 'state', cell: (m) => td(m.state, m.state) },
  { label: 'fields', cell: (m) => td(m.fields.join(', ')) },
];

export function reportsPage(list: Page<ReportMatch>, params: URLSearchParams, sort: string | undefined): string {
  return page(
    'Report lines · paykit',
    `<h1>Report lines (three-way match)</h1>
<p>Each line of every imported report against our record and the platform's events. A file imported again under another name is recognised by its content and its lines count once: <a href="/reports/files">report files</a>.</p>
${listView({ path: '/reports', params, sort, defaultSort: 'line', page: list, columns: REPORT_COLUMNS, attrs: 'data-table="reports"', exportName: 'reports', noun: 'report line' })}`,
    '/reports',
  );
}

const FILE_COLUMNS: Column<ReportFile>[] = [
  {
    label: 'file',
    sort: 'name',
    cell: (f) => `<td><a href="/reports?file=${encodeURIComponent(f.fileName)}">${esc(f.fileName)}</a></td>`,
  },
  { label: 'lines', cell: (f) => n(f.lines ?? '') },
  { label: 'imported at', cell: (f) => timeCell(f.importedAt, 'not yet') },
  { label: 'REPORT event', cell: (f) => (f.eventSeq ? `<td>${eventLink(f.eventSeq)}</td>` : td('')) },
  { label: 'created at', cell: (f) => timeCell(f.createdAt) },
  { label: 'latest transaction listed', cell: (f) => timeCell(f.contentTime) },
  {
    label: 'content',
    cell: (f) =>
      f.duplicateOf
        ? `<td data-duplicate-of="${esc(f.duplicateOf)}">already imported as ${esc(f.duplicateOf)}: its lines count there, once</td>`
        : td(f.importedAt ? 'its own' : ''),
  },
];

export function reportFilesPage(
  list: Page<ReportFile> & { distinct: number },
  params: URLSearchParams,
  sort: string | undefined,
): string {
  return page(
    'Report files · paykit',
    `<h1>Report files</h1><p><strong data-distinct-reports>${esc(list.distinct)}</strong> distinct report${list.distinct === 1 ? '' : 's'} by content.</p>
<p>Of several files listing a transaction, the newest is the one it is compared with: by created at (its REPORT event), else by the latest transaction it lists; never by name.</p>
${listView({ path: '/reports/files', params, sort, defaultSort: 'name', page: list, columns: FILE_COLUMNS, attrs: 'data-table="report-files"', noun: 'report file' })}`,
    '/reports',
  );
}
