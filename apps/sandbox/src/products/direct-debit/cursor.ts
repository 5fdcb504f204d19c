// Opaque cursors of GET /instruments. A cursor names the creation sequence number of the last
// instrument a page returned, not an offset: instruments added while a client walks the pages
// get higher sequence numbers, so they only ever appear at the end and no page shifts.
// sandbox choice: the reference shows only that cursors are opaque strings (`next_cursor`).

const VERSION = 1;

export function encodeCursor(afterSeq: number): string {
  return Buffer.from(JSON.stringify({ v: VERSION, after: afterSeq }), 'utf8').toString('base64url');
}

/** The sequence number a cursor points after, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { v, after } = parsed as { v?: unknown; after?: unknown };
  if (v !== VERSION || typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) return undefined;
  return after;
}
