// One stored event: what the gateway recorded of it, and its payload with card data and secrets
// redacted.
import { redactBody } from '@paykit/runtime';
import type { StoredEvent } from '@paykit/store';
import { esc, page, table } from './html.ts';
import { n, td, timeCell } from './list.ts';

export function eventPage(event: StoredEvent): string {
  return page(
    `event #${event.seq}`,
    `<p><a href="/">← reconciliation</a></p><h1>Stored event #${esc(event.seq)}: ${esc(event.eventType)}</h1>
${table(
  ['field', 'value'],
  [
    [td('source'), td(event.source)],
    [td('dedupe key'), td(event.dedupeKey)],
    [td('transaction id'), td(event.transactionId ?? '')],
    [td('received at'), timeCell(event.receivedAt)],
    [td('gateway outcome'), td(`${event.outcome} (${event.answerStatus})${event.reason ? `: ${event.reason}` : ''}`)],
    [td('deliveries'), n(event.deliveries)],
    [td('drift'), td(event.drift.map((d) => `${d.path}: ${d.kind}`).join('; '))],
  ],
)}
<h2>Payload</h2><pre>${esc(JSON.stringify(redactBody(event.payload), null, 2))}</pre>`,
  );
}
