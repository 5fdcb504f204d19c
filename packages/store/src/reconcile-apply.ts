// Applying a claimed batch of stored events to the ledger: one statement for the whole batch
// (set-based, never one round trip per event), reading the events' jsonb on the server, then the
// two decisions over candidates (CEP ownership, receivable matching) for the rows it made. Every insert is keyed (event seq, transaction id, file name) and ON CONFLICT DO NOTHING,
// so applying twice changes nothing; a status only ever moves forward, so order does not matter.
// The caller holds the events' row locks and marks them applied in the same transaction.
import type { Queryable } from './database.ts';
import { matchReceivables } from './ledger-receivables-match.ts';
import { refreshOwnership } from './reconcile-ownership-store.ts';

/** Parks the events that cannot be applied (reason from ledger_event_problem); returns their seqs. */
export async function parkInvalid(tx: Queryable, seqs: readonly string[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ seq: string }>(
    `WITH problems AS (
       SELECT e.seq, ledger_event_problem(e.event_type, e.payload) AS reason FROM webhook_events e WHERE e.seq = ANY($1::bigint[])
     )
     INSERT INTO ledger_parked_events (seq, reason) SELECT seq, reason FROM problems WHERE reason IS NOT NULL
     ON CONFLICT (seq) DO UPDATE SET reason = EXCLUDED.reason, attempts = ledger_parked_events.attempts + 1, retry = false, parked_at = now()
     RETURNING seq::text AS seq`,
    [seqs],
  );
  return new Set(rows.map((row) => row.seq));
}

/** Parks one event with a reason of our own (the database refused to apply it). */
export async function park(tx: Queryable, seq: string, reason: string): Promise<void> {
  await tx.query(
    `INSERT INTO ledger_parked_events (seq, reason) VALUES ($1::bigint, $2)
     ON CONFLICT (seq) DO UPDATE SET reason = EXCLUDED.reason, attempts = ledger_parked_events.attempts + 1, retry = false, parked_at = now()`,
    [seq, reason],
  );
}

/**
 * Every row the batch's events make, and the events marked applied, in one statement: each event
 * is read once (the `events` CTE) and each kind of row is written by its own data-modifying CTE.
 * Statements that would read back rows written in the same statement read them from `events`
 * instead (a CTE cannot see another's writes). Returns the new CEP results' and credits'
 * transaction ids, for the two steps decided in JavaScript or over candidates: ownership, matching.
 */
