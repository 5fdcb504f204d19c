// Retention: a month of stored events written to a compressed file and dropped from the database
// (`paykit store archive --before <date>`, and the worker's retention setting). The ledger decides
// what may go, because only it knows what it still reads: a month is archived only when every event
// in it is applied (at or below the claim floor, and each with its applied marker), none is parked,
// none is a credit still held (its release reads the event), and none is a refund that an open
// intent could still be attached by (../record/attach-intents.ts reads refund bodies). The journal and
// the facts stay: archiving never changes a balance, a figure or an item.
//
// For each month: the events, their applied markers and decision replays are written to
// `<partition>.ndjson.gz` (fsynced, then renamed), then the manifest with the file's sha256; then one
// short transaction checks that the month still holds what was written, removes the month's
// markers, replays and dedupe keys, records the archive (webhook_event_archives) and drops the
// partition. Dropping takes PostgreSQL's strongest lock on webhook_events for a moment; it waits at
// most LOCK_WAIT for it, else the month is kept and tried again on the next run.
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import {
  listEventPartitions,
  sqlState,
  StoreInputError,
  type Database,
  type EventPartition,
  type Queryable,
} from '@paykit/store';
import { HELD } from '../journal/held.ts';
import { CLOCK_SKEW } from '../record/attach-intents.ts';
import {
  ARCHIVE_FORMAT,
  archivePaths,
  fileSha256,
  type ArchiveManifest,
  type ArchivedEvent,
  type ArchivedReplay,
} from './format.ts';

/** Days a redelivery is still recognised after its event arrived: months are archived only once past it. */
export const DEFAULT_DEDUPE_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
const LOCK_WAIT = '5s';
const BATCH = 5000;

export interface ArchiveOptions {
  /** Archive the months that end at or before this time (UTC months of received_at). */
  before: Date;
  /** Where the files go (created if missing). */
  dir: string;
  now?: Date;
  /**
   * A month is archived only when it ended at least this many days before `now` (default 30): its
   * events' dedupe keys go with it, so a redelivery must no longer be expected.
   */
  dedupeWindowDays?: number;
}

export interface ArchivedMonth {
  partition: string;
  from: Date;
  to: Date;
  events: number;
  file: string;
  manifest: string;
  sha256: string;
  bytes: number;
}

export interface KeptMonth {
  partition: string;
  from: Date;
  to: Date;
  events: number;
  /** Why it stays, in words an operator acts on. */
  reason: string;
}

export interface ArchiveResult {
  archived: ArchivedMonth[];
  kept: KeptMonth[];
}

/** Archives every month of stored events that ended by `before` and may go; says why any other stays. */
export async function archiveEvents(db: Database, options: ArchiveOptions): Promise<ArchiveResult> {
  const now = options.now ?? new Date();
  const windowDays = options.dedupeWindowDays ?? DEFAULT_DEDUPE_WINDOW_DAYS;
  if (!Number.isInteger(windowDays) || windowDays < 1)
    throw new StoreInputError(
      `the dedupe window must be a whole number of days, at least 1; got ${String(windowDays)}`,
    );
  if (Number.isNaN(options.before.getTime())) throw new StoreInputError('before must be a date (2026-09-01)');
  const latest = new Date(now.getTime() - windowDays * DAY_MS);
  if (options.before > latest)
    throw new StoreInputError(
      `--before ${options.before.toISOString()} is within the ${windowDays}-day dedupe window: a redelivery of those events must still be recognised; ` +
        `archive up to ${latest.toISOString().slice(0, 10)} at the latest`,
    );
  await mkdir(options.dir, { recursive: true });
  await partitionDefaultRows(db, options.before);
  // Counted only when due: a month of millions takes seconds to count, and the worker asks hourly.
  const months = (await listEventPartitions(db, { counts: false })).filter(
    (p): p is EventPartition & { from: Date; to: Date } => p.from !== null && p.to !== null && p.to <= options.before,
  );
  const result: ArchiveResult = { archived: [], kept: [] };
  for (const month of months) {
    const { reason, events } = await whyKept(db, month.name);
    if (reason !== null) {
      result.kept.push({ partition: month.name, from: month.from, to: month.to, events, reason });
      continue;
    }
    const outcome = await archiveMonth(db, { ...month, events }, options.dir, now);
    if ('reason' in outcome) result.kept.push(outcome);
    else result.archived.push(outcome);
  }
  return result;
}

