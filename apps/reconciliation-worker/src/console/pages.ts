// The console's pages: one overview (summary, charts, aging, discrepancies, conflicts, drift, parked
// events, report matches) and one page per stored event. Server-rendered; the only script is none.
import { CONFLICT_KINDS, ITEM_STATES, PRODUCTS, type StoredEvent } from '@paykit/store';
import { matchRateChart, volumeChart } from './charts.ts';
import type { loadConsole } from './data.ts';
import type { ConsoleFilters } from './filters.ts';
import { esc, page, table } from './html.ts';

type ConsoleData = Awaited<ReturnType<typeof loadConsole>>;

const n = (value: unknown) => `<td class="n">${esc(value)}</td>`;
const td = (value: unknown, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${esc(value)}</td>`;
const rate = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);

function query(filters: ConsoleFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ from: filters.from, to: filters.to });
  for (const state of filters.states) params.append('state', state);
  for (const product of filters.products) params.append('product', product);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return params.toString();
}

export function overviewPage(data: ConsoleData, filters: ConsoleFilters, info: { staleAfterSeconds: number; applied: number; lastError: string | null }): string {
  const totals = data.days.reduce((t, d) => ({ count: t.count + d.count, matched: t.matched + d.matched, refunded: t.refunded + d.refunded }), { count: 0, matched: 0, refunded: 0 });
  const dayRows = data.days.map((d) => [
    td(d.day), n(d.count), n(d.matched), n(d.refunded), n(d.pending), n(d.stale), n(d.mismatched), n(d.orphan), n(d.conflict), n(d.amountIn), n(d.amountOut),
    `<td class="n" data-match-rate="${esc(d.day)}">${rate(d.matchRate)}</td>`,
  ].map((cell, i) => (i === 1 ? cell.replace('<td', `<td data-day-count="${esc(d.day)}"`) : cell)));
  const productRows = data.summary.map((r) => [
    td(r.day), td(r.product), ...ITEM_STATES.map((s) => n(`${r.states[s].count} · ${r.states[s].amount}`)), `<td class="n" data-total="${esc(`${r.day}|${r.product}`)}">${esc(r.total.count)}</td>`, n(r.total.amount), n(rate(r.matchRate)),
  ]);
  const itemRows = data.items.map((i) => [
    td(i.day), td(i.product), `<td class="${esc(i.state)}">${esc(i.state)}</td>`, td(i.fields.join(', ')), n(i.amount ?? ''), td(i.status), td(i.id), td(i.trackingKey ?? ''), td(i.note ?? ''),
    `<td>${i.eventSeqs.map((seq) => `<a href="/events/${esc(seq)}">#${esc(seq)}</a>`).join(' ')}</td>`,
  ]);
  const conflictRows = data.conflicts.map((c) => [
    td(c.recordedAt.toISOString()), `<td class="conflict">${esc(c.kind)}</td>`, td(c.transactionId ?? ''), td(c.eventType), n(c.firstAmount ?? ''), n(c.amount ?? ''),
    `<td><a href="/events/${esc(c.firstSeq)}">#${esc(c.firstSeq)}</a>${c.eventSeq === null ? '' : ` <a href="/events/${esc(c.eventSeq)}">#${esc(c.eventSeq)}</a>`}</td>`, td(c.detail),
  ]);
  const driftRows = data.drift.map((r) => [
    td(r.source), td(r.eventType), td(r.pointer || '(root)'), td(r.kind), `<td class="n" data-drift-count>${esc(r.count)}</td>`, td(r.firstSeen.toISOString()), td(r.lastSeen.toISOString()),
    td(r.example.expected), td(r.example.seen), `<td><a href="/events/${esc(r.example.seq)}">#${esc(r.example.seq)}</a></td>`,
  ]);
  const agingRows = data.aging.map((b) => [td(b.bucket), n(b.count), n(b.amount)]);
  const parkedRows = data.parked.map((p) => [`<td><a href="/events/${esc(p.seq)}">#${esc(p.seq)}</a></td>`, td(p.eventType), td(p.reason), n(p.attempts), td(p.retry ? 'queued' : ''), td(p.parkedAt.toISOString())]);
  const reportRows = data.reports.map((m) => [td(m.fileName), n(m.lineNo), td(m.transactionId), n(m.amount), td(m.status), n(m.recordAmount ?? ''), n(m.eventAmount ?? ''), td(m.eventStatus ?? ''), `<td class="${esc(m.state)}">${esc(m.state)}</td>`, td(m.fields.join(', '))]);
  const check = (name: string, values: readonly string[], chosen: readonly string[]) =>
    `<label>${esc(name)}<select name="${esc(name)}" multiple size="4">${values.map((v) => `<option${chosen.includes(v) ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select></label>`;
  const q = query(filters);
  return page(
    'paykit reconciliation',
    `<h1>Reconciliation ${esc(filters.from)} to ${esc(filters.to)} (Mexico City days)</h1>
<nav><a href="/summary.csv?${q}">summary.csv</a><a href="/summary.json?${q}">summary.json</a><a href="/items.csv?${q}">items.csv</a><a href="/items.json?${q}">items.json</a>
<a href="/parked.csv">parked.csv</a><a href="/reports.csv">reports.csv</a><a href="/conflicts.csv">conflicts.csv</a><a href="/drift.csv">drift.csv</a></nav>
<p>Match rate over the range: <strong data-overall-match-rate>${rate(totals.count === 0 ? null : (totals.matched + totals.refunded) / totals.count)}</strong> of <strong data-overall-count>${totals.count}</strong> items.
Pending items become stale after ${esc(info.staleAfterSeconds)} s. This worker applied ${esc(info.applied)} events since it started.${info.lastError ? ` <strong class="mismatched">Last round failed: ${esc(info.lastError)}</strong>` : ''}</p>
<h2>Daily summary</h2>
${table(['day', 'items', 'matched', 'refunded', 'pending', 'stale', 'mismatched', 'orphan', 'conflict', 'in (MXN)', 'out (MXN)', 'match rate'], dayRows, 'data-table="days"')}
<h2>Volume in and out</h2>${volumeChart(data.days.map((d) => ({ day: d.day, in: d.amountIn, out: d.amountOut })))}
<h2>Match rate</h2>${matchRateChart(data.days.map((d) => ({ day: d.day, rate: d.matchRate })))}
<h2>By day and product (count · amount per state)</h2>
${table(['day', 'product', ...ITEM_STATES, 'items', 'amount', 'match rate'], productRows, 'data-table="products"')}
<h2>Aging of pending items</h2>${table(['age', 'items', 'amount (MXN)'], agingRows, 'data-table="aging"')}
<h2 id="items">Items</h2>
<form class="filters" method="get" action="/">
<label>from<input type="date" name="from" value="${esc(filters.from)}"></label><label>to<input type="date" name="to" value="${esc(filters.to)}"></label>
${check('state', ITEM_STATES, filters.states)}${check('product', PRODUCTS, filters.products)}<button type="submit">Filter</button></form>
<p>${esc(data.items.length)} shown${filters.states.length === 0 ? ' (every state)' : ''}. Export this list: <a href="/items.csv?${q}">CSV</a> · <a href="/items.json?${q}">JSON</a></p>
${table(['day', 'product', 'state', 'fields', 'amount', 'status', 'transaction', 'tracking key', 'note', 'events'], itemRows, 'data-table="items"')}
<h2 id="conflicts">Conflicts</h2>
<p>Facts that contradict one already applied: the first stands in the ledger, the item reads "conflict" until it is settled with the platform.
<strong data-conflict-count>${esc(data.conflictTotals.total)}</strong> recorded (${CONFLICT_KINDS.map((kind) => `${esc(kind)} ${esc(data.conflictTotals[kind])}`).join(', ')}).
Export: <a href="/conflicts.csv">CSV</a> · <a href="/conflicts.json">JSON</a></p>
${table(['recorded at', 'kind', 'transaction', 'type', 'amount applied', 'conflicting amount', 'events (applied, conflicting)', 'detail'], conflictRows, 'data-table="conflicts"')}
<h2 id="drift">Drift</h2>
<p>Deliveries that differ from the spec, one line per source, event type, field and kind of difference; an event counts once.
<strong data-drift-records>${esc(data.drift.length)}</strong> record${data.drift.length === 1 ? '' : 's'}. <code>paykit drift --overlay</code> proposes the spec change.
Export: <a href="/drift.csv">CSV</a> · <a href="/drift.json">JSON</a></p>
${table(['source', 'type', 'field (JSON Pointer)', 'kind', 'events', 'first seen', 'last seen', 'expected', 'seen (latest)', 'latest event'], driftRows, 'data-table="drift"')}
<h2>Parked events</h2>
${table(['event', 'type', 'reason', 'attempts', 'retry', 'parked at'], parkedRows, 'data-table="parked"')}
${data.parked.length > 0 ? '<form method="post" action="/parked/retry"><button type="submit">Retry every parked event</button></form>' : ''}
<h2>Report lines (three-way match)</h2>
${table(['file', 'line', 'transaction', 'amount', 'status', 'our amount', 'event amount', 'event status', 'state', 'fields'], reportRows, 'data-table="reports"')}`,
  );
}

export function eventPage(event: StoredEvent): string {
  return page(
    `event #${event.seq}`,
    `<p><a href="/">← reconciliation</a></p><h1>Stored event #${esc(event.seq)}: ${esc(event.eventType)}</h1>
${table(['field', 'value'], [
      [td('source'), td(event.source)], [td('dedupe key'), td(event.dedupeKey)], [td('transaction id'), td(event.transactionId ?? '')],
      [td('received at'), td(event.receivedAt.toISOString())], [td('gateway outcome'), td(`${event.outcome} (${event.answerStatus})${event.reason ? `: ${event.reason}` : ''}`)],
      [td('deliveries'), n(event.deliveries)], [td('drift'), td(event.drift.map((d) => `${d.path}: ${d.kind}`).join('; '))],
    ])}
<h2>Payload</h2><pre>${esc(JSON.stringify(event.payload, null, 2))}</pre>`,
  );
}
