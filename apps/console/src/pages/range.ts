// The date range and item filters every page with a range shows: as a form, and as the query the
// lists' links and exports carry.
import { ITEM_STATES, PRODUCTS } from '@paykit/ledger';
import type { ConsoleFilters } from '../filters.ts';
import { productName } from './format.ts';
import { esc } from './html.ts';

/** The filters of the item lists as a query (without the page and the order). */
export function filterParams(filters: ConsoleFilters): URLSearchParams {
  const params = new URLSearchParams({ from: filters.from, to: filters.to });
  for (const state of filters.states) params.append('state', state);
  for (const product of filters.products) params.append('product', product);
  if (filters.limit !== 100) params.set('limit', String(filters.limit));
  return params;
}

export const rangeParams = (filters: ConsoleFilters) => new URLSearchParams({ from: filters.from, to: filters.to });

export function rangeForm(path: string, filters: ConsoleFilters, withItemFilters = false): string {
  const select = (name: string, values: readonly string[], chosen: readonly string[]) =>
    `<label>${esc(name)}<select name="${esc(name)}" multiple size="4">${values.map((v) => `<option value="${esc(v)}"${chosen.includes(v) ? ' selected' : ''}>${esc(name === 'product' ? productName(v) : v)}</option>`).join('')}</select></label>`;
  return `<form class="filters" method="get" action="${esc(path)}">
<label>from<input type="date" name="from" value="${esc(filters.from)}"></label><label>to<input type="date" name="to" value="${esc(filters.to)}"></label>
${withItemFilters ? `${select('state', ITEM_STATES, filters.states)}${select('product', PRODUCTS, filters.products)}` : ''}<button type="submit">Filter</button></form>`;
}
