// Reading events and replays back: one column list, one mapping, the same JavaScript values from
// pg and PGlite (bytea arrives as a Buffer from one and a Uint8Array from the other).
import type { DriftNote, EventSource, Outcome, ReplayRecord, StoredEvent } from './events.ts';

// A payload that is the body's own JSON is not stored twice: webhook_event_payload reads it from the
// body (sql/functions/webhook_event_payload.sql; migrations/0006_payload_from_body.sql stopped storing it).
export const EVENT_COLUMNS = `seq::text AS seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body,
  webhook_event_payload(raw_body, payload) AS payload, headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries`;

export const REPLAY_COLUMNS = 'seq::text AS seq, replayed_at, drift, outcome, reason, answer_status, refund_reason';

export interface EventRow {
  seq: string;
  source: EventSource;
  event_type: string;
  dedupe_key: string;
  id_msg: string | null;
  transaction_id: string | null;
  operation_id: string | null;
  raw_body: Uint8Array;
  payload: unknown;
  headers: Record<string, string>;
  received_at: Date;
  drift: DriftNote[];
  outcome: Outcome;
  reason: string | null;
  answer_status: number;
  refund_reason: string | null;
  deliveries: number;
}

export interface ReplayRow {
  seq: string;
  replayed_at: Date;
  drift: DriftNote[];
  outcome: Outcome;
  reason: string | null;
  answer_status: number;
  refund_reason: string | null;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    seq: row.seq,
    source: row.source,
    eventType: row.event_type,
    dedupeKey: row.dedupe_key,
    idMsg: row.id_msg,
    transactionId: row.transaction_id,
    operationId: row.operation_id,
    // A plain Uint8Array copy: the same type from both drivers, and no view into pg's shared buffer.
    rawBody: new Uint8Array(row.raw_body),
    payload: row.payload,
    headers: row.headers,
    receivedAt: row.received_at,
    drift: row.drift,
    outcome: row.outcome,
    reason: row.reason,
    answerStatus: row.answer_status,
    refundReason: row.refund_reason,
    deliveries: row.deliveries,
  };
}

export function toReplayRecord(row: ReplayRow): ReplayRecord {
  return {
    seq: row.seq,
    replayedAt: row.replayed_at,
    drift: row.drift,
    outcome: row.outcome,
    reason: row.reason,
    answerStatus: row.answer_status,
    refundReason: row.refund_reason,
  };
}
