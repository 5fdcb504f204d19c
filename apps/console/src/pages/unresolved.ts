// The transfers sent without a recorded answer (write-ahead intents with no transaction): each may
// have moved money the books do not show yet, so each is shown with its amount, its age and who
// sent it, with the one safe way to resolve it. Nothing here resends anything: only a person
// running `paykit transfers resolve` replays a request.
import type { UnresolvedIntent } from '@paykit/ledger';
import { count, duration, money } from './format.ts';
import { esc, page, table } from './html.ts';
import { n, td, timeCell } from './list.ts';

function row(intent: UnresolvedIntent): string[] {
  return [
    timeCell(intent.createdAt),
    td(duration(intent.ageSeconds)),
    n(money(intent.amount)),
    td(intent.operation),
    td(intent.externalReference ?? ''),
    td(intent.actor),
    n(intent.attempts),
    td(
      intent.replayable ? `until ${intent.replayableUntil.toISOString()}` : 'no: past the 24 h window',
      intent.replayable ? '' : 'stale',
    ),
    `<td><code>paykit transfers resolve ${esc(intent.id)}</code></td>`,
  ];
}

export function unresolvedPage(intents: UnresolvedIntent[], totals: { count: number; amount: string }): string {
  return page(
    'Unresolved transfers · paykit',
    `<h1>Unresolved transfers</h1>
<p>Transfers written down before they were sent whose answer never reached the ledger: each may have moved money that the books do not show yet.
<strong data-unresolved-count>${esc(count(totals.count))}</strong> unresolved, <strong data-unresolved-amount>${esc(money(totals.amount))}</strong> in all (money out).
A reversal that names one exactly attaches it by itself; otherwise replay it with its Idempotency-Key: the platform answers the first transaction if it arrived, within 24 h of the first request.</p>
${table(
  ['sent at (UTC)', 'age', 'amount', 'operation', 'reference', 'sent by', 'attempts', 'replay answered', 'resolve'],
  intents.map(row),
  'data-table="unresolved"',
)}`,
    '/unresolved',
  );
}
