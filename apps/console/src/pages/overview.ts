// The overview: summary cards, charts, the daily figures, money in and out from the journal,
// receivables by age, and the first rows of every list, each linking to its own page.
import { figureOf, ITEM_STATES, type MoneyRow } from '@paykit/ledger';
import type { ConsoleData } from '../data/overview.ts';
import type { ConsoleFilters } from '../filters.ts';
import type { WorkerStatus } from '../worker-status.ts';
import { matchRateChart, volumeChart } from './charts.ts';
import { CONFLICT_COLUMNS, conflictsIntro } from './conflicts.ts';
import { DRIFT_COLUMNS, driftIntro } from './drift.ts';
import { count, duration, money, percent, productName } from './format.ts';
import { heldTable } from './held.ts';
import { esc, page, table } from './html.ts';
import { itemsSection } from './items.ts';
import { dayCell, exportLinks, href, listView, n, td } from './list.ts';
import { moneyTable } from './money.ts';
import { PARKED_COLUMNS, retryForm } from './parked.ts';
import { rangeForm, rangeParams } from './range.ts';
import { agesTable } from './receivables.ts';
import { REPORT_COLUMNS } from './reports.ts';

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