/** Events of a month that had no partition when they arrived are moved into one, so the month can go as a table. */
async function partitionDefaultRows(db: Queryable, before: Date): Promise<void> {
  const { rows } = await db.query<{ month: Date | string }>(
    `SELECT DISTINCT date_trunc('month', received_at, 'UTC') AS month FROM webhook_events_default
      WHERE received_at < $1::timestamptz`,
    [before.toISOString()],
  );
  for (const row of rows) {
    const month = new Date(row.month);
    const end = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
    if (end <= before) await db.query('SELECT webhook_events_add_partition($1::timestamptz)', [month.toISOString()]);
  }
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Why the month must stay (null: it may go), and its events counted. */
async function whyKept(db: Queryable, partition: string): Promise<{ reason: string | null; events: number }> {
  const table = quoted(partition);
  const { rows } = await db.query<{
    events: string;
    above: string;
    parked: string;
    held: string;
    refunds: string;
    floor: string;
  }>(
    `WITH span AS (SELECT min(seq) AS lo, max(seq) AS hi FROM ${table}),
          pr AS (SELECT floor_seq FROM webhook_events_progress)
     SELECT (SELECT count(*) FROM ${table})::text AS events,
            (SELECT count(*) FROM ${table} e, pr WHERE e.seq > pr.floor_seq)::text AS above,
            (SELECT floor_seq FROM pr)::text AS floor,
            (SELECT count(*) FROM ledger_parked_events p, span WHERE p.seq BETWEEN span.lo AND span.hi
                AND EXISTS (SELECT 1 FROM ${table} e WHERE e.seq = p.seq))::text AS parked,
            (SELECT count(*) FROM ledger_credits c, span WHERE c.event_seq BETWEEN span.lo AND span.hi
                AND EXISTS (SELECT 1 FROM ${table} e WHERE e.seq = c.event_seq) AND ${HELD})::text AS held,
            (SELECT count(*) FROM ledger_refunds r, span WHERE r.event_seq BETWEEN span.lo AND span.hi
                AND EXISTS (SELECT 1 FROM ${table} e WHERE e.seq = r.event_seq)
                AND r.transaction_at >= (SELECT min(i.created_at) FROM ledger_outbound_intents i
                                          WHERE i.transaction_id IS NULL AND i.failed_at IS NULL) - ${CLOCK_SKEW})::text AS refunds`,
  );
  const row = rows[0]!;
  const reasons: string[] = [];
  if (row.above !== '0')
    reasons.push(
      `${row.above} event(s) above the worker's claim floor (${row.floor}) are not applied yet: let the worker catch up`,
    );
  if (row.parked !== '0')
    reasons.push(`${row.parked} parked event(s): fix and retry them (paykit ledger parked), or they stay`);
  if (row.held !== '0') reasons.push(`${row.held} credit(s) still held: release or return them (paykit held)`);
  if (row.refunds !== '0')
    reasons.push(
      `${row.refunds} refund(s) that an unresolved transfer intent could still be attached by: resolve the intents (paykit transfers unresolved)`,
    );
  return { reason: reasons.length === 0 ? null : reasons.join('; '), events: Number(row.events) };
}

interface ExportedRow extends Omit<ArchivedEvent, 'raw_body' | 'replays'> {
  raw_body: Uint8Array;
}

// The body travels as bytes and becomes base64 here (natively, where SQL's encode() would add a
// pass of its own); replays are read apart, for the batch's seq range: most events have none.
const EXPORT = (table: string) => `
  SELECT e.seq::text AS seq, e.source, e.event_type, e.dedupe_key, e.id_msg, e.transaction_id, e.operation_id,
         e.raw_body, e.payload::text AS payload, e.headers,
         to_json(e.received_at) #>> '{}' AS received_at, to_json(e.stored_at) #>> '{}' AS stored_at, e.drift, e.outcome, e.reason,
         e.answer_status, e.refund_reason, e.deliveries, to_json(a.applied_at) #>> '{}' AS applied_at
    -- The bound on a.seq too: without it a merge join reads the markers from the first one, every batch.
    FROM ${table} e LEFT JOIN webhook_events_applied a ON a.seq = e.seq AND a.seq > $1::bigint
   WHERE e.seq > $1::bigint
   ORDER BY e.seq
   LIMIT ${BATCH}`;

const REPLAYS = `
  SELECT r.seq::text AS seq, r.id::text AS id, to_json(r.replayed_at) #>> '{}' AS replayed_at, r.drift, r.outcome, r.reason,
         r.answer_status, r.refund_reason
    FROM webhook_event_replays r
   WHERE r.seq BETWEEN $1::bigint AND $2::bigint
   ORDER BY r.id`;

/** What the month held when it was written: checked again, under a lock, before it is dropped. */
interface Written {
  events: number;
  deliveries: number;
  replays: number;
  firstSeq: string | null;
  lastSeq: string | null;
}

async function archiveMonth(
  db: Database,
  month: EventPartition & { from: Date; to: Date; events: number },
  dir: string,
  now: Date,
): Promise<ArchivedMonth | KeptMonth> {
  const paths = archivePaths(dir, month.name);
  const partial = `${paths.data}.partial`;
  const written: Written = { events: 0, deliveries: 0, replays: 0, firstSeq: null, lastSeq: null };
  let unapplied: string | null = null;
  const table = quoted(month.name);
  async function* lines(): AsyncGenerator<string> {
    let after = '0';
    for (;;) {
      const { rows } = await db.query<ExportedRow>(EXPORT(table), [after]);
      if (rows.length === 0) return;
      const replays = new Map<string, ArchivedReplay[]>();
      const found = await db.query<ArchivedReplay & { seq: string }>(REPLAYS, [rows[0]!.seq, rows.at(-1)!.seq]);
      for (const { seq, ...replay } of found.rows) replays.set(seq, [...(replays.get(seq) ?? []), replay]);
      let chunk = '';
      for (const row of rows) {
        if (row.applied_at === null) {
          unapplied ??= row.seq;
          return;
        }
        const event: ArchivedEvent = {
          ...row,
          raw_body: Buffer.from(row.raw_body.buffer, row.raw_body.byteOffset, row.raw_body.byteLength).toString(
            'base64',
          ),
          replays: replays.get(row.seq) ?? [],
        };
        written.events++;
        written.deliveries += row.deliveries;
        written.replays += event.replays.length;
        written.firstSeq ??= row.seq;
        written.lastSeq = row.seq;
        chunk += `${JSON.stringify(event)}\n`;
      }
      yield chunk;
      if (rows.length < BATCH) return;
      after = rows.at(-1)!.seq;
    }
  }
  await pipeline(lines, createGzip(), createWriteStream(partial));
  if (unapplied !== null) {
    await rm(partial, { force: true });
    return {
      ...kept(month, month.events),
      reason: `event ${String(unapplied)} has no applied marker although it is below the claim floor: the worker's floor audit will apply it; archive again after`,
    };
  }
  await fsyncFile(partial);
  await rename(partial, paths.data);
  const sha256 = await fileSha256(paths.data);
  const bytes = (await stat(paths.data)).size;
  const manifest: ArchiveManifest = {
    format: ARCHIVE_FORMAT,
    partition: month.name,
    from: month.from.toISOString(),
    to: month.to.toISOString(),
    file: path.basename(paths.data),
    sha256,
    bytes,
    events: written.events,
    firstSeq: written.firstSeq,
    lastSeq: written.lastSeq,
    archivedAt: now.toISOString(),
  };
  await writeFile(paths.manifest, `${JSON.stringify(manifest, null, 2)}\n`);
  await fsyncFile(paths.manifest);
  await fsyncFile(dir);

  const dropped = await db
    .transaction(async (tx) => {
      await tx.query(`LOCK TABLE ${table} IN SHARE MODE`);
      const { rows } = await tx.query<{ events: string; deliveries: string; replays: string }>(
        `SELECT count(*)::text AS events, coalesce(sum(deliveries), 0)::text AS deliveries,
              (SELECT count(*) FROM webhook_event_replays r WHERE EXISTS (SELECT 1 FROM ${table} e WHERE e.seq = r.seq))::text AS replays
         FROM ${table}`,
      );
      const still = rows[0]!;
      if (
        Number(still.events) !== written.events ||
        Number(still.deliveries) !== written.deliveries ||
        Number(still.replays) !== written.replays
      )
        return false;
      await tx.query(`DELETE FROM webhook_events_applied a USING ${table} e WHERE a.seq = e.seq`);
      await tx.query(`DELETE FROM webhook_event_replays r USING ${table} e WHERE r.seq = e.seq`);
      await tx.query(
        `DELETE FROM webhook_event_keys k USING ${table} e WHERE k.dedupe_key = e.dedupe_key AND k.seq = e.seq`,
      );
      await tx.query(
        `INSERT INTO webhook_event_archives (partition_name, range_from, range_to, file, sha256, events, first_seq, last_seq, archived_at)
       VALUES ($1, $2::timestamptz, $3::timestamptz, $4, $5, $6::bigint, $7::bigint, $8::bigint, $9::timestamptz)
       ON CONFLICT (partition_name) DO UPDATE SET range_from = EXCLUDED.range_from, range_to = EXCLUDED.range_to, file = EXCLUDED.file,
         sha256 = EXCLUDED.sha256, events = EXCLUDED.events, first_seq = EXCLUDED.first_seq, last_seq = EXCLUDED.last_seq,
         archived_at = EXCLUDED.archived_at, restored_at = NULL`,
        [
          month.name,
          month.from.toISOString(),
          month.to.toISOString(),
          path.resolve(paths.data),
          sha256,
          written.events,
          written.firstSeq,
          written.lastSeq,
          now.toISOString(),
        ],
      );
      await tx.query(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`);
      await tx.query(`DROP TABLE ${table}`);
      return true;
    })
    .catch((error: unknown) => {
      if (sqlState(error) === '55P03') return 'locked' as const;
      throw error;
    });
  if (dropped === true)
    return {
      partition: month.name,
      from: month.from,
      to: month.to,
      events: written.events,
      file: paths.data,
      manifest: paths.manifest,
      sha256,
      bytes,
    };
  return {
    ...kept(month, month.events),
    reason:
      dropped === false
        ? 'the month changed while it was written (a redelivery counted, a replay recorded): archive again'
        : `webhook_events stayed busy for ${LOCK_WAIT}: the partition was not dropped; the files are written, archive again`,
  };
}

function kept(month: EventPartition & { from: Date; to: Date }, events: number): Omit<KeptMonth, 'reason'> {
  return { partition: month.name, from: month.from, to: month.to, events };
}

async function fsyncFile(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
