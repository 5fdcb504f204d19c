// Applying a claimed batch of stored events to the ledger: one statement for the whole batch
// (set-based, never one round trip per event), reading the events' jsonb on the server, then the
// merges over every fact known for the items it touched (a transfer's status, second refunds, CEP
// ownership, receivable matching) and the journal's postings for them (../journal/post.ts), under the
// items' key locks (../item-locks.ts) so that a recorder or another worker writing a fact of the same
// item at the same moment is never missed. Every insert is keyed (event seq, transaction id, file
// name), so applying twice changes nothing, and every merge reads all the facts, so the order they
// came in does not matter.
// The caller holds the events' chunk locks (claim.ts); the statement re-reads them with
// its own snapshot, newer than the locks, so an event a batch before it applied or parked is left out.
import type { Queryable } from '@paykit/store';
import { recordSecondRefunds } from './conflicts.ts';
import { lockItems } from '../item-locks.ts';
import type { ItemKey } from '../item-locks.ts';
import { postItems, rematchAccounts, type JournalItem } from '../journal/post.ts';
import { mergeStatus } from './merge-status.ts';
import { WAITING } from './claim.ts';
import { refreshOwnership } from './refresh-ownership.ts';

const PARK_CONFLICT =
  'ON CONFLICT (seq) DO UPDATE SET reason = EXCLUDED.reason, attempts = ledger_parked_events.attempts + 1, retry = false, parked_at = now()';

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
 * Every fact the batch's events carry, written, the events marked applied and the ones that cannot
 * be applied parked (with ledger_event_problem's reason), in one statement: each event is read once
 * (the `read` CTE) and each kind of row is written by its own data-modifying CTE. A credit or
 * refund whose transaction is already in the ledger (from an earlier batch or this one) is a
 * duplicate when its content is the same, and a conflict (ledger_conflicts) when it is not. What
 * depends on facts other writers may be adding at the same moment (a transfer's status, a second
 * refund, ownership, receivable matching) is merged after, under the items' key locks. Returns
 * those items' keys, and what was applied and parked.
 */
const APPLY_SQL = `
WITH read AS MATERIALIZED (
  -- The body of a core event is taken out of its payload here, once: every use below reads its
  -- fields from that value (b), never from the payload again. Events of the flat forms (REPORT,
  -- charge_result…) keep their payload instead.
  SELECT seq, event_type, CASE WHEN core THEN payload->'body' END AS b, CASE WHEN NOT core THEN payload END AS payload,
         received_at, outcome, parked_before,
         CASE WHEN event_type = 'charge_result' THEN ledger_charge_problem(payload) ELSE ledger_event_problem(event_type, payload) END AS problem
  FROM (
    -- OFFSET 0 keeps this a subquery of its own: each payload is read from its body once, not once per use.
    SELECT e.seq, e.event_type, webhook_event_payload(e.raw_body, e.payload) AS payload, e.received_at, e.outcome,
           e.event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AS core, p.seq IS NOT NULL AS parked_before
    FROM webhook_events e
    -- Waiting (claim.ts WAITING): not applied, and not parked unless asked to be retried.
    -- The range repeats the batch's seqs on the marker table, so it is read by its index, never whole.
    LEFT JOIN ledger_parked_events p ON p.seq = e.seq AND p.seq = ANY($1::bigint[])
    WHERE e.seq = ANY($1::bigint[]) AND (p.seq IS NULL OR p.retry)
      AND NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq
                        AND a.seq BETWEEN (SELECT min(s) FROM unnest($1::bigint[]) s) AND (SELECT max(s) FROM unnest($1::bigint[]) s))
    OFFSET 0
  ) e
), events AS NOT MATERIALIZED (
  -- The events to apply: each statement below reads them from "read" (no second copy of the jsonb).
  SELECT seq, event_type, payload, b, ledger_id(b->'id') AS id, received_at, outcome, parked_before FROM read WHERE problem IS NULL
), parked AS (
  INSERT INTO ledger_parked_events (seq, reason) SELECT seq, problem FROM read WHERE problem IS NOT NULL
  ${PARK_CONFLICT}
  RETURNING seq
), updates AS (
  SELECT seq AS event_seq, id AS transaction_id, ledger_id(b->'tracking_key') AS tracking_key, b->>'status' AS status, b->>'reason' AS reason,
         b->>'reason_description' AS reason_description, ledger_time(b->>'update_at') AS updated_at, received_at
  FROM events WHERE event_type = 'STATUS_UPDATE'
), history AS (
  INSERT INTO ledger_status_history (event_seq, transaction_id, tracking_key, status, reason, reason_description, updated_at, received_at)
  SELECT event_seq, transaction_id, tracking_key, status, reason, reason_description, updated_at, received_at FROM updates
  ON CONFLICT (event_seq) DO NOTHING
), ceps AS (
  INSERT INTO ledger_cep_results (event_seq, transaction_id, status, beneficiary_name, beneficiary_rfc, beneficiary_account, processed_at, received_at)
  SELECT seq, id, CASE WHEN b->>'status' = 'INITIALIZED' THEN 'PENDING' ELSE b->>'status' END,
         b->>'beneficiary_name', b->>'beneficiary_rfc', b->>'beneficiary_account', ledger_time(b->>'processed_at'), received_at
  FROM events WHERE event_type = 'CEP'
  ON CONFLICT (event_seq) DO NOTHING
  RETURNING transaction_id
), credit_facts AS (
  SELECT seq, id, upper(b->>'sub_category') AS sub_category, ledger_id(b->'beneficiary_account') AS beneficiary_account, ledger_id(b->'payer_account') AS payer_account,
         b->>'payer_name' AS payer_name, paykit_amount(b->'amount') AS amount, ledger_id(b->'tracking_key') AS tracking_key,
         ledger_id(b->'numeric_reference') AS numeric_reference, b->>'payment_concept' AS concept, b->>'owner_id' AS owner_id,
         coalesce(ledger_time(b->>'transaction_date'), received_at) AS transaction_at, outcome,
         count(*) OVER (PARTITION BY id) AS copies
  FROM events WHERE event_type = 'MONEY_IN'
), credits AS (
  -- One row per transaction: the first event of the batch for it, unless the ledger has one. The
  -- no-op update returns the row that stands, to compare every other event with.
  INSERT INTO ledger_credits (transaction_id, event_seq, sub_category, beneficiary_account, payer_account, payer_name, amount, tracking_key,
                              numeric_reference, concept, owner_id, transaction_at, gateway_outcome)
  SELECT DISTINCT ON (id) id, seq, sub_category, beneficiary_account, payer_account, payer_name, amount, tracking_key, numeric_reference, concept,
         owner_id, transaction_at, outcome
  FROM credit_facts ORDER BY id, seq
  ON CONFLICT (transaction_id) DO UPDATE SET event_seq = ledger_credits.event_seq
  RETURNING transaction_id, event_seq, sub_category, beneficiary_account, payer_account, amount, tracking_key, numeric_reference, (xmax = 0) AS inserted
), credit_conflicts AS (
  INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, event_seq, first_amount, amount, detail)
  SELECT 'credit', f.id, 'MONEY_IN', c.event_seq, f.seq, c.amount, f.amount,
         'a second MONEY_IN for transaction ' || f.id || ' with other content (amount ' || f.amount || ' to ' || f.beneficiary_account
           || ', the ledger holds ' || c.amount || ' to ' || c.beneficiary_account || ' from event ' || c.event_seq || ')'
  -- Only the facts that met another (in the batch, or in the ledger) are compared: the estimates of
  -- these CTEs are one row, so the join is a nested loop, which over every credit of a batch cost
  -- 30 ms a batch.
  FROM (SELECT * FROM credit_facts WHERE copies > 1 OR id IN (SELECT transaction_id FROM credits WHERE NOT inserted)) f
  JOIN credits c ON c.transaction_id = f.id
  WHERE f.seq <> c.event_seq
    AND (f.amount, f.beneficiary_account, f.sub_category, f.payer_account, f.tracking_key, f.numeric_reference)
        IS DISTINCT FROM (c.amount, c.beneficiary_account, c.sub_category, c.payer_account, c.tracking_key, c.numeric_reference)
  ON CONFLICT (event_seq) DO NOTHING
  RETURNING transaction_id
), refund_facts AS (
  SELECT seq, id, b->>'sub_category' AS sub_category, ledger_id(b->'original_transaction_id') AS original_transaction_id,
         ledger_id(b->'original_transaction_tracking_id') AS original_tracking_key, paykit_amount(b->'amount') AS amount,
         paykit_amount(b->'original_transaction_amount') AS original_amount_stated, ledger_id(b->'tracking_key') AS tracking_key,
         coalesce(ledger_time(b->>'transaction_date'), received_at) AS transaction_at, count(*) OVER (PARTITION BY id) AS copies
  FROM events WHERE event_type = 'REFUND'
), refunds AS (
  INSERT INTO ledger_refunds (transaction_id, event_seq, sub_category, original_transaction_id, original_tracking_key, amount, original_amount_stated,
                              tracking_key, transaction_at)
  SELECT DISTINCT ON (id) id, seq, sub_category, original_transaction_id, original_tracking_key, amount, original_amount_stated, tracking_key, transaction_at
  FROM refund_facts ORDER BY id, seq
  ON CONFLICT (transaction_id) DO UPDATE SET event_seq = ledger_refunds.event_seq
  RETURNING transaction_id, event_seq, original_transaction_id, amount, (xmax = 0) AS inserted
), refund_conflicts AS (
  INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, event_seq, first_amount, amount, detail)
  SELECT 'refund', f.id, 'REFUND', r.event_seq, f.seq, r.amount, f.amount,
         'a second REFUND ' || f.id || ' with other content (amount ' || f.amount || ' of ' || f.original_transaction_id
           || ', the ledger holds ' || r.amount || ' of ' || r.original_transaction_id || ' from event ' || r.event_seq || ')'
  FROM (SELECT * FROM refund_facts WHERE copies > 1 OR id IN (SELECT transaction_id FROM refunds WHERE NOT inserted)) f
  JOIN refunds r ON r.transaction_id = f.id
  WHERE f.seq <> r.event_seq AND (f.amount, f.original_transaction_id) IS DISTINCT FROM (r.amount, r.original_transaction_id)
  ON CONFLICT (event_seq) DO NOTHING
  RETURNING transaction_id
), reports AS (
  -- REPORT is flat. A file imported before its event keeps its lines and gains the event.
  INSERT INTO ledger_reports (file_name, client_id, file_type, period, created_at, event_seq)
  SELECT payload->>'file_name', payload->>'client_id', payload->>'file_type', payload->>'period', ledger_time(payload->>'created_at'), seq
  FROM events WHERE event_type = 'REPORT'
  ON CONFLICT (file_name) DO UPDATE SET
    event_seq = coalesce(ledger_reports.event_seq, EXCLUDED.event_seq), client_id = coalesce(ledger_reports.client_id, EXCLUDED.client_id),
    file_type = coalesce(ledger_reports.file_type, EXCLUDED.file_type), period = coalesce(ledger_reports.period, EXCLUDED.period),
    created_at = coalesce(ledger_reports.created_at, EXCLUDED.created_at)
), dd_results AS (
  -- Direct debit charge_result: one row per (charge, outcome); of two copies the earliest stands,
  -- whichever is applied first, so the ledger ends the same in any order.
  INSERT INTO ledger_dd_results AS r (charge_id, outcome, event_seq, reference, amount, reason, result_at, received_at)
  SELECT DISTINCT ON (charge_id, outcome) charge_id, outcome, seq, reference, amount, reason, result_at, received_at
  FROM (
    SELECT seq, ledger_id(d->'charge_id') AS charge_id, lower(d->>'charge_result') AS outcome, d->>'charge_reference' AS reference,
           -- A JSON number read as its text (100, 100.0, 250.5), never as a float.
           ledger_amount(d->>'amount') AS amount, d->>'declined_reason' AS reason,
           coalesce(ledger_time(payload->>'timestamp'), received_at) AS result_at, received_at
    FROM (SELECT seq, payload, ledger_charge_data(payload) AS d, received_at FROM events WHERE event_type = 'charge_result') c
  ) f
  ORDER BY charge_id, outcome, result_at, seq
  ON CONFLICT (charge_id, outcome) DO UPDATE SET
    event_seq = EXCLUDED.event_seq, reference = EXCLUDED.reference, amount = EXCLUDED.amount, reason = EXCLUDED.reason,
    result_at = EXCLUDED.result_at, received_at = EXCLUDED.received_at
  WHERE (EXCLUDED.result_at, EXCLUDED.event_seq) < (r.result_at, r.event_seq)
  RETURNING charge_id
), applied AS (
  -- Cash events and unknown core types have no ledger rows (yet): applied means "seen". No
  -- conflict clause: the claim makes a second marker impossible; were one to come, the batch would
  -- fail and be retried event by event, where the re-read drops the event already applied.
  INSERT INTO webhook_events_applied (seq) SELECT seq FROM events
  RETURNING seq
), unparked AS (
  -- Only an event parked and asked to be retried can be among them.
  DELETE FROM ledger_parked_events WHERE seq IN (SELECT seq FROM events WHERE parked_before)
)
SELECT 'status_tx' AS kind, transaction_id AS value FROM updates WHERE transaction_id IS NOT NULL
UNION ALL
SELECT 'status_tk', tracking_key FROM updates WHERE transaction_id IS NULL
UNION ALL
SELECT 'cep', transaction_id FROM ceps
UNION ALL
SELECT 'credit', transaction_id FROM credits WHERE inserted
UNION ALL
SELECT 'refunded', original_transaction_id FROM refunds
UNION ALL
SELECT 'charge', charge_id FROM dd_results
UNION ALL
SELECT 'credit_conflict', transaction_id FROM credit_conflicts
UNION ALL
SELECT 'refund_conflict', transaction_id FROM refund_conflicts
UNION ALL
SELECT 'applied', count(*)::text FROM applied
UNION ALL
SELECT 'parked', count(*)::text FROM parked`;

type Kind =
  | 'status_tx'
  | 'status_tk'
  | 'cep'
  | 'credit'
  | 'refunded'
  | 'charge'
  | 'credit_conflict'
  | 'refund_conflict'
  | 'applied'
  | 'parked';

/** Applies the events still waiting among `seqs` (parking those that cannot be applied) and marks them applied. */
export async function applyEvents(
  tx: Queryable,
  seqs: readonly string[],
): Promise<{ applied: number; parked: number }> {
  if (seqs.length === 0) return { applied: 0, parked: 0 };
  const { rows } = await tx.query<{ kind: Kind; value: string }>(APPLY_SQL, [seqs]);
  const values = (kind: Kind) => [...new Set(rows.filter((row) => row.kind === kind).map((row) => row.value))];
  const statusIds = values('status_tx');
  const trackingKeys = values('status_tk');
  const cepIds = values('cep');
  // A credit or refund whose content is contested books nothing (which one is true is not known):
  // its item is posted again, whichever of the two facts came first.
  const creditIds = [...new Set([...values('credit'), ...values('credit_conflict')])];
  const refunded = [...new Set([...values('refunded'), ...(await refundedBy(tx, values('refund_conflict')))])];
  const chargeIds = values('charge');
  // A refund reopens what its credit paid, a contested credit pays nothing: the credit's account is
  // matched again. Credits never change account, so the account is read before locking; one whose
  // credit commits in between is found again after the lock below and locked then.
  const accounts = new Set(await creditAccounts(tx, [...creditIds, ...refunded]));
  const keys: ItemKey[] = [
    ...[...statusIds, ...cepIds, ...refunded, ...creditIds].map((id): ItemKey => `tx:${id}`),
    ...trackingKeys.map((key): ItemKey => `tk:${key}`),
    ...[...accounts].map((account): ItemKey => `acct:${account}`),
    ...chargeIds.map((id): ItemKey => `dd:${id}`),
  ];
  await lockItems(tx, keys);
  const late = (await creditAccounts(tx, refunded)).filter((account) => !accounts.has(account));
  if (late.length > 0) {
    await lockItems(
      tx,
      late.map((account): ItemKey => `acct:${account}`),
    );
    for (const account of late) accounts.add(account);
  }
  await mergeStatus(tx, { transactionIds: statusIds, trackingKeys });
  if (cepIds.length > 0) await refreshOwnership(tx, cepIds);
  if (refunded.length > 0) await recordSecondRefunds(tx, refunded);
  const receivables = await rematchAccounts(tx, accounts);
  // Read under the tracking keys' locks, so a transfer recorded meanwhile is posted too.
  const tracked = await transfersByTrackingKey(tx, trackingKeys);
  await postItems(
    tx,
    [
      ...[...statusIds, ...tracked, ...creditIds, ...refunded].map((id): JournalItem => `tx:${id}`),
      ...chargeIds.map((id): JournalItem => `dd:${id}`),
      ...receivables,
    ],
    'apply',
  );
  return { applied: Number(values('applied')[0] ?? 0), parked: Number(values('parked')[0] ?? 0) };
}

/** The values of one text column a lookup by key returns (none for no keys, without a round trip). */
async function lookup(tx: Queryable, sql: string, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await tx.query<{ value: string }>(sql, [keys]);
  return rows.map((row) => row.value);
}

const creditAccounts = (tx: Queryable, creditIds: readonly string[]) =>
  lookup(
    tx,
    'SELECT DISTINCT beneficiary_account AS value FROM ledger_credits WHERE transaction_id = ANY($1::text[])',
    creditIds,
  );

const refundedBy = (tx: Queryable, refundIds: readonly string[]) =>
  lookup(
    tx,
    'SELECT DISTINCT original_transaction_id AS value FROM ledger_refunds WHERE transaction_id = ANY($1::text[])',
    refundIds,
  );

const transfersByTrackingKey = (tx: Queryable, trackingKeys: readonly string[]) =>
  lookup(tx, 'SELECT transaction_id AS value FROM ledger_outbound WHERE tracking_key = ANY($1::text[])', trackingKeys);
