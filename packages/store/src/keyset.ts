// Keyset paging for every list the console and the exports read: a page is the rows after (or
// before) a cursor in a fixed order, never an OFFSET, so rows inserted meanwhile neither repeat nor
// push others off a page (a row whose sort column is updated moves, unless every page reads one
// snapshot: the console's exports on PostgreSQL). The cursor is the last row's sort key, opaque to callers (base64url of
// its values). Totals are counted by the database over the same filter. `allRows` reads every
// matching row in batches of keyset pages, for exports that stream.
import type { Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';

/** One column of a sort key: an SQL expression that is never NULL, and the type its cursor value is cast back to. */
export interface KeyColumn {
  expr: string;
  type: 'text' | 'numeric' | 'timestamptz' | 'bigint' | 'int' | 'date';
}

/** An order: its key (unique over the rows, the last columns breaking ties), ascending or descending. */
export interface KeysetOrder {
  keys: readonly KeyColumn[];
  desc: boolean;
}

export interface KeysetQuery {
  /** CTEs without the WITH keyword, or undefined. */
  with?: string;
  /** The select list. */
  select: string;
  /** FROM … (with joins). */
  from: string;
  /** The filter, on the query's own params ($1…). */
  where: string;
  params: readonly unknown[];
  /** Aggregates over the filter for the page's totals (default `count(*)::text AS count`). */
  totals?: string;
}

export interface PageRequest {
  /** Rows per page, 1 to 10,000 (default 100). */
  limit?: number;
  /** A cursor from a page's `next`: the rows after it. */
  after?: string;
  /** A cursor from a page's `prev`: the rows before it. */
  before?: string;
}

export interface Page<T> {
  rows: T[];
  /** Every row the filter matches, counted by the database. */
  total: number;
  /** The cursor of the page after this one (null on the last). */
  next: string | null;
  /** The cursor of the page before this one (null on the first). */
  prev: string | null;
}

/** A page's other totals (sums) as the database returned them (text). */
export interface PageWithTotals<T> extends Page<T> {
  totals: Record<string, string>;
}

/** A page of a list: limit (default 200, 1 to 10,000) and offset (default 0), checked. */
export function pageOf(options: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const limit = options.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new StoreInputError('limit must be a whole number from 1 to 10000');
  const offset = options.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) throw new StoreInputError('offset must be a whole number, 0 or more');
  return { limit, offset };
}

export function pageLimit(limit: number | undefined): number {
  const value = limit ?? 100;
  if (!Number.isInteger(value) || value < 1 || value > 10_000)
    throw new StoreInputError('limit must be a whole number from 1 to 10000');
  return value;
}

const BAD_CURSOR =
  'the page cursor is not one this list gave (it may be from another list or order): start again from the first page';

export function encodeCursor(values: readonly string[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

function decodeCursor(cursor: string, length: number): string[] {
  let values: unknown;
  try {
    values = /^[A-Za-z0-9_-]{1,4000}$/.test(cursor)
      ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
      : undefined;
  } catch {
    values = undefined;
  }
  if (!Array.isArray(values) || values.length !== length || !values.every((v) => typeof v === 'string')) {
    throw new StoreInputError(BAD_CURSOR);
  }
  return values as string[];
}

/**
 * A text parameter PostgreSQL cannot take: text never holds U+0000 (the server answers with its own
 * error, which is no answer for the caller who sent it).
 */
function checkParams(params: readonly unknown[]): void {
  for (const value of params) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.includes('\0')))
      throw new StoreInputError('a filter value holds a NUL character (U+0000), which no stored text contains');
  }
}

