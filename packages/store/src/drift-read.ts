// Drift, aggregated on read. The gateway stores each delivery's differences from the spec with the
// event (webhook_events.drift, one note per field); read one by one they are noise. Here they are
// grouped by (source, event type, field, kind of difference): one record per spec line that is
// wrong, with how many events showed it, when first and last, and the latest example. The notes
// hold descriptions ("string (12 chars)"), never values, so the example is already redacted.
import type { Queryable } from './database.ts';
import type { EventSource } from './events.ts';
import {
  allRows,
  keysetPage,
  pickOrder,
  type KeyColumn,
  type KeysetQuery,
  type Page,
  type PageRequest,
} from './keyset.ts';
import { pageOf } from './keyset.ts';
import { StoreInputError } from './errors.ts';

export interface DriftRecord {
  source: EventSource;
  eventType: string;
  /** RFC 6901 JSON Pointer into the payload; an array item, whatever its index, is `*`. */
  pointer: string;
  /** The same place as the gateway writes it ("data[].amount"), indices removed. */
  path: string;
  kind: string;
  /** Events that showed this difference (an event counts once, however many items of an array differ). */
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  /** The latest event's note: what the spec wants and what arrived, described without values. */
  example: { seq: string; expected: string; seen: string };
}

export interface DriftFilter {
  source?: EventSource;
  eventType?: string;
  limit?: number;
  offset?: number;
}

interface DriftRow {
  source: EventSource;
  event_type: string;
  path: string;
  kind: string;
  count: number;
  first_seen: Date;
  last_seen: Date;
  example_seq: string;
  expected: string;
  seen: string;
}

const SOURCES: readonly EventSource[] = ['core', 'cash', 'direct_debit'];

// The latest note of each group is picked with array_agg … ORDER BY seq DESC ([1]); count is of
// distinct events, so data[0].x and data[1].x in one delivery count once. `drift <> '[]'` lets the
// partial index of the events that drifted (migration 0022) serve the scan.
const GROUPED = `(
  SELECT source, event_type, path, kind,
         count(DISTINCT seq)::int AS count, min(received_at) AS first_seen, max(received_at) AS last_seen,
         ((array_agg(seq ORDER BY seq DESC))[1])::text AS example_seq,
         (array_agg(expected ORDER BY seq DESC))[1] AS expected,
         (array_agg(seen ORDER BY seq DESC))[1] AS seen
  FROM (
    SELECT e.seq, e.source, e.event_type, e.received_at,
           regexp_replace(coalesce(n->>'path', ''), '\\[[0-9]+\\]', '[]', 'g') AS path,
           coalesce(n->>'kind', '') AS kind, coalesce(n->>'expected', '') AS expected, coalesce(n->>'seen', '') AS seen
    FROM webhook_events e CROSS JOIN LATERAL jsonb_array_elements(e.drift) AS n
    WHERE e.drift <> '[]'::jsonb AND jsonb_typeof(e.drift) = 'array' AND jsonb_array_length(e.drift) > 0
      AND ($1::text IS NULL OR e.source = $1) AND ($2::text IS NULL OR e.event_type = $2)
  ) notes
  GROUP BY source, event_type, path, kind
) d`;

const GROUP_KEY: KeyColumn[] = [
  { expr: 'd.source', type: 'text' },
  { expr: 'd.event_type', type: 'text' },
  { expr: 'd.path', type: 'text' },
  { expr: 'd.kind', type: 'text' },
];
/** The orders a drift list can be read in ("-" descending; the default, -count, most frequent first). */
export const DRIFT_SORTS = {
  count: [{ expr: 'd.count', type: 'int' }, { expr: 'd.last_seen', type: 'timestamptz' }, ...GROUP_KEY],
  last: [{ expr: 'd.last_seen', type: 'timestamptz' }, ...GROUP_KEY],
  type: [
    { expr: 'd.event_type', type: 'text' },
    { expr: 'd.source', type: 'text' },
    { expr: 'd.path', type: 'text' },
    { expr: 'd.kind', type: 'text' },
  ],
} as const satisfies Record<string, readonly KeyColumn[]>;

function driftQuery(filter: DriftFilter): KeysetQuery {
  if (filter.source !== undefined && !SOURCES.includes(filter.source))
    throw new StoreInputError(`source must be one of ${SOURCES.join(', ')} (got ${JSON.stringify(filter.source)})`);
  return { select: 'd.*', from: GROUPED, where: 'true', params: [filter.source ?? null, filter.eventType ?? null] };
}

const toRecord = (row: DriftRow): DriftRecord => ({
  source: row.source,
  eventType: row.event_type,
  pointer: pathToPointer(row.path),
  path: row.path,
  kind: row.kind,
  count: row.count,
  firstSeen: new Date(row.first_seen),
  lastSeen: new Date(row.last_seen),
  example: { seq: row.example_seq, expected: row.expected, seen: row.seen },
});

/** Every drift record, most frequent first. */
export async function listDrift(db: Queryable, filter: DriftFilter = {}): Promise<DriftRecord[]> {
  const query = driftQuery(filter);
  const { limit, offset } = pageOf(filter);
  const { rows } = await db.query<DriftRow>(
    `SELECT ${query.select} FROM ${query.from} ORDER BY count DESC, last_seen DESC, source, event_type, path, kind LIMIT $3 OFFSET $4`,
    [...query.params, limit, offset],
  );
  return rows.map(toRecord);
}

/** A page of drift records (default most frequent first), with the count of all that match. */
export async function pageDrift(
  db: Queryable,
  filter: Omit<DriftFilter, 'limit' | 'offset'> & PageRequest & { sort?: string } = {},
): Promise<Page<DriftRecord>> {
  const { order } = pickOrder(DRIFT_SORTS, filter.sort, '-count');
  const page = await keysetPage<DriftRow & Record<string, unknown>>(db, driftQuery(filter), order, filter);
  return { ...page, rows: page.rows.map(toRecord) };
}

/** Every drift record that matches, read in batches: for exports. */
export async function* allDrift(
  db: Queryable,
  filter: Omit<DriftFilter, 'limit' | 'offset'> & { sort?: string } = {},
): AsyncGenerator<DriftRecord> {
  const { order } = pickOrder(DRIFT_SORTS, filter.sort, '-count');
  for await (const row of allRows<DriftRow & Record<string, unknown>>(db, driftQuery(filter), order))
    yield toRecord(row);
}

/**
 * The gateway's path ("data[].client_secret", `meta["odd key"]`, "(root)") as a JSON Pointer
 * ("/data/*\/client_secret"). A path it cannot read is kept whole as one segment rather than guessed at.
 */
export function pathToPointer(path: string): string {
  if (path === '(root)' || path === '') return '';
  const segments: string[] = [];
  let rest = path;
  while (rest.length > 0) {
    const name = /^\.?([A-Za-z_$][\w$]*)/.exec(rest);
    const item = /^\[(\d*)\]/.exec(rest);
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (name) {
      segments.push(name[1]!);
      rest = rest.slice(name[0].length);
    } else if (item) {
      segments.push(item[1] === '' ? '*' : item[1]!);
      rest = rest.slice(item[0].length);
    } else if (quoted) {
      segments.push(JSON.parse(quoted[1]!) as string);
      rest = rest.slice(quoted[0].length);
    } else {
      return `/${escapeSegment(path)}`;
    }
  }
  return segments.map((s) => `/${escapeSegment(s)}`).join('');
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
