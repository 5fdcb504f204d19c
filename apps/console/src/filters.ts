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

/** The longest query string the console reads: its links carry a few filters and one cursor. */
export const MAX_QUERY_LENGTH = 8192;
/** The longest value of one parameter; a page cursor (after, before) may be longer. */
export const MAX_VALUE_LENGTH = 256;
const MAX_CURSOR_LENGTH = 4000;
const MAX_PARAMETERS = 64;
/** The first C0 control (NUL, ESC, newlines…), DEL or C1 control in `text`: no filter, name or cursor holds one. */
function controlIn(text: string): string | undefined {
  for (const c of text) {
    const code = c.charCodeAt(0);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

/** A parameter's name as a message may quote it: JSON-escaped, printable, cut short. */
function quoted(name: string): string {
  return JSON.stringify(name.slice(0, 40)).replace(/[\u007f-\u009f]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/**
 * Refuses a query string no console link makes, before any route reads it: too long, too many
 * parameters, a control character in a name or value, a value longer than a filter can be. Each
 * refusal names the parameter and what is allowed (the server answers it 400).
 */
export function checkQuery(search: string, query: URLSearchParams): void {
  if (search.length > MAX_QUERY_LENGTH)
    throw new FilterError(
      `the query string is ${search.length} characters long: at most ${MAX_QUERY_LENGTH} (follow the console's links)`,
    );
  let count = 0;
  for (const [name, value] of query) {
    count += 1;
    if (count > MAX_PARAMETERS)
      throw new FilterError(`the query string has more than ${MAX_PARAMETERS} parameters (follow the console's links)`);
    const inName = controlIn(name);
    if (inName)
      throw new FilterError(
        `the parameter ${quoted(name)} holds a control character (${inName}): names are printable text`,
      );
    const inValue = controlIn(value);
    if (inValue)
      throw new FilterError(`${quoted(name)} holds a control character (${inValue}): values are printable text`);
    const max = name === 'after' || name === 'before' ? MAX_CURSOR_LENGTH : MAX_VALUE_LENGTH;
    if (value.length > max) throw new FilterError(`${quoted(name)} is ${value.length} characters long: at most ${max}`);
  }
}

/** Today in Mexico City (UTC-6, no daylight saving time since 2022). */
export function mexicoCityToday(now: Date): string {
  return new Date(now.getTime() - 6 * 3600_000).toISOString().slice(0, 10);
}

export function readFilters(
  query: URLSearchParams,
  now: Date,
  defaults: { states?: ItemState[] } = {},
): ConsoleFilters {
  const to = readDay(query, 'to') ?? mexicoCityToday(now);
  const from =
    readDay(query, 'from') ?? new Date(Date.parse(`${to}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10);
  if (from > to) throw new FilterError('from must be on or before to');
  const states = query.has('state') ? readList(query, 'state', ITEM_STATES) : (defaults.states ?? []);
  const products = readList(query, 'product', PRODUCTS);
  return { from, to, states, products, ...readPage(query) };
}

/** The day `name` names (YYYY-MM-DD, a day of the calendar: 2026-02-30 is not one), or undefined when it is absent. */
function readDay(query: URLSearchParams, name: 'from' | 'to'): string | undefined {
  const value = query.get(name);
  if (!value) return undefined;
  const at = DAY.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  if (at === undefined || Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value || value < '0001-01-01')
    throw new FilterError(`${name} must be a day of the calendar, YYYY-MM-DD (Mexico City)`);
  return value;
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
