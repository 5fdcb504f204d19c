// The audit trail: who logged in, logged out and acted, when, from where, and the outcome.
import type { Page } from '@paykit/store';
import type { AuditRecord } from '../data/audit.ts';
import { esc, page } from './html.ts';
import { listView, td, timeCell, type Column } from './list.ts';

const AUDIT_COLUMNS: Column<AuditRecord>[] = [
  { label: 'when', sort: 'at', cell: (a) => timeCell(a.at) },
  { label: 'who', cell: (a) => td(a.operator ?? 'this machine (no login)') },
  { label: 'from', cell: (a) => td(a.address) },
  { label: 'what', cell: (a) => `<td data-audit-action>${esc(a.action)}</td>` },
  { label: 'on', cell: (a) => td(a.target ?? '') },
  {
    label: 'outcome',
    cell: (a) =>
      `<td class="${a.outcome === 'success' ? 'matched' : 'mismatched'}" data-audit-outcome>${esc(a.outcome)}</td>`,
  },
  { label: 'detail', cell: (a) => td(a.detail ?? '') },
];

export function auditPage(list: Page<AuditRecord>, params: URLSearchParams, sort: string | undefined): string {
  return page(
    'Audit trail · paykit',
    `<h1>Audit trail</h1><p>Every login (right, wrong or refused), every logout and every action (retrying parked events, releasing held money): who, when, from where, what, and the outcome. <code>action=</code> and <code>outcome=</code> narrow it.</p>
${listView({ path: '/audit', params, sort, defaultSort: '-at', page: list, columns: AUDIT_COLUMNS, attrs: 'data-table="audit"', exportName: 'audit', noun: 'audit record' })}`,
    '/audit',
  );
}
