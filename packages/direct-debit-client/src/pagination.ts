// Cursor pagination of the direct debit service: send the previous page's `next_cursor` as
// `cursor` while `has_next` is true. Pages are async iterables (openai-node's model), so a
// caller writes `for await` and never handles a cursor; breaking out stops the requests.
import { PaykitError } from '@paykit/runtime';

/** What a cursor-paginated page carries (the spec's InstrumentPage, minus its items). */
export interface CursorPage {
  has_next?: boolean;
  next_cursor?: string | null;
}

/**
 * Every page, starting after `cursor` (the first page when omitted). Stops at the page whose
 * `has_next` is false or whose `next_cursor` is null or empty. A cursor the service already
 * sent once would loop forever: that throws instead.
 */
export async function* walkPages<P extends CursorPage>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  operation: string,
  cursor?: string,
): AsyncGenerator<P, void, undefined> {
  const followed = new Set<string>();
  let next = cursor;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(next);
    yield page;
    const following = page.next_cursor;
    if (page.has_next !== true || following === null || following === undefined || following === '') return;
    if (followed.has(following)) {
      throw new PaykitError(
        `direct-debit ${operation}: the service sent a next_cursor it had already sent, so following it would never end. Stopped after ${pages} pages; report this to the platform.`,
      );
    }
    followed.add(following);
    next = following;
  }
}

/** Every item of every page, in order. */
export async function* walkItems<P extends CursorPage, T>(
  pages: AsyncIterable<P>,
  itemsOf: (page: P) => readonly T[],
): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* itemsOf(page);
}
