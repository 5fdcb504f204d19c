// The console's query string: days, states, products, the order (sort) and the page (limit, and a
// cursor: after or before). A bad value is a 400 naming it.
import { ITEM_STATES, PRODUCTS, type ItemState, type Product } from '@paykit/ledger';

export class FilterError extends Error {
  override readonly name = 'FilterError';
}

export interface ConsoleFilters {
  from: string;
  to: string;
  states: ItemState[];
  products: Product[];
  /** Rows per page (default 100). */
  limit: number;
  /** A list's order, "name" or "-name" (the store checks it against the list's sorts). */
  sort: string | undefined;
  after: string | undefined;
  before: string | undefined;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Today in Mexico City (UTC-6, no daylight saving time since 2022). */
export function mexicoCityToday(now: Date): string {
  return new Date(now.getTime() - 6 * 3600_000).toISOString().slice(0, 10);
}

export function readFilters(
  query: URLSearchParams,
  now: Date,
  defaults: { states?: ItemState[] } = {},
): ConsoleFilters {
  const to = query.get('to') || mexicoCityToday(now);
  const from =
    query.get('from') || new Date(Date.parse(`${to}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10);
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!DAY.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
      throw new FilterError(`${name} must be a day, YYYY-MM-DD (Mexico City)`);
  }
  if (from > to) throw new FilterError('from must be on or before to');
  const states = query.has('state') ? readList(query, 'state', ITEM_STATES) : (defaults.states ?? []);
  const products = readList(query, 'product', PRODUCTS);
  return { from, to, states, products, ...readPage(query) };
}

/** The paging and order of a list: limit (1 to 10,000, default 100), sort, and one cursor. */
export function readPage(
  query: URLSearchParams,
  defaultLimit = 100,
): Pick<ConsoleFilters, 'limit' | 'sort' | 'after' | 'before'> {
  const limitText = query.get('limit') ?? String(defaultLimit);
  const limit = Number(limitText);
  if (!/^\d+$/.test(limitText) || limit < 1 || limit > 10_000)
    throw new FilterError('limit must be a whole number from 1 to 10000 (rows per page; exports hold every row)');
  const after = query.get('after') || undefined;
  const before = query.get('before') || undefined;
  if (after && before) throw new FilterError('give after or before, not both (follow the page links)');
  const sort = query.get('sort') || undefined;
  return { limit, sort, after, before };
}

/** Repeated values of one parameter (a=1&a=2 or a=1,2), each checked against `allowed`. */
export function readList<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T[] {
  const values = query
    .getAll(name)
    .flatMap((v) => v.split(','))
    .filter((v) => v !== '');
  for (const value of values)
    if (!(allowed as readonly string[]).includes(value))
      throw new FilterError(`${name} must be one of ${allowed.join(', ')}`);
  return values as T[];
}
