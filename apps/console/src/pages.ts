// The console's pages, server-rendered (no script): the overview (summary cards, charts, the
// daily figures, money in and out from the journal, receivables by age, the first rows of every
// list) and a page per list (items, money, receivables, held credits, conflicts, parked events,
// drift, report lines and files),
// each with its count, sortable headers, previous/next links and exports; and a page per stored event (its payload with card data and secrets redacted).
import { redactBody } from '@paykit/runtime';
import {
  CONFLICT_KINDS,
  ITEM_STATES,
  MONEY_FIGURES,
  PRODUCTS,
  type Conflict,
  figureApplies,
  figureOf,
  type DirectionTotals,
  type HeldCredit,
  type MoneyRow,
  type OpenReceivable,
  type ParkedEvent,
  type ReceivableAgeBucket,
  type ReconItem,
  type ReportFile,
  type ReportLineRef,
  type ReportMatch,
} from '@paykit/ledger';
import type { DriftRecord, Page, StoredEvent } from '@paykit/store';
import { matchRateChart, volumeChart } from './charts.ts';
import type { AuditRecord } from './audit.ts';
import type { WorkerStatus } from './worker-status.ts';
import type { loadConsole } from './data.ts';
import type { ConsoleFilters } from './filters.ts';
import { count, duration, money, percent, productName } from './format.ts';
import { esc, page, table } from './html.ts';
import { dayCell, eventLink, exportLinks, href, idCell, listView, n, td, timeCell, type Column } from './list.ts';

type ConsoleData = Awaited<ReturnType<typeof loadConsole>>;

/** The filters of the item lists as a query (without the page and the order). */
export function filterParams(filters: ConsoleFilters): URLSearchParams {
  const params = new URLSearchParams({ from: filters.from, to: filters.to });
  for (const state of filters.states) params.append('state', state);
  for (const product of filters.products) params.append('product', product);
  if (filters.limit !== 100) params.set('limit', String(filters.limit));
  return params;
}

const rangeParams = (filters: ConsoleFilters) => new URLSearchParams({ from: filters.from, to: filters.to });

function rangeForm(path: string, filters: ConsoleFilters, withItemFilters = false): string {
  const select = (name: string, values: readonly string[], chosen: readonly string[]) =>
    `<label>${esc(name)}<select name="${esc(name)}" multiple size="4">${values.map((v) => `<option value="${esc(v)}"${chosen.includes(v) ? ' selected' : ''}>${esc(name === 'product' ? productName(v) : v)}</option>`).join('')}</select></label>`;
  return `<form class="filters" method="get" action="${esc(path)}">
<label>from<input type="date" name="from" value="${esc(filters.from)}"></label><label>to<input type="date" name="to" value="${esc(filters.to)}"></label>
${withItemFilters ? `${select('state', ITEM_STATES, filters.states)}${select('product', PRODUCTS, filters.products)}` : ''}<button type="submit">Filter</button></form>`;
}

// ---- items
const ITEM_COLUMNS: Column<ReconItem>[] = [
  { label: 'day', sort: 'at', cell: (i) => dayCell(i.day) },
  { label: 'product', sort: 'product', cell: (i) => td(productName(i.product)) },
  { label: 'state', sort: 'state', cell: (i) => td(i.state, i.state) },
  { label: 'outcome', cell: (i) => td(i.outcome, i.outcome) },
  { label: 'fields', cell: (i) => td(i.fields.join(', ')) },
  { label: 'direction', cell: (i) => td(i.direction) },
  { label: 'amount', sort: 'amount', cell: (i) => n(money(i.amount)) },
  { label: 'status', sort: 'status', cell: (i) => td(i.status) },
  { label: 'transaction', cell: (i) => idCell(i.id) },
  { label: 'tracking key', cell: (i) => td(i.trackingKey ?? '') },
  { label: 'note', cell: (i) => td(i.note ?? '') },
  { label: 'report line', cell: reportLineCell },
  { label: 'events', cell: (i) => `<td>${i.eventSeqs.map(eventLink).join(' ')}</td>` },
];

