// Held credits: money in the account that is not money in until an operator releases it.
import type { HeldCredit } from '@paykit/ledger';
import { money } from './format.ts';
import { esc, page, table } from './html.ts';
import { eventLink, n, td, timeCell, type Column } from './list.ts';

const HELD_COLUMNS: Column<HeldCredit>[] = [
  { label: 'event', cell: (h) => `<td>${eventLink(h.seq)}</td>` },
  { label: 'received', cell: (h) => timeCell(h.transactionAt) },
  { label: 'account', cell: (h) => td(h.account) },
  { label: 'amount', cell: (h) => n(money(h.amount)) },
  { label: 'payer', cell: (h) => td(h.payerName ?? h.payerAccount ?? '') },
  { label: 'held because', cell: (h) => td(`${h.outcome}: ${h.reason ?? ''}`) },
  {
    label: 'gateway now says',
    cell: (h) =>
      td(
        h.redecision === null
          ? 'not re-decided yet'
          : `${h.redecision.outcome}${h.redecision.reason ? `: ${h.redecision.reason}` : ''}`,
      ),
  },
  {
    label: 'release',
    cell: (h) =>
      h.redecision?.outcome === 'accepted'
        ? `<td><form method="post" action="/held/${encodeURIComponent(h.transactionId)}/release"><button type="submit">Release ${esc(money(h.amount))}</button></form></td>`
        : td(`re-decide first: paykit held release ${h.seq}`),
  },
];

export function heldTable(held: readonly HeldCredit[]): string {
  if (held.length === 0) return '<p class="empty"><em>No credit is held.</em></p>';
  return table(
    HELD_COLUMNS.map((c) => c.label),
    held.map((h) => HELD_COLUMNS.map((c) => c.cell(h))),
    'data-table="held"',
  );
}

export function heldPage(held: readonly HeldCredit[]): string {
  return page(
    'Held credits · paykit',
    `<h1>Held credits</h1><p>Credits the gateway held (answered 202) or flagged: in our account at the platform, but neither money in nor a payment of any receivable until an operator releases them. A release needs the gateway to accept the credit under its current policy (<code>paykit held release &lt;seq&gt;</code> asks it and releases); who released what, and when, is kept.</p>
${heldTable(held)}`,
    '/held',
  );
}
