// The event store's month partitions (migration 0023): created ahead by the apps, listed for the
// operator, and the archives that replaced the months dropped (the ledger's archive writes them:
// @paykit/ledger's archive/). Months are UTC months of received_at, the gateway's own clock.
import type { Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';

/** Months created ahead of the current one by ensureEventPartitions (the worker runs it hourly). */
export const MONTHS_AHEAD = 3;

/** One partition of webhook_events. */
export interface EventPartition {
  /** webhook_events_2026_11, or webhook_events_default for events of a month with no partition. */
  name: string;
  /** Its range (null for the default partition). */
  from: Date | null;
  to: Date | null;
  /** Stored events in it, counted (null when the list was asked without counts). */
  events: number | null;
  /** On disk: the table, its indexes and its TOAST. */
  bytes: number;
}

/** An archive written for a month and the partition it replaced. */
export interface EventArchive {
  partition: string;
  from: Date;
  to: Date;
  file: string;
  sha256: string;
  events: number;
  firstSeq: string | null;
  lastSeq: string | null;
  archivedAt: Date;
  restoredAt: Date | null;
}

function monthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/**
 * Creates the partitions of the month of `now` and of the MONTHS_AHEAD (or `monthsAhead`) months
 * after it where they are missing, moving any of their events out of the default partition; returns
 * the names of the months covered. Safe to run from several processes at once.
 */
export async function ensureEventPartitions(
  db: Queryable,
  options: { now?: Date; monthsAhead?: number } = {},
): Promise<string[]> {
  const ahead = options.monthsAhead ?? MONTHS_AHEAD;
  if (!Number.isInteger(ahead) || ahead < 0 || ahead > 24)
    throw new StoreInputError(`monthsAhead must be a whole number from 0 to 24, got ${String(ahead)}`);
  const start = monthStart(options.now ?? new Date());
  const names: string[] = [];
  for (let month = 0; month <= ahead; month++) {
    const at = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + month, 1));
    const { rows } = await db.query<{ name: string }>('SELECT webhook_events_add_partition($1::timestamptz) AS name', [
      at.toISOString(),
    ]);
    names.push(rows[0]!.name);
  }
  return names;
}

/**
 * Every partition of webhook_events, the oldest month first and the default partition last. Each
 * is counted (a month of millions takes seconds) unless `counts` is false.
 */
export async function listEventPartitions(
  db: Queryable,
  { counts = true }: { counts?: boolean } = {},
): Promise<EventPartition[]> {
  const { rows } = await db.query<{ name: string; bound: string; bytes: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, pg_total_relation_size(c.oid)::text AS bytes
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'webhook_events'::regclass`,
  );
  const partitions: EventPartition[] = [];
  for (const row of rows) {
    const range = /FROM \('([^']+)'\) TO \('([^']+)'\)/.exec(row.bound);
    const counted = counts
      ? await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${row.name.replaceAll('"', '""')}"`)
      : undefined;
    partitions.push({
      name: row.name,
      from: range ? new Date(range[1]!) : null,
      to: range ? new Date(range[2]!) : null,
      events: counted === undefined ? null : Number(counted.rows[0]!.n),
      bytes: Number(row.bytes),
    });
  }
  return partitions.sort((a, b) => (a.from?.getTime() ?? Infinity) - (b.from?.getTime() ?? Infinity));
}

interface ArchiveRow {
  partition_name: string;
  range_from: Date | string;
  range_to: Date | string;
  file: string;
  sha256: string;
  events: string;
  first_seq: string | null;
  last_seq: string | null;
  archived_at: Date | string;
  restored_at: Date | string | null;
}

const ARCHIVE_COLUMNS =
  'partition_name, range_from, range_to, file, sha256, events::text AS events, first_seq::text AS first_seq, last_seq::text AS last_seq, archived_at, restored_at';

function toArchive(row: ArchiveRow): EventArchive {
  return {
    partition: row.partition_name,
    from: new Date(row.range_from),
    to: new Date(row.range_to),
    file: row.file,
    sha256: row.sha256,
    events: Number(row.events),
    firstSeq: row.first_seq,
    lastSeq: row.last_seq,
    archivedAt: new Date(row.archived_at),
    restoredAt: row.restored_at === null ? null : new Date(row.restored_at),
  };
}

/** Every archive written, the oldest month first. */
export async function listEventArchives(db: Queryable): Promise<EventArchive[]> {
  const { rows } = await db.query<ArchiveRow>(
    `SELECT ${ARCHIVE_COLUMNS} FROM webhook_event_archives ORDER BY range_from`,
  );
  return rows.map(toArchive);
}

/** The archive whose month held the event `seq` (by the archive's seq range), if it was archived. */
export async function archiveOfEvent(db: Queryable, seq: string): Promise<EventArchive | undefined> {
  const { rows } = await db.query<ArchiveRow>(
    `SELECT ${ARCHIVE_COLUMNS} FROM webhook_event_archives
      WHERE restored_at IS NULL AND $1::bigint BETWEEN first_seq AND last_seq ORDER BY range_from LIMIT 1`,
    [seq],
  );
  return rows[0] === undefined ? undefined : toArchive(rows[0]);
}
