// One batch of appends as ONE statement: INSERT … SELECT FROM unnest(…) ON CONFLICT DO UPDATE,
// in autocommit (one transaction, one fsync). Duplicates of a key within the batch are collapsed
// first (ON CONFLICT cannot touch the same row twice in one statement); each copy still gets its
// own answer: the first decision stored for the key, and its own delivery count.
import { isDataError, isRetryable, messageOf } from './connection-errors.ts';
import type { Queryable } from './database.ts';
import { StoreInputError } from './errors.ts';
import type { PreparedEvent } from './event-input.ts';
import type { AppendResult, Outcome } from './events.ts';

// seq is drawn in arrival order (the CTE is materialised before the sort), rows are written in
// dedupe_key order: two batches in flight that share keys then lock them in the same order and
// cannot deadlock. Everything travels as text arrays, decoded in SQL, so pg and PGlite see the
// same parameters. A UTF-8 body travels once, as text: the bytea and (unless the caller gave one)
// the jsonb are both made from it here.
const INSERT_BATCH = `
WITH input AS MATERIALIZED (
  SELECT nextval('webhook_events_seq') AS seq, i.*
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
              $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int[], $16::text[], $17::int[])
    AS i(source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_text, raw_body_hex, payload,
         headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
)
INSERT INTO webhook_events AS e (seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body,
                                 payload, headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
SELECT seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id,
       coalesce(convert_to(raw_text, 'UTF8'), decode(raw_body_hex, 'hex')), coalesce(payload, raw_text)::jsonb, headers::jsonb, received_at::timestamptz, drift::jsonb, outcome, reason, answer_status, refund_reason, deliveries
FROM input
ORDER BY dedupe_key COLLATE "C"
ON CONFLICT (dedupe_key) DO UPDATE SET deliveries = e.deliveries + EXCLUDED.deliveries
RETURNING e.dedupe_key, e.seq::text AS seq, (e.xmax = 0) AS inserted, e.deliveries, e.outcome, e.reason, e.answer_status, e.refund_reason`;

interface ReturnedRow {
  dedupe_key: string;
  seq: string;
  inserted: boolean;
  deliveries: number;
  outcome: Outcome;
  reason: string | null;
  answer_status: number;
  refund_reason: string | null;
}

/** The events of one key within a batch: the first one is written, the others count as deliveries. */
interface KeyGroup {
  event: PreparedEvent;
  positions: number[];
}

const ATTEMPTS = 3;

/**
 * Writes the batch and answers each event in order. A deadlock or serialization failure is retried;
 * a data error (one bad row fails the statement) is isolated by writing key by key, so only the
 * bad event fails, with StoreInputError. Any other failure is thrown for the whole batch.
 */
export async function commitEvents(db: Queryable, events: PreparedEvent[], unavailable: (error: unknown) => Error): Promise<Array<AppendResult | Error>> {
  const groups = groupByKey(events);
  const results: Array<AppendResult | Error> = new Array(events.length);
  try {
    answer(results, groups, await insertWithRetry(db, groups));
  } catch (error) {
    if (!isDataError(error) || groups.length === 1) {
      if (isDataError(error)) return fill(results, groups[0]!, rejected(error));
      throw error;
    }
    for (const group of groups) {
      try {
        answer(results, [group], await insertWithRetry(db, [group]));
      } catch (groupError) {
        fill(results, group, isDataError(groupError) ? rejected(groupError) : unavailable(groupError));
      }
    }
  }
  return results;
}

function groupByKey(events: PreparedEvent[]): KeyGroup[] {
  const byKey = new Map<string, KeyGroup>();
  events.forEach((event, position) => {
    const group = byKey.get(event.dedupeKey);
    if (group) group.positions.push(position);
    else byKey.set(event.dedupeKey, { event, positions: [position] });
  });
  return [...byKey.values()];
}

async function insertWithRetry(db: Queryable, groups: KeyGroup[]): Promise<Map<string, ReturnedRow>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await db.query<ReturnedRow>(INSERT_BATCH, columns(groups));
      return new Map(rows.map((row) => [row.dedupe_key, row]));
    } catch (error) {
      if (!isRetryable(error) || attempt === ATTEMPTS) throw error;
    }
  }
}

function columns(groups: KeyGroup[]): unknown[][] {
  const pick = <T>(get: (event: PreparedEvent) => T): T[] => groups.map((group) => get(group.event));
  return [
    pick((event) => event.source),
    pick((event) => event.eventType),
    pick((event) => event.dedupeKey),
    pick((event) => event.idMsg),
    pick((event) => event.transactionId),
    pick((event) => event.operationId),
    pick((event) => event.rawText),
    pick((event) => event.rawBodyHex),
    pick((event) => event.payloadJson),
    pick((event) => event.headersJson),
    pick((event) => event.receivedAtIso),
    pick((event) => event.driftJson),
    pick((event) => event.outcome),
    pick((event) => event.reason),
    pick((event) => event.answerStatus),
    pick((event) => event.refundReason),
    groups.map((group) => group.positions.length),
  ];
}

/**
 * The row's deliveries already count every copy in this batch; copy i (0-based) of n is delivery
 * (total - n + i + 1). Only the first copy of a row that was new is "inserted".
 */
function answer(results: Array<AppendResult | Error>, groups: KeyGroup[], rows: Map<string, ReturnedRow>): void {
  for (const group of groups) {
    const row = rows.get(group.event.dedupeKey);
    if (row === undefined) throw new Error(`the batch insert returned no row for a key it was given (${group.positions.length} events): a bug in the store`);
    const copies = group.positions.length;
    group.positions.forEach((position, index) => {
      results[position] = {
        seq: row.seq,
        inserted: row.inserted && index === 0,
        deliveries: row.deliveries - copies + index + 1,
        outcome: row.outcome,
        reason: row.reason,
        answerStatus: row.answer_status,
        refundReason: row.refund_reason,
      };
    });
  }
}

function fill(results: Array<AppendResult | Error>, group: KeyGroup, error: Error): Array<AppendResult | Error> {
  for (const position of group.positions) results[position] = error;
  return results;
}

function rejected(error: unknown): StoreInputError {
  return new StoreInputError(`the event could not be stored as given: ${messageOf(error)}`, { cause: error });
}
