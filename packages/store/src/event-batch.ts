// One batch of appends as ONE statement: INSERT … SELECT FROM json_to_recordset(…) ON CONFLICT DO
// UPDATE, in autocommit (one transaction, one fsync). Duplicates of a key within the batch are
// collapsed first (ON CONFLICT cannot touch the same row twice in one statement); each copy still
// gets its own answer: the first decision stored for the key, and its own delivery count. A copy
// with another body is written in a statement after the first, where it meets the stored event and
// is recorded as a conflict before it is answered, so no body is lost (ledger_conflicts, in the
// ledger's definition of the function: @paykit/ledger's sql/functions/webhook_events_append.sql). An event
// with an account guard is written only if the account's row is still the version its decision
// read; otherwise it is not written and its append rejects with AccountChangedError, carrying the
// account as it is now, for the caller to decide again.
import { readAccounts } from './accounts.ts';
import { isDataError, isRetryable, messageOf } from './connection-errors.ts';
import type { Queryable } from './database.ts';
import { AccountChangedError, StoreInputError } from './errors.ts';
import type { PreparedEvent } from './event-input.ts';
import type { AppendResult, Outcome } from './events.ts';
import { jsonbSafe } from './jsonb-text.ts';

// The batch travels as two parameters, the same for pg and PGlite: the bodies, end to end, as one
// binary bytea (copied, never escaped or decoded), and everything else as one JSON document (one
// native JSON.stringify, where a text array per column costs an escaping pass per value in
// JavaScript). Each body travels once and is stored once: its bytea is cut from it in the database,
// and a payload the caller did not give is parsed from it there and read from it later (NULL in
// `payload`). The statement is the function webhook_events_append, whose plan the server keeps: the
// store's migrations 0005 and 0006 create it, and the ledger's set defines it as it is with the
// ledger (@paykit/ledger's sql/functions/webhook_events_append.sql: seq order, the account guard,
// the lock order and the redelivery conflicts are explained there).
const INSERT_BATCH = 'SELECT * FROM webhook_events_append($1::json, $2::bytea)';

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
export async function commitEvents(
  db: Queryable,
  events: PreparedEvent[],
  unavailable: (error: unknown) => Error,
): Promise<Array<AppendResult | Error>> {
  const results: Array<AppendResult | Error> = new Array(events.length);
  for (const groups of roundsByKey(events)) await commitRound(db, groups, results, unavailable);
  return results;
}

async function commitRound(
  db: Queryable,
  groups: KeyGroup[],
  results: Array<AppendResult | Error>,
  unavailable: (error: unknown) => Error,
): Promise<Array<AppendResult | Error>> {
  try {
    await write(db, groups, results);
  } catch (error) {
    if (!isDataError(error) || groups.length === 1) {
      if (isDataError(error)) return fill(results, groups[0]!, rejected(error));
      throw error;
    }
    for (const group of groups) {
      try {
        await write(db, [group], results);
      } catch (groupError) {
        fill(results, group, isDataError(groupError) ? rejected(groupError) : unavailable(groupError));
      }
    }
  }
  return results;
}

/** Writes the groups in one statement and answers their events; those whose guard failed get AccountChangedError with the account as it is now. */
async function write(db: Queryable, groups: KeyGroup[], results: Array<AppendResult | Error>): Promise<void> {
  const changed = answer(results, groups, await insertWithRetry(db, groups));
  if (changed.length === 0) return;
  const accounts = await readAccounts(
    db,
    changed.map((group) => group.event.guardClabe!),
  );
  for (const group of changed)
    fill(results, group, new AccountChangedError(group.event.guardClabe!, accounts.get(group.event.guardClabe!)));
}

/**
 * The batch's events grouped by key and body: round 1 holds the first body of every key, round n
 * the n-th distinct body of a key (copies of a body join its group). Each round is one statement.
 */
function roundsByKey(events: PreparedEvent[]): KeyGroup[][] {
  const rounds: KeyGroup[][] = [];
  const byKey = new Map<string, KeyGroup[]>();
  events.forEach((event, position) => {
    const groups = byKey.get(event.dedupeKey) ?? [];
    const same = groups.find((group) => sameBytes(group.event.rawBody, event.rawBody));
    if (same) {
      same.positions.push(position);
      return;
    }
    groups.push({ event, positions: [position] });
    byKey.set(event.dedupeKey, groups);
    (rounds[groups.length - 1] ??= []).push(groups.at(-1)!);
  });
  return rounds;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

async function insertWithRetry(db: Queryable, groups: KeyGroup[]): Promise<Map<string, ReturnedRow>> {
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await db.query<ReturnedRow>(INSERT_BATCH, batchParameters(groups));
      return new Map(rows.map((row) => [row.dedupe_key, row]));
    } catch (error) {
      if (!isRetryable(error) || attempt === ATTEMPTS) throw error;
    }
  }
}

/** The batch as the statement's parameters: a JSON array of rows, keys named as the function's columns, and the bodies. */
function batchParameters(groups: KeyGroup[]): [string, Buffer] {
  let at = 0;
  const rows = groups.map(({ event, positions }) => {
    const bodyAt = at;
    at += event.rawBody.byteLength;
    return {
      source: event.source,
      event_type: event.eventType,
      dedupe_key: event.dedupeKey,
      id_msg: event.idMsg,
      transaction_id: event.transactionId,
      operation_id: event.operationId,
      body_at: bodyAt,
      body_length: event.rawBody.byteLength,
      payload_at: event.payloadAt === null ? null : bodyAt + event.payloadAt,
      payload: event.payloadJson,
      headers: event.headers,
      received_at: event.receivedAtIso,
      drift: event.drift,
      outcome: event.outcome,
      reason: event.reason,
      answer_status: event.answerStatus,
      refund_reason: event.refundReason,
      deliveries: positions.length,
      guard_clabe: event.guardClabe,
      guard_version: event.guardVersion,
    };
  });
  // A lone surrogate in any string (a header value, say) would make PostgreSQL refuse the whole
  // document: it becomes U+FFFD, as it would have in a text parameter.
  return [
    jsonbSafe(JSON.stringify(rows)),
    Buffer.concat(
      groups.map((group) => group.event.rawBody),
      at,
    ),
  ];
}

/**
 * The row's deliveries already count every copy in this batch; copy i (0-based) of n is delivery
 * (total - n + i + 1). Only the first copy of a row that was new is "inserted". Returns the groups
 * the statement did not write because their account guard failed.
 */
function answer(results: Array<AppendResult | Error>, groups: KeyGroup[], rows: Map<string, ReturnedRow>): KeyGroup[] {
  const changed: KeyGroup[] = [];
  for (const group of groups) {
    const row = rows.get(group.event.dedupeKey);
    if (row === undefined) {
      if (group.event.guardClabe !== null) changed.push(group);
      else
        throw new Error(
          `the batch insert returned no row for a key it was given (${group.positions.length} events): a bug in the store`,
        );
      continue;
    }
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
  return changed;
}

function fill(results: Array<AppendResult | Error>, group: KeyGroup, error: Error): Array<AppendResult | Error> {
  for (const position of group.positions) results[position] = error;
  return results;
}

function rejected(error: unknown): StoreInputError {
  return new StoreInputError(`the event could not be stored as given: ${messageOf(error)}`, { cause: error });
}
