// Applying a claimed batch of stored events to the ledger: one statement for the whole batch
// (set-based, never one round trip per event), reading the events' jsonb on the server, then the
// two decisions over candidates (CEP ownership, receivable matching) for the rows it made. Every
// insert is keyed (event seq, transaction id, file name) and ON CONFLICT DO NOTHING, so applying
// twice changes nothing; a status only ever moves forward, so order does not matter.
// The caller holds the events' chunk locks (reconcile-claim.ts); the statement re-reads them with
// its own snapshot, newer than the locks, so an event a batch before it applied or parked is left out.
import type { Queryable } from './database.ts';
import { matchReceivables } from './ledger-receivables-match.ts';
import { WAITING } from './reconcile-claim.ts';
import { refreshOwnership } from './reconcile-ownership-store.ts';

const PARK_CONFLICT = 'ON CONFLICT (seq) DO UPDATE SET reason = EXCLUDED.reason, attempts = ledger_parked_events.attempts + 1, retry = false, parked_at = now()';

/** Parks one event, still waiting, with a reason of our own (the database refused to apply it); false when it is not waiting any more. */
export async function park(tx: Queryable, seq: string, reason: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `INSERT INTO ledger_parked_events (seq, reason)
     SELECT e.seq, $2 FROM webhook_events e WHERE e.seq = $1::bigint AND ${WAITING('= $1::bigint')}
     ${PARK_CONFLICT}`,
    [seq, reason],
  );
  return rowCount > 0;
}

/**
 * Every row the batch's events make, the events marked applied and the ones that cannot be
 * applied parked (with ledger_event_problem's reason), in one statement: each event is read once
 * (the `read` CTE) and each kind of row is written by its own data-modifying CTE. Statements that
 * would read back rows written in the same statement read them from `events` instead (a CTE cannot
 * see another's writes). Returns the new CEP results' and credits' transaction ids, for the two
 * steps decided in JavaScript or over candidates (ownership, matching), and what was applied and parked.
 */
const APPLY_SQL = `
WITH read AS MATERIALIZED (
  SELECT seq, event_type, payload, received_at, outcome, ledger_event_problem(event_type, payload) AS problem
  FROM (
    -- OFFSET 0 keeps this a subquery of its own: each payload is read from its body once, not once per use.
    SELECT e.seq, e.event_type, webhook_event_payload(e.raw_body, e.payload) AS payload, e.received_at, e.outcome
    FROM webhook_events e WHERE e.seq = ANY($1::bigint[]) AND ${WAITING('= ANY($1::bigint[])')}
    OFFSET 0
  ) e
), events AS NOT MATERIALIZED (
  -- The events to apply: each statement below reads them from "read" (no second copy of the jsonb).
  SELECT seq, event_type, payload, payload->'body' AS b, received_at, outcome FROM read WHERE problem IS NULL
), parked AS (
  INSERT INTO ledger_parked_events (seq, reason) SELECT seq, problem FROM read WHERE problem IS NOT NULL
  ${PARK_CONFLICT}
  RETURNING seq
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
  -- Cash events and unknown core types have no ledger rows (yet): applied means "seen". No
  -- conflict clause: the claim makes a second marker impossible; were one to come, the batch would
  -- fail and be retried event by event, where the re-read drops the event already applied.
  INSERT INTO webhook_events_applied (seq) SELECT seq FROM events
  RETURNING seq
), unparked AS (
  DELETE FROM ledger_parked_events WHERE seq IN (SELECT seq FROM events)
)
SELECT 'cep' AS kind, transaction_id AS value FROM ceps
UNION ALL
SELECT 'credit', transaction_id FROM credits
UNION ALL
SELECT 'applied', count(*)::text FROM applied
UNION ALL
SELECT 'parked', count(*)::text FROM parked`;

/** Applies the events still waiting among `seqs` (parking those that do not read as their type) and marks them applied. */
export async function applyEvents(tx: Queryable, seqs: readonly string[]): Promise<{ applied: number; parked: number }> {
  if (seqs.length === 0) return { applied: 0, parked: 0 };
  const { rows } = await tx.query<{ kind: 'cep' | 'credit' | 'applied' | 'parked'; value: string }>(APPLY_SQL, [seqs]);
  const values = (kind: string) => rows.filter((row) => row.kind === kind).map((row) => row.value);
  const cepIds = [...new Set(values('cep'))];
  if (cepIds.length > 0) await refreshOwnership(tx, cepIds);
  const creditIds = values('credit');
  if (creditIds.length > 0) await matchReceivables(tx, { creditIds });
  return { applied: Number(values('applied')[0]), parked: Number(values('parked')[0]) };
}