const APPLY_SQL = `
WITH events AS MATERIALIZED (
  SELECT e.seq, e.event_type, e.payload, e.payload->'body' AS b, e.received_at, e.outcome
  FROM webhook_events e WHERE e.seq = ANY($1::bigint[])
), updates AS (
  SELECT seq AS event_seq, b->>'id' AS transaction_id, b->>'tracking_key' AS tracking_key, b->>'status' AS status, b->>'reason' AS reason,
         b->>'reason_description' AS reason_description, (b->>'update_at')::timestamptz AS updated_at, received_at
  FROM events WHERE event_type = 'STATUS_UPDATE'
), history AS (
  INSERT INTO ledger_status_history (event_seq, transaction_id, tracking_key, status, reason, reason_description, updated_at, received_at)
  SELECT event_seq, transaction_id, tracking_key, status, reason, reason_description, updated_at, received_at FROM updates
  ON CONFLICT (event_seq) DO NOTHING
), forward AS (
  -- Forward only: the furthest status of the batch per transaction, if it is further than the ledger's.
  UPDATE ledger_outbound o
  SET status = h.status, status_rank = h.rank, status_reason = coalesce(h.reason_description, h.reason), status_at = h.updated_at, status_seq = h.event_seq
  FROM (
    SELECT DISTINCT ON (transaction_id) transaction_id, status, ledger_status_rank(status) AS rank, reason, reason_description, updated_at, event_seq
    FROM updates
    ORDER BY transaction_id, ledger_status_rank(status) DESC, event_seq
  ) h
  WHERE o.transaction_id = h.transaction_id AND h.rank > o.status_rank
), ceps AS (
  INSERT INTO ledger_cep_results (event_seq, transaction_id, status, beneficiary_name, beneficiary_rfc, beneficiary_account, processed_at, received_at)
  SELECT seq, b->>'id', CASE WHEN b->>'status' = 'INITIALIZED' THEN 'PENDING' ELSE b->>'status' END,
         b->>'beneficiary_name', b->>'beneficiary_rfc', b->>'beneficiary_account', (b->>'processed_at')::timestamptz, received_at
  FROM events WHERE event_type = 'CEP'
  ON CONFLICT (event_seq) DO NOTHING
  RETURNING transaction_id
), credits AS (
  INSERT INTO ledger_credits (transaction_id, event_seq, sub_category, beneficiary_account, payer_account, payer_name, amount, tracking_key,
                              numeric_reference, concept, owner_id, transaction_at, gateway_outcome)
  SELECT b->>'id', seq, b->>'sub_category', b->>'beneficiary_account', b->>'payer_account', b->>'payer_name', (b->>'amount')::numeric,
         b->>'tracking_key', b->>'numeric_reference', b->>'payment_concept', b->>'owner_id',
         coalesce(((b->>'transaction_date') || '-06:00')::timestamptz, received_at), outcome
  FROM events WHERE event_type = 'MONEY_IN'
  ON CONFLICT (transaction_id) DO NOTHING
  RETURNING transaction_id
), refunds AS (
  INSERT INTO ledger_refunds (transaction_id, event_seq, sub_category, original_transaction_id, original_tracking_key, amount, original_amount_stated,
                              tracking_key, transaction_at)
  SELECT b->>'id', seq, b->>'sub_category', b->>'original_transaction_id', b->>'original_transaction_tracking_id', (b->>'amount')::numeric,
         (b->>'original_transaction_amount')::numeric, b->>'tracking_key', coalesce(((b->>'transaction_date') || '-06:00')::timestamptz, received_at)
  FROM events WHERE event_type = 'REFUND'
  ON CONFLICT (transaction_id) DO NOTHING
), reports AS (
  -- REPORT is flat. A file imported before its event keeps its lines and gains the event.
  INSERT INTO ledger_reports (file_name, client_id, file_type, period, created_at, event_seq)
  SELECT payload->>'file_name', payload->>'client_id', payload->>'file_type', payload->>'period', (payload->>'created_at')::timestamptz, seq
  FROM events WHERE event_type = 'REPORT'
  ON CONFLICT (file_name) DO UPDATE SET
    event_seq = coalesce(ledger_reports.event_seq, EXCLUDED.event_seq), client_id = coalesce(ledger_reports.client_id, EXCLUDED.client_id),
    file_type = coalesce(ledger_reports.file_type, EXCLUDED.file_type), period = coalesce(ledger_reports.period, EXCLUDED.period),
    created_at = coalesce(ledger_reports.created_at, EXCLUDED.created_at)
), applied AS (
  -- Cash events and unknown core types have no ledger rows (yet): applied means "seen".
  UPDATE webhook_events SET applied_at = now() WHERE seq = ANY($1::bigint[])
), unparked AS (
  DELETE FROM ledger_parked_events WHERE seq = ANY($1::bigint[])
)
SELECT 'cep' AS kind, transaction_id FROM ceps
UNION ALL
SELECT 'credit' AS kind, transaction_id FROM credits`;

/** Applies valid events (already checked by parkInvalid) and marks them applied. */
export async function applyEvents(tx: Queryable, seqs: readonly string[]): Promise<void> {
  if (seqs.length === 0) return;
  const { rows } = await tx.query<{ kind: 'cep' | 'credit'; transaction_id: string }>(APPLY_SQL, [seqs]);
  const cepIds = [...new Set(rows.filter((row) => row.kind === 'cep').map((row) => row.transaction_id))];
  if (cepIds.length > 0) await refreshOwnership(tx, cepIds);
  const creditIds = rows.filter((row) => row.kind === 'credit').map((row) => row.transaction_id);
  if (creditIds.length > 0) await matchReceivables(tx, { creditIds });
}
