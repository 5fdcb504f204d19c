// A list of the ledger, read the three ways every list is read: a page at a time in a sort the
// reader picks (the console), every row in batches (the exports), and the first rows from an
// offset in one fixed order (scripts). A list says once what it reads (its query for a filter, the
// sorts it allows, how a row reads); the paging itself is @paykit/store's keyset paging.
import {
  allRows,
  keysetPage,
  pageOf,
  pickOrder,
  type KeyColumn,
  type KeysetQuery,
  type PageRequest,
  type PageWithTotals,
  type Queryable,
} from '@paykit/store';

export interface Listing<F, R extends Record<string, unknown>, T> {
  /** The rows a filter matches (the filter is checked here: a bad one throws StoreInputError). */
  query: (filter: F) => KeysetQuery;
  /** The sorts it can be read in, each a key unique over the rows. */
  sorts: Readonly<Record<string, readonly KeyColumn[]>>;
  /** The sort when none is asked for ("-name" descending). */
  defaultSort: string;
  /** A row as the caller sees it. */
  toRow: (row: R) => T;
}

/** A page in the sort `filter.sort` names (else the list's default), with the database's totals over the filter. */
export async function readPage<F, R extends Record<string, unknown>, T>(
  db: Queryable,
  listing: Listing<F, R, T>,
  filter: F & PageRequest & { sort?: string },
): Promise<PageWithTotals<T>> {
  const { order } = pickOrder(listing.sorts, filter.sort, listing.defaultSort);
  const page = await keysetPage<R>(db, listing.query(filter), order, filter);
  return { ...page, rows: page.rows.map(listing.toRow) };
}

/** Every row the filter matches, in its sort, read `batch` rows at a time (default 1,000): for exports. */
export async function* readAll<F, R extends Record<string, unknown>, T>(
  db: Queryable,
  listing: Listing<F, R, T>,
  filter: F & { sort?: string },
  batch?: number,
): AsyncGenerator<T> {
  const { order } = pickOrder(listing.sorts, filter.sort, listing.defaultSort);
  for await (const row of allRows<R>(db, listing.query(filter), order, batch)) yield listing.toRow(row);
}

/** `limit` rows (default 200, at most 10,000) from `offset` in the SQL order `orderBy`: for scripts. */
export async function readOffset<F, R extends Record<string, unknown>, T>(
  db: Queryable,
  listing: Listing<F, R, T>,
  filter: F & { limit?: number; offset?: number },
  orderBy: string,
): Promise<T[]> {
  const query = listing.query(filter);
  const { limit, offset } = pageOf(filter);
  const n = query.params.length;
  const { rows } = await db.query<R>(
    `${query.with ? `WITH ${query.with} ` : ''}SELECT ${query.select} FROM ${query.from} WHERE ${query.where} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...query.params, limit, offset],
  );
  return rows.map(listing.toRow);
}
