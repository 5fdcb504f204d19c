// A list as the console shows it: the count of every matching row, a table whose headers sort
// (server-side ?sort= links), and previous/next links (rel="prev"/rel="next") that carry the
// filters and the order. Exports take the same filters and hold every row.
import type { Page } from '@paykit/store';
import { count } from './format.ts';
import { esc, table } from './html.ts';

export interface Column<T> {
  label: string;
  /** The list's sort name this column orders by, if it does. */
  sort?: string;
  cell: (row: T) => string;
}

export interface ListView<T> {
  /** The path the links point to ("/items"). */
  path: string;
  /** The filters, without the page and the order. */
  params: URLSearchParams;
  /** The order shown ("-at"), or undefined for the list's default. */
  sort: string | undefined;
  /** The list's default order, to mark its column. */
  defaultSort: string;
  page: Page<T>;
  columns: Column<T>[];
  attrs: string;
  /** Export name: /<name>.csv and /<name>.json with the same filters. */
  exportName?: string;
  /** Paging links (false on the overview's short lists, which link to their page instead). */
  pager?: boolean;
  /** What a row is called ("item", "conflict"). */
  noun: string;
  /** Extra text after the count (a sum). */
  extra?: string;
}

export const n = (value: unknown) => `<td class="n">${esc(value)}</td>`;
export const td = (value: unknown, cls = '') => `<td${cls ? ` class="${esc(cls)}"` : ''}>${esc(value)}</td>`;
/** A moment as "2026-11-21 17:30:00 UTC", on one line (never wrapped mid-value), the instant in `datetime`; `empty` when there is none. */
export function timeCell(moment: Date | null | undefined, empty = ''): string {
  if (!moment) return td(empty);
  const iso = moment.toISOString();
  return `<td class="t"><time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time></td>`;
}
/** A day (YYYY-MM-DD) on one line: chromium breaks a date at its hyphens in a narrow column. */
export const dayCell = (day: string) => `<td class="t"><time datetime="${esc(day)}">${esc(day)}</time></td>`;
/** An id: shortened on screen (CSS, with an ellipsis), whole in the text (find, copy) and on hover; exports hold it whole. */
export const idCell = (value: string | null | undefined) =>
  value ? `<td class="id"><span title="${esc(value)}">${esc(value)}</span></td>` : td('');
export const eventLink = (seq: string) => `<a href="/events/${esc(seq)}">#${esc(seq)}</a>`;

export function href(path: string, params: URLSearchParams, extra: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams(params);
  for (const [key, value] of Object.entries(extra))
    if (value === undefined) query.delete(key);
    else query.set(key, value);
  const text = query.toString();
  return esc(text === '' ? path : `${path}?${text}`);
}

const plural = (value: number, noun: string) => `${count(value)} ${noun}${value === 1 ? '' : 's'}`;

export function exportLinks(name: string, params: URLSearchParams): string {
  return `<span class="exports">Export every row: <a href="${href(`/${name}.csv`, params)}">CSV</a> <a href="${href(`/${name}.json`, params)}">JSON</a></span>`;
}

export function listView<T>(view: ListView<T>): string {
  const current = view.sort ?? view.defaultSort;
  const withSort = new URLSearchParams(view.params);
  if (view.sort) withSort.set('sort', view.sort);
  const headers = view.columns.map((column) => {
    if (!column.sort) return column.label;
    const active = current === column.sort || current === `-${column.sort}`;
    const next = current === column.sort ? `-${column.sort}` : column.sort;
    const arrow = active ? (current.startsWith('-') ? ' ▼' : ' ▲') : '';
    return `<a href="${href(view.path, view.params, { sort: next })}" data-sort="${esc(column.sort)}">${esc(column.label)}${arrow}</a>`;
  });
  const rows = view.page.rows.map((row) => view.columns.map((column) => column.cell(row)));
  const { page } = view;
  const shown = page.rows.length === page.total ? '' : ` (${count(page.rows.length)} on this page)`;
  // rel="prev"/"next" on the links above the table only: one of each per page.
  const pager = (rel: boolean) =>
    [
      page.prev
        ? `<a${rel ? ' rel="prev"' : ''} href="${href(view.path, withSort, { after: undefined, before: page.prev })}">← Previous</a>`
        : '',
      page.next
        ? `<a${rel ? ' rel="next"' : ''} href="${href(view.path, withSort, { before: undefined, after: page.next })}">Next →</a>`
        : '',
    ].join(' ');
  const links =
    view.pager === false
      ? page.total > page.rows.length
        ? `<a href="${href(view.path, view.params)}">All ${esc(plural(page.total, view.noun))} →</a>`
        : ''
      : pager(true);
  return `<p class="pager"><span data-matching="${esc(view.noun)}">${esc(plural(page.total, view.noun))} match${page.total === 1 ? 'es' : ''}${esc(shown)}${view.extra ? `, ${esc(view.extra)}` : ''}.</span>
${links}${view.exportName ? exportLinks(view.exportName, withSort) : ''}</p>
${table(headers, rows, view.attrs)}${view.pager === false || !(page.next || page.prev) ? '' : `<p class="pager">${pager(false)}</p>`}`;
}