const reportLineLink = (line: ReportLineRef) =>
  `<a href="/reports?file=${encodeURIComponent(line.fileName)}">${esc(line.fileName)} line ${esc(line.lineNo)}</a>`;

/** The line of the newest report the item was compared with, and an older file's line that said otherwise. */
function reportLineCell(item: ReconItem): string {
  const { report, reportDisagreement: older } = item;
  if (!report) return td('');
  const disagreement = older
    ? `<br><span class="disagreement" data-report-disagreement="${esc(`${older.fileName}:${older.lineNo}`)}">older: ${reportLineLink(older)} says ${esc(older.status)} ${esc(money(older.amount))}</span>`
    : '';
  return `<td data-report-line="${esc(`${report.fileName}:${report.lineNo}`)}">${reportLineLink(report)}${disagreement}</td>`;
}

function itemsSection(path: string, items: Page<ReconItem> & DirectionTotals, filters: ConsoleFilters): string {
  return listView({
    path,
    params: filterParams(filters),
    sort: filters.sort,
    defaultSort: '-at',
    page: items,
    columns: ITEM_COLUMNS,
    attrs: 'data-table="items"',
    exportName: 'items',
    noun: 'item',
    extra: `${money(items.amountIn)} in, ${money(items.amountOut)} out${filters.states.length === 0 ? ', every state' : ''}`,
  });
}

export function itemsPage(items: Page<ReconItem> & DirectionTotals, filters: ConsoleFilters): string {
  return page(
    'Items · paykit',
    `<h1>Items ${esc(filters.from)} to ${esc(filters.to)}</h1>${rangeForm('/items', filters, true)}${itemsSection('/items', items, filters)}`,
    '/items',
  );
}

// ---- money (from the journal) and receivables
const FIGURE_LABEL: Record<MoneyRow['figure'], string> = {
  settled: 'settled (gross)',
  returned: 'returned (in: refunds and chargebacks; out: reversals)',
  net: 'net (settled less returned)',
  in_transit: 'in transit (sent, not final)',
  held: 'held (not money in until released)',
  unconfirmed: 'unconfirmed (sent, no answer recorded: may have left)',
};

function moneyTable(rows: readonly MoneyRow[]): string {
  const cells = (direction: 'in' | 'out', figure: MoneyRow['figure']) => {
    if (!figureApplies(direction, figure)) return ['<td class="n">—</td>', '<td class="n">—</td>'];
    const f = figureOf(rows, direction, figure);
    return [n(count(f.count)), `<td class="n" data-money="${direction}|${figure}">${esc(money(f.amount))}</td>`];
  };
  const body = MONEY_FIGURES.map((figure) => [
    `<td class="${figure}">${esc(FIGURE_LABEL[figure])}</td>`,
    ...cells('in', figure),
    ...cells('out', figure),
  ]);
  return table(['figure', 'in: items', 'money in', 'out: items', 'money out'], body, 'data-table="money"');
}

export function moneyPage(rows: readonly MoneyRow[], filters: ConsoleFilters): string {
  const days = [...new Set(rows.map((v) => v.day).filter((d): d is string => d !== null))];
  const shown = (['in', 'out'] as const).flatMap((direction) =>
    MONEY_FIGURES.filter((figure) => figureApplies(direction, figure)).map((figure) => ({ direction, figure })),
  );
  const dayRows = days.map((day) => [
    dayCell(day),
    ...shown.map(({ direction, figure }) => n(money(figureOf(rows, direction, figure, day).amount))),
  ]);
  return page(
    'Money in and out · paykit',
    `<h1>Money in and out, ${esc(filters.from)} to ${esc(filters.to)}</h1>${rangeForm('/volumes', filters)}
<p>From the journal, by value day: what settled, what was returned against it and the net of the two, per direction (money in and money out are never added together); transfers still in transit and credits held apart. ${exportLinks('volumes', rangeParams(filters))}</p>
${moneyTable(rows)}<h2>By day</h2>${table(['day', ...shown.map(({ direction, figure }) => `${direction}: ${figure.replace('_', ' ')}`)], dayRows, 'data-table="money-by-day"')}`,
    '/volumes',
  );
}

