// `paykit store restore <file>`: an archived month back into a database, for an audit: the same
// database it came from (its partition is made again) or a fresh one. The file is checked against
// its manifest first (sha256, then the count of events), and the whole month goes in one
// transaction, so a restore is all or nothing and running it twice changes nothing. The events come
// back with their applied markers, replays and dedupe keys, so no worker applies them again and a
// redelivery of one is recognised; the ledger, which never lost their facts, does not change.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { StoreInputError, type Database, type Queryable } from '@paykit/store';
import { verifiedManifest, type ArchiveManifest, type ArchivedEvent } from './format.ts';

const BATCH = 500;

export interface RestoreResult {
  partition: string;
  /** Events in the archive. */
  events: number;
  /** Of those, how many were not in the database already. */
  restored: number;
  manifest: ArchiveManifest;
}

const EVENT_COLUMNS = `seq text, source text, event_type text, dedupe_key text, id_msg text, transaction_id text, operation_id text,
  raw_body text, payload text, headers jsonb, received_at timestamptz, stored_at timestamptz, drift jsonb, outcome text, reason text,
  answer_status smallint, refund_reason text, deliveries integer, applied_at timestamptz`;

async function restoreBatch(tx: Queryable, events: ArchivedEvent[]): Promise<number> {
  // One statement: the batch's JSON is read once, for the events, their keys and their markers.
  const { rows } = await tx.query<{ restored: string }>(
    `WITH r AS MATERIALIZED (SELECT * FROM json_to_recordset($1::json) AS r(${EVENT_COLUMNS})),
     restored AS (
       INSERT INTO webhook_events (seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body, payload, headers,
                                   received_at, stored_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
       SELECT r.seq::bigint, r.source, r.event_type, r.dedupe_key, r.id_msg, r.transaction_id, r.operation_id, decode(r.raw_body, 'base64'),
              r.payload::jsonb, r.headers, r.received_at, r.stored_at, r.drift, r.outcome, r.reason, r.answer_status, r.refund_reason, r.deliveries
         FROM r
       ON CONFLICT (seq, received_at) DO NOTHING
       RETURNING 1
     ), keys AS (
       INSERT INTO webhook_event_keys (dedupe_key, seq, received_at, deliveries, outcome, answer_status)
       SELECT r.dedupe_key, r.seq::bigint, r.received_at, r.deliveries, r.outcome, r.answer_status FROM r
       ON CONFLICT (dedupe_key) DO NOTHING
     ), markers AS (
       INSERT INTO webhook_events_applied (seq, applied_at)
       SELECT r.seq::bigint, r.applied_at FROM r WHERE r.applied_at IS NOT NULL
       ON CONFLICT (seq) DO NOTHING
     )
     SELECT count(*)::text AS restored FROM restored`,
    [JSON.stringify(events)],
  );
  const replays = events.flatMap((event) => event.replays.map((replay) => ({ ...replay, seq: event.seq })));
  if (replays.length > 0)
    await tx.query(
      `INSERT INTO webhook_event_replays (id, seq, replayed_at, drift, outcome, reason, answer_status, refund_reason) OVERRIDING SYSTEM VALUE
       SELECT r.id::bigint, r.seq::bigint, r.replayed_at, r.drift, r.outcome, r.reason, r.answer_status, r.refund_reason
         FROM json_to_recordset($1::json)
           AS r(id text, seq text, replayed_at timestamptz, drift jsonb, outcome text, reason text, answer_status smallint, refund_reason text)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(replays)],
    );
  return Number(rows[0]!.restored);
}

/** Restores the archive `file` (its .ndjson.gz or its .manifest.json). */
export async function restoreArchive(db: Database, file: string, options: { now?: Date } = {}): Promise<RestoreResult> {
  const { manifest, data } = await verifiedManifest(file);
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    await tx.query('SELECT webhook_events_add_partition($1::timestamptz)', [manifest.from]);
    let events = 0;
    let restored = 0;
    let batch: ArchivedEvent[] = [];
    const lines = createInterface({ input: createReadStream(data).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      let event: ArchivedEvent;
      try {
        event = JSON.parse(line) as ArchivedEvent;
      } catch {
        throw new StoreInputError(`line ${events + 1} of ${data} is not JSON: the archive is damaged`);
      }
      batch.push(event);
      events++;
      if (batch.length === BATCH) {
        restored += await restoreBatch(tx, batch);
        batch = [];
      }
    }
    if (batch.length > 0) restored += await restoreBatch(tx, batch);
    if (events !== manifest.events)
      throw new StoreInputError(
        `${data} holds ${events} events, its manifest says ${manifest.events}: the archive is damaged`,
      );
    // A fresh database's counters start below the restored numbers: move them past, never back.
    await tx.query(
      `SELECT setval('webhook_events_seq', $1::bigint) WHERE $1::bigint > (SELECT last_value FROM webhook_events_seq)`,
      [manifest.lastSeq ?? '0'],
    );
    await tx.query(
      `SELECT setval(pg_get_serial_sequence('webhook_event_replays', 'id'), m) FROM (SELECT max(id) AS m FROM webhook_event_replays) x
        WHERE m > (SELECT last_value FROM webhook_event_replays_id_seq)`,
    );
    await tx.query('UPDATE webhook_event_archives SET restored_at = $2::timestamptz WHERE partition_name = $1', [
      manifest.partition,
      now.toISOString(),
    ]);
    return { partition: manifest.partition, events, restored, manifest };
  });
}
