// Synthetic stored events, loaded set-based (INSERT … SELECT FROM generate_series), never through
// the gateway: loading a million events over HTTP would measure the gateway, not the applier.
//
// The events come in blocks of 20, one block per simulated second of a Mexico City day, each a
// realistic mix of what the platform sends a client:
//   k 0–4    STATUS_UPDATE IN_PROGRESS of five transfers we sent
//   k 5–9    their outcome: LIQUIDATED ×4, REJECTED ×1 (with the reason)
//   k 10–15  MONEY_IN of six credits (four expected by a receivable, one of those for another amount)
//   k 16–17  CEP PENDING then COMPLETED of a penny validation (every 10th block: another holder)
//   k 18–19  the network reverses transfer 0: REFUND, then STATUS_UPDATE REFUNDED
// The ledger holds what we recorded before the events came: the transfers (transfer 3 of every
// 10th block missing, so its updates are orphans), the penny validation, the receivables.
// Every id, amount and time is derived from (block, k), so each size loads the same events.
import type { Queryable } from '@paykit/store';

export const EVENTS_PER_BLOCK = 20;

/** The expected holder of every penny validation; CEPs of every 10th block name someone else. */
const HOLDER = 'PROVEEDORA DEL BAJIO SA DE CV';
const HOLDER_RFC = 'PBA030303EF4';

// Derived values as SQL over the block `b` and the index `j` within a kind.
const TRANSFER_ID = (j: string) => `md5('T' || b || ':' || ${j})::uuid::text`;
const TRANSFER_KEY = (j: string) => `'PK20261121' || lpad((b * 5 + ${j})::text, 10, '0')`;
const TRANSFER_AMOUNT = (j: string) => `(((b * 37 + ${j} * 101) % 500000 + 100) / 100.0)::numeric(18,2)`;
const CREDIT_AMOUNT = (j: string) => `(((b * 53 + ${j} * 211) % 900000 + 500) / 100.0)::numeric(18,2)`;
const REFERENCE = (j: string) => `((b * 6 + ${j}) % 9999999 + 1)::text`;
const CLABE = `'646180' || lpad(b::text, 12, '0')`;
const PENNY_ID = `md5('P' || b)::uuid::text`;
/** Block b happens at 06:00:00 + b seconds, Mexico City time, on 2026-11-21. */
const LOCAL = `(timestamp '2026-11-21 06:00:00' + b * interval '1 second')`;

const STATUS_BODY = `jsonb_build_object(
    'id', ${TRANSFER_ID('j')}, 'tracking_key', ${TRANSFER_KEY('j')}, 'message_type', 'SPEI',
    'status', CASE WHEN k < 5 THEN 'IN_PROGRESS' WHEN k = 9 THEN 'REJECTED' WHEN k = 19 THEN 'REFUNDED' ELSE 'LIQUIDATED' END,
    'update_at', iso)
  || CASE WHEN k = 9 THEN jsonb_build_object('reason', 'ACCOUNT_NOT_FOUND', 'reason_description', 'The beneficiary account does not exist.')
          WHEN k = 19 THEN jsonb_build_object('reason', 'REVERSED', 'reason_description', 'The banking network reversed the transfer.')
          ELSE '{}'::jsonb END`;

const MONEY_IN_BODY = `jsonb_build_object(
    'id', md5('C' || b || ':' || j)::uuid::text, 'beneficiary_account', ${CLABE}, 'beneficiary_name', 'ACME PAGOS SA DE CV',
    'beneficiary_rfc', 'APA010101AB1', 'payer_account', '002180001234567896', 'payer_name', 'PAGADOR EXTERNO SA DE CV',
    'payer_rfc', 'PEX010101AB1', 'payer_institution', '40002', 'amount', ${CREDIT_AMOUNT('j')}::text, 'transaction_date', local_text,
    'tracking_key', 'EXT20261121' || lpad((b * 6 + j)::text, 10, '0'), 'payment_concept', 'Factura ' || b || '-' || j,
    'numeric_reference', CASE WHEN j < 4 THEN ${REFERENCE('j')} ELSE '0' END, 'sub_category', 'SPEI_CREDIT',
    'registered_at', iso, 'owner_id', '33333333-3333-4333-8333-000000000001')`;