/** One page of `query` in `order`, with the total count (and `query.totals`). */
export async function keysetPage<R extends Record<string, unknown>>(
  db: Queryable,
  query: KeysetQuery,
  order: KeysetOrder,
  request: PageRequest = {},
): Promise<PageWithTotals<R>> {
  const limit = pageLimit(request.limit);
  checkParams(query.params);
  if (request.after !== undefined && request.before !== undefined)
    throw new StoreInputError('give a page cursor after or before, not both');
  const cursorText = request.after ?? request.before;
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText, order.keys.length);
  const backwards = request.before !== undefined;
  const [rows, totals] = await Promise.all([
    readRows<R>(db, query, order, limit + 1, cursor, backwards),
    db.query<Record<string, string>>(
      `${query.with ? `WITH ${query.with} ` : ''}SELECT ${query.totals ?? 'count(*)::text AS count'} FROM ${query.from} WHERE ${query.where}`,
      query.params,
    ),
  ]);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const keyOf = (row: R | undefined) =>
    row === undefined ? null : encodeCursor(order.keys.map((_, i) => String(row[`_k${i}`])));
  const first = keyOf(page[0]);
  const last = keyOf(page.at(-1));
  const next = backwards ? (cursor ? last : null) : more ? last : null;
  const prev = backwards ? (more ? first : null) : cursor ? first : null;
  const totalRow = totals.rows[0] ?? {};
  return { rows: page.map(stripKeys), total: Number(totalRow.count ?? 0), next, prev, totals: totalRow };
}

/** Every row of `query` in `order`, read `batch` rows at a time (a keyset page each): for exports that stream. */
export async function* allRows<R extends Record<string, unknown>>(
  db: Queryable,
  query: KeysetQuery,
  order: KeysetOrder,
  batch = 1000,
): AsyncGenerator<R> {
  checkParams(query.params);
  let cursor: string[] | undefined;
  for (;;) {
    const rows = await readRows<R>(db, query, order, batch, cursor, false);
    for (const row of rows) yield stripKeys(row);
    if (rows.length < batch) return;
    const last = rows.at(-1)!;
    cursor = order.keys.map((_, i) => String(last[`_k${i}`]));
  }
}

async function readRows<R extends Record<string, unknown>>(
  db: Queryable,
  query: KeysetQuery,
  order: KeysetOrder,
  limit: number,
  cursor: string[] | undefined,
  backwards: boolean,
): Promise<R[]> {
  const n = query.params.length;
  const desc = order.desc !== backwards;
  // The cursor's values as text (_k), and the key as itself (_o) to order by: a bare name in
  // ORDER BY means the select list's column of that name first (`id::text AS id` would sort as text).
  const keys = order.keys.map((k, i) => `(${k.expr})::text AS _k${i}, (${k.expr}) AS _o${i}`).join(', ');
  const tuple = `(${order.keys.map((k) => k.expr).join(', ')})`;
  const after = cursor
    ? ` AND ${tuple} ${desc ? '<' : '>'} (${order.keys.map((k, i) => `$${n + 2 + i}::${k.type}`).join(', ')})`
    : '';
  const orderBy = order.keys.map((_, i) => `_o${i} ${desc ? 'DESC' : 'ASC'}`).join(', ');
  try {
    const { rows } = await db.query<R>(
      `${query.with ? `WITH ${query.with} ` : ''}SELECT ${query.select}, ${keys} FROM ${query.from} WHERE (${query.where})${after} ORDER BY ${orderBy} LIMIT $${n + 1}`,
      [...query.params, limit, ...(cursor ?? [])],
    );
    return rows;
  } catch (error) {
    // A forged cursor whose values are not of the key's type (SQLSTATE class 22, data exception).
    if (cursor && /^22/.test(String((error as { code?: unknown }).code ?? ''))) throw new StoreInputError(BAD_CURSOR);
    throw error;
  }
}

function stripKeys<R extends Record<string, unknown>>(row: R): R {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (!/^_[ko]\d+$/.test(key)) copy[key] = value;
  return copy as R;
}

/** Parses `?sort=name` / `?sort=-name` against the sorts a list allows; undefined picks its default. */
export function pickOrder(
  sorts: Readonly<Record<string, readonly KeyColumn[]>>,
  sort: string | undefined,
  fallback: string,
): { name: string; order: KeysetOrder } {
  const text = sort === undefined || sort === '' ? fallback : sort;
  const desc = text.startsWith('-');
  const name = desc ? text.slice(1) : text;
  // Own keys only: `constructor`, `__proto__` or `toString` would otherwise find Object.prototype's.
  const keys = Object.hasOwn(sorts, name) ? sorts[name] : undefined;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new StoreInputError(`sort must be one of ${Object.keys(sorts).join(', ')} (a leading "-" sorts descending)`);
  return { name: text, order: { keys, desc } };
}