// ---- held credits
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

function agesTable(buckets: readonly ReceivableAgeBucket[]): string {
  return table(
    ['age', 'receivables', 'amount'],
    buckets.map((b) => [
      `<td><a href="/receivables?age=${encodeURIComponent(b.age)}">${esc(b.age)}</a></td>`,
      `<td class="n" data-age-count="${esc(b.age)}">${esc(count(b.count))}</td>`,
      `<td class="n" data-age-amount="${esc(b.age)}">${esc(money(b.amount))}</td>`,
    ]),
    'data-table="receivable-ages"',
  );
}

const RECEIVABLE_COLUMNS: Column<OpenReceivable>[] = [
  { label: 'receivable', sort: 'id', cell: (r) => idCell(r.id) },
  { label: 'due', sort: 'due', cell: (r) => dayCell(r.dueDate) },
  { label: 'days late', cell: (r) => n(r.daysLate) },
  { label: 'age', cell: (r) => td(r.age, r.daysLate > 0 ? 'stale' : '') },
  { label: 'amount', cell: (r) => n(money(r.amount)) },
  { label: 'still owed', sort: 'amount', cell: (r) => n(money(r.open)) },
  { label: 'account', cell: (r) => td(r.beneficiaryAccount) },
  { label: 'reference', cell: (r) => td(r.reference ?? '') },
  { label: 'concept', cell: (r) => td(r.concept ?? '') },
];

export function receivablesPage(
  buckets: readonly ReceivableAgeBucket[],
  list: Page<OpenReceivable> & { amount: string },
  params: URLSearchParams,
  sort: string | undefined,
  today: string,
): string {
  return page(
    'Receivables · paykit',
    `<h1>Receivables not paid yet, by age on ${esc(today)}</h1>
<p>Open receivables (no credit has paid them) by days past their due date, on the Mexico City day of now. ${exportLinks('receivables-by-age', new URLSearchParams())}</p>
${agesTable(buckets)}<h2>Open receivables${params.getAll('age').length > 0 ? `: ${esc(params.getAll('age').join(', '))}` : ''}</h2>
${listView({ path: '/receivables', params, sort, defaultSort: 'due', page: list, columns: RECEIVABLE_COLUMNS, attrs: 'data-table="receivables"', exportName: 'receivables', noun: 'receivable', extra: `${money(list.amount)} in all` })}`,
    '/receivables',
  );
}