const CEP_BODY = `jsonb_build_object(
    'id', ${PENNY_ID}, 'tracking_key', 'PK20261122' || lpad(b::text, 10, '0'), 'beneficiary_account', '012180000045678907',
    'beneficiary_name', CASE WHEN b % 10 = 0 THEN 'ROBERTO SANCHEZ DIAZ' ELSE '${HOLDER}' END, 'beneficiary_rfc', '${HOLDER_RFC}',
    'status', CASE WHEN k = 16 THEN 'PENDING' ELSE 'COMPLETED' END, 'processed_at', CASE WHEN k = 16 THEN NULL ELSE iso END)`;

const REFUND_BODY = `jsonb_build_object(
    'id', md5('R' || b)::uuid::text, 'sub_category', 'SPEI_REFUNDED_CREDIT', 'original_transaction_id', ${TRANSFER_ID('0')},
    'original_transaction_tracking_id', ${TRANSFER_KEY('0')}, 'amount', ${TRANSFER_AMOUNT('0')}::text,
    'original_transaction_amount', ${TRANSFER_AMOUNT('0')}::text, 'tracking_key', 'RF20261121' || lpad(b::text, 10, '0'),
    'transaction_date', local_text)`;

/** The stored events of the blocks, received `shift` (an interval, '0' for none) before their synthetic time. */
const eventsSql = (shift: string) => `
WITH stored AS (
INSERT INTO webhook_events (source, event_type, dedupe_key, id_msg, transaction_id, raw_body, payload, received_at, outcome, answer_status)
-- As the gateway stores them (migration 0006): the JSON in raw_body only, read from it by the worker;
-- each with its dedupe key (migration 0023), as the gateway's append writes it.
SELECT 'core', type, 'core:' || id_msg, id_msg, payload->'body'->>'id', convert_to(payload::text, 'UTF8'), NULL, (iso)::timestamptz - interval '${shift}', 'accepted', 200
FROM (
  SELECT b, k, type, id_msg, iso,
         jsonb_build_object('id_msg', id_msg, 'msg_name', type, 'msg_date', '2026-11-21',
           'body', CASE type WHEN 'STATUS_UPDATE' THEN ${STATUS_BODY} WHEN 'MONEY_IN' THEN ${MONEY_IN_BODY} WHEN 'CEP' THEN ${CEP_BODY} ELSE ${REFUND_BODY} END) AS payload
  FROM generate_series($1::int, $2::int) AS b
  CROSS JOIN generate_series(0, ${EVENTS_PER_BLOCK - 1}) AS k
  CROSS JOIN LATERAL (SELECT
    CASE WHEN k < 10 OR k = 19 THEN 'STATUS_UPDATE' WHEN k < 16 THEN 'MONEY_IN' WHEN k < 18 THEN 'CEP' ELSE 'REFUND' END AS type,
    CASE WHEN k < 5 THEN k WHEN k < 10 THEN k - 5 WHEN k < 16 THEN k - 10 ELSE 0 END AS j,
    md5('E' || b || ':' || k)::uuid::text AS id_msg,
    to_char(${LOCAL}, 'YYYY-MM-DD"T"HH24:MI:SS') || '-06:00' AS iso,
    to_char(${LOCAL}, 'YYYY-MM-DD HH24:MI:SS') AS local_text) AS d
  ORDER BY b, k
) AS events
RETURNING dedupe_key, seq, received_at, outcome, answer_status)
INSERT INTO webhook_event_keys (dedupe_key, seq, received_at, deliveries, outcome, answer_status)
SELECT dedupe_key, seq, received_at, 1, outcome, answer_status FROM stored`;

