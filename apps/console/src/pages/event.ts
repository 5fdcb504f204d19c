// One stored event: what the gateway recorded of it, and its payload with card data and secrets
// redacted; or, for an event of a month archived past the retention, the archive that holds it
// and how to bring it back.
import { redactBody } from '@paykit/runtime';
import type { EventArchive, StoredEvent } from '@paykit/store';
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

/** An event of an archived month: not in the store, but in the file `paykit store restore` brings back. */
export function archivedEventPage(seq: string, archive: EventArchive): string {
  return page(
    `event #${seq}: archived`,
    `<p><a href="/">← reconciliation</a></p><h1>Stored event #${esc(seq)}: archived</h1>
<p>Its month (${esc(archive.partition)}) was archived past the retention and is no longer in the store; its
figures are still in the books. To read the event, bring the month back on the ops machine:</p>
<pre>pnpm paykit store restore ${esc(archive.file)}</pre>
${table(
  ['archive', ''],
  [
    [td('file'), td(archive.file)],
    [td('events'), n(archive.events)],
    [td('seqs'), td(`${archive.firstSeq ?? ''}–${archive.lastSeq ?? ''}`)],
    [td('archived at'), timeCell(archive.archivedAt)],
    [td('sha256'), td(archive.sha256)],
  ],
)}`,
  );
}

export function missingEventPage(seq: string): string {
  return page('not found', `<p>No stored event #${esc(seq)}. <a href="/">Back</a></p>`);
}