// ---- conflicts, parked, drift, reports
const CONFLICT_COLUMNS: Column<Conflict>[] = [
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

function conflictsIntro(totals: ConsoleData['conflictTotals']): string {
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

const PARKED_COLUMNS: Column<ParkedEvent>[] = [
  { label: 'event', sort: 'seq', cell: (p) => `<td>${eventLink(p.seq)}</td>` },
  { label: 'type', sort: 'type', cell: (p) => td(p.eventType) },
  { label: 'reason', cell: (p) => td(p.reason) },
  { label: 'attempts', sort: 'attempts', cell: (p) => n(p.attempts) },
  { label: 'retry', cell: (p) => td(p.retry ? 'queued' : '') },
  { label: 'parked at', sort: 'parked', cell: (p) => timeCell(p.parkedAt) },
];

function retryForm(list: Page<ParkedEvent>): string {
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

const DRIFT_COLUMNS: Column<DriftRecord>[] = [
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

function driftIntro(total: number): string {
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

const REPORT_COLUMNS: Column<ReportMatch>[] = [
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

// ---- the audit trail
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

// ---- the overview
export function overviewPage(
  data: ConsoleData,
  filters: ConsoleFilters,
  info: {
    staleAfterSeconds: number;
    /** The worker's progress (null: the console was not told where the worker is, or it did not answer). */
    worker: WorkerStatus | null;
  },
): string {
  const totals = data.days.reduce(
    (t, d) => ({ count: t.count + d.count, matched: t.matched + d.matched, refunded: t.refunded + d.refunded }),
    { count: 0, matched: 0, refunded: 0 },
  );
  const matchRate = totals.count === 0 ? null : (totals.matched + totals.refunded) / totals.count;
  const figure = (direction: 'in' | 'out', name: MoneyRow['figure']) => figureOf(data.money, direction, name);
  const moneyIn = figure('in', 'settled');
  const moneyOut = figure('out', 'settled');
  const books = info.worker?.books ?? null;
  const cards = `<div class="cards">
<div class="card"><span>Money in (settled)</span><strong data-card="money-in">${esc(money(moneyIn.amount))}</strong><small>${esc(count(moneyIn.count))} items · returned <span data-card="money-in-returned">${esc(money(figure('in', 'returned').amount))}</span> · net <span data-card="money-in-net">${esc(money(figure('in', 'net').amount))}</span></small></div>
<div class="card"><span>Money out (settled)</span><strong data-card="money-out">${esc(money(moneyOut.amount))}</strong><small>${esc(count(moneyOut.count))} items · reversed <span data-card="money-out-returned">${esc(money(figure('out', 'returned').amount))}</span> · net <span data-card="money-out-net">${esc(money(figure('out', 'net').amount))}</span></small></div>
<div class="card"><span>In transit · held</span><strong data-card="in-transit">${esc(money(figure('out', 'in_transit').amount))}</strong><small>held apart: <a href="/held" data-card="held">${esc(money(figure('in', 'held').amount))}</a> · unconfirmed: <a href="/unresolved" data-card="unconfirmed">${esc(money(figure('out', 'unconfirmed').amount))}</a></small></div>
<div class="card"><span>Books</span><strong data-card="books" class="${books === null ? 'pending' : books.ok ? 'matched' : 'mismatched'}">${books === null ? (info.worker === null ? 'not known' : 'not checked yet') : books.ok ? 'balanced' : 'BROKEN'}</strong><small>${books === null ? '' : books.ok ? `debits equal credits; every item as its facts say (checked through posting ${esc(books.throughPosting)})` : esc(`unbalanced postings: ${books.failure?.unbalancedPostings.join(', ') || 'none'}; items off: ${books.failure?.itemsOff.map((i) => `${i.item} ${i.account} booked ${i.booked}, expected ${i.expected}`).join('; ') || 'none'}`)}</small></div>
<div class="card"><span>Match rate</span><strong data-overall-match-rate>${percent(matchRate)}</strong><small>of <span data-overall-count>${totals.count}</span> items</small></div>
<div class="card"><span>Open discrepancies</span><strong data-card="discrepancies">${esc(count(data.discrepancies.count))}</strong><small data-card="discrepancies-amount">${esc(money(data.discrepancies.amountIn))} in, ${esc(money(data.discrepancies.amountOut))} out: mismatched, orphan, conflict or stale</small></div>
</div>`;
  const dayRows = data.days.map((d) => [
    dayCell(d.day),
    `<td class="n" data-day-count="${esc(d.day)}">${esc(d.count)}</td>`,
    n(d.matched),
    n(d.refunded),
    n(d.pending),
    n(d.stale),
    n(d.mismatched),
    n(d.orphan),
    n(d.conflict),
    n(money(d.amountIn)),
    n(money(d.amountOut)),
    `<td class="n" data-match-rate="${esc(d.day)}">${percent(d.matchRate)}</td>`,
  ]);
  const productRows = data.summary.map((r) => [
    dayCell(r.day),
    td(productName(r.product)),
    ...ITEM_STATES.map((s) => n(`${r.states[s].count} · ${money(r.states[s].amount)}`)),
    `<td class="n" data-total="${esc(`${r.day}|${r.product}`)}">${esc(r.total.count)}</td>`,
    n(money(r.total.amount)),
    n(percent(r.matchRate)),
  ]);
  const agingRows = data.aging.map((b) => [td(b.bucket), n(b.count), n(money(b.amount))]);
  const range = rangeParams(filters);
  const none = new URLSearchParams();
  return page(
    'paykit reconciliation',
    `<h1>Reconciliation ${esc(filters.from)} to ${esc(filters.to)} (Mexico City days)</h1>
${rangeForm('/', filters)}
${cards}
<p class="muted">Pending items become stale after ${esc(duration(info.staleAfterSeconds))}. ${info.worker === null ? "The worker's progress is not known here (set CONSOLE_WORKER_URL to show it)." : `The worker applied ${esc(info.worker.applied)} events since it started.${info.worker.lastError ? ` <strong class="mismatched">Last round failed: ${esc(info.worker.lastError)}</strong>` : ''}`}</p>
<div class="charts"><div class="chart"><h2>Money in and out</h2>${volumeChart(
      data.days.map((d) => ({ day: d.day, in: d.amountIn, out: d.amountOut })),
      filters.from,
      filters.to,
    )}</div>
<div class="chart"><h2>Match rate</h2>${matchRateChart(
      data.days.map((d) => ({ day: d.day, rate: d.matchRate })),
      filters.from,
      filters.to,
    )}</div></div>
<h2>Daily summary</h2><p>${exportLinks('summary', range)}</p>
${table(['day', 'items', 'matched', 'refunded', 'pending', 'stale', 'mismatched', 'orphan', 'conflict', 'money in (settled)', 'money out (settled)', 'match rate'], dayRows, 'data-table="days"')}
<h2><a href="${href('/volumes', range)}">Money in and out</a></h2>${moneyTable(data.money)}
<h2><a href="/held">Held credits</a></h2>${heldTable(data.held)}
<h2><a href="/receivables">Receivables by age</a></h2>${agesTable(data.receivables)}
<h2>By day and product (count · amount per state)</h2>
${table(['day', 'product', ...ITEM_STATES, 'items', 'amount', 'match rate'], productRows, 'data-table="products"')}
<h2>Aging of pending items</h2>${table(['age', 'items', 'amount'], agingRows, 'data-table="aging"')}
<h2 id="items">Items</h2>
${rangeForm('/', filters, true)}
${itemsSection('/', data.items, filters)}
<h2 id="conflicts"><a href="/conflicts">Conflicts</a></h2>${conflictsIntro(data.conflictTotals)}
${listView({ path: '/conflicts', params: none, sort: undefined, defaultSort: '-id', page: data.conflicts, columns: CONFLICT_COLUMNS, attrs: 'data-table="conflicts"', exportName: 'conflicts', pager: false, noun: 'conflict' })}
<h2 id="drift"><a href="/drift">Drift</a></h2>${driftIntro(data.drift.total)}
${listView({ path: '/drift', params: none, sort: undefined, defaultSort: '-count', page: data.drift, columns: DRIFT_COLUMNS, attrs: 'data-table="drift"', exportName: 'drift', pager: false, noun: 'drift record' })}
<h2 id="parked"><a href="/parked">Parked events</a></h2>
${listView({ path: '/parked', params: none, sort: undefined, defaultSort: 'seq', page: data.parked, columns: PARKED_COLUMNS, attrs: 'data-table="parked"', exportName: 'parked', pager: false, noun: 'parked event' })}${retryForm(data.parked)}
<h2 id="reports"><a href="/reports">Report lines (three-way match)</a></h2>
${listView({ path: '/reports', params: none, sort: undefined, defaultSort: 'line', page: data.reports, columns: REPORT_COLUMNS, attrs: 'data-table="reports"', exportName: 'reports', pager: false, noun: 'report line' })}`,
    '/',
  );
}

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