const OUTBOUND_SQL = `
INSERT INTO ledger_outbound (transaction_id, tracking_key, operation, sub_category, amount, source_account, destination_account,
                             expected_holder, expected_rfc, created_at, status, status_rank)
SELECT ${TRANSFER_ID('j')}, ${TRANSFER_KEY('j')}, 'money_out', 'SPEI_DEBIT', ${TRANSFER_AMOUNT('j')}, '646180000000000012', '012180000045678907',
       NULL, NULL, (to_char(${LOCAL}, 'YYYY-MM-DD HH24:MI:SS') || '-06:00')::timestamptz - interval '1 minute', 'IN_PROGRESS', 1
FROM generate_series($1::int, $2::int) AS b CROSS JOIN generate_series(0, 4) AS j
WHERE NOT (j = 3 AND b % 10 = 0)
UNION ALL
SELECT ${PENNY_ID}, 'PK20261122' || lpad(b::text, 10, '0'), 'penny_validation', 'SPEI_DEBIT', 0.01, '646180000000000012', '012180000045678907',
       '${HOLDER}', '${HOLDER_RFC}', (to_char(${LOCAL}, 'YYYY-MM-DD HH24:MI:SS') || '-06:00')::timestamptz - interval '1 minute', 'INITIALIZED', 0
FROM generate_series($1::int, $2::int) AS b`;

const RECEIVABLES_SQL = `
INSERT INTO ledger_receivables (id, beneficiary_account, amount, reference, concept, due_date)
SELECT 'INV-' || b || '-' || j, ${CLABE}, ${CREDIT_AMOUNT('j')} + CASE WHEN j = 3 THEN 1.00 ELSE 0 END, ${REFERENCE('j')}, 'Factura ' || b || '-' || j, date '2026-11-30'
FROM generate_series($1::int, $2::int) AS b CROSS JOIN generate_series(0, 3) AS j`;

/** Blocks per statement: bounds each statement's memory and lets progress be printed. */
const CHUNK_BLOCKS = 5000;

/**
 * Loads `events` events (a multiple of 20) and what the ledger recorded before them, then VACUUM
 * ANALYZE (as autovacuum would have by then) unless `analyze` is false: the tables are then measured
 * as a busy server may find them, with statistics from before the load (here: none).
 */
export async function loadSynthetic(
  db: Queryable,
  events: number,
  onProgress?: (loaded: number) => void,
  { analyze = true }: { analyze?: boolean } = {},
): Promise<void> {
  await loadBlocks(db, 0, events, [eventsSql('0'), OUTBOUND_SQL, RECEIVABLES_SQL], onProgress);
  if (analyze) await db.query('VACUUM ANALYZE webhook_events, ledger_outbound, ledger_receivables');
}

/**
 * Loads `events` stored events only (no ledger records), as blocks `firstBlock` onwards, so that
 * their ids and keys differ from those loadSynthetic loads from block 0: a store's history, for
 * benchmarks that need a large store beside a fresh load (bench/store-growth.bench.ts). `shift`
 * (a PostgreSQL interval such as '10 months') moves their received_at back by that much.
 */
export async function loadSyntheticEvents(
  db: Queryable,
  firstBlock: number,
  events: number,
  onProgress?: (loaded: number) => void,
  { shift = '0' }: { shift?: string } = {},
): Promise<void> {
  if (!/^\d{1,4} (months|days)$|^0$/.test(shift))
    throw new Error(`shift must be "N months" or "N days", got "${shift}"`);
  await loadBlocks(db, firstBlock, events, [eventsSql(shift)], onProgress);
}

/** Runs each statement over the blocks of `events` events from `firstBlock`, CHUNK_BLOCKS at a time. */
async function loadBlocks(
  db: Queryable,
  firstBlock: number,
  events: number,
  statements: readonly string[],
  onProgress?: (loaded: number) => void,
): Promise<void> {
  if (!Number.isInteger(events) || events <= 0 || events % EVENTS_PER_BLOCK !== 0)
    throw new Error(`the event count must be a positive multiple of ${EVENTS_PER_BLOCK}, got ${events}`);
  const blocks = events / EVENTS_PER_BLOCK;
  for (let first = 0; first < blocks; first += CHUNK_BLOCKS) {
    const last = Math.min(blocks, first + CHUNK_BLOCKS) - 1;
    for (const sql of statements) await db.query(sql, [firstBlock + first, firstBlock + last]);
    onProgress?.((last + 1) * EVENTS_PER_BLOCK);
  }
}
