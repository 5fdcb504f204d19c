// The reconciliation state of every item, computed when read (never stored, so it cannot go stale
// or depend on the order events were applied in). Parameters: $1 stale-after in seconds, $2 now,
// $3/$4 the first and last Mexico City day (NULL: unbounded).
//   matched     our record, the platform's events (and report, when imported) agree
//   pending     not settled yet, younger than the stale age
//   stale       pending past the stale age
//   mismatched  amount, account, status or holder disagree: `fields` names them
//   orphan      an event with no record (a status update or refund for an unknown transaction, a
//               credit nobody expected) or a record with no event after the stale age
//   refunded    reversed by the network or refunded to its payer
//               (a direct debit charge: a charge_result for a charge nobody recorded)
//   conflict    a fact contradicts one already applied (ledger_conflicts: a second credit or refund
//               with other content, a second refund, a redelivery with another body): never matched
//   held        a credit the gateway held (202) or flagged: not money in until an operator releases it
//   needs_review  a credit that several receivables fit, or whose reference names several
//   partial     a credit that pays part of its receivable (the rest is still open)
//   overpaid    a credit larger than what was left of its receivable (the remainder is unapplied)
import { StoreInputError } from '@paykit/store';

export const ITEM_STATES = [
  'matched',
  'pending',
  'stale',
  'mismatched',
  'orphan',
  'refunded',
  'conflict',
  'held',
  'needs_review',
  'partial',
  'overpaid',
] as const;
export const PRODUCTS = [
  'spei_out',
  'internal_out',
  'penny_validation',
  'spei_in',
  'internal_in',
  'reversal',
  'credit_refund',
  'unrecorded_out',
  'direct_debit_charge',
] as const;

export type ItemState = (typeof ITEM_STATES)[number];
export type Product = (typeof PRODUCTS)[number];
export type MoneyOutcome = (typeof OUTCOMES)[number];

/** The range and clock the items are computed for: the SQL's parameters $1 to $4 (viewParams). */
export interface ReconcileView {
  /** Pending items older than this are stale (and records with no event at all, orphans). Default 86,400 s. */
  staleAfterSeconds?: number;
  /** "Now" for ages (default: the clock). */
  now?: Date;
  /** Mexico City days, YYYY-MM-DD, inclusive. */
  from?: string;
  to?: string;
}

/** The SQL's parameters $1 to $4 of a view, checked. */
export function viewParams(view: ReconcileView): unknown[] {
  const stale = view.staleAfterSeconds ?? 86_400;
  if (!Number.isFinite(stale) || stale < 0)
    throw new StoreInputError('staleAfterSeconds must be a number of seconds, 0 or more');
  const now = view.now ?? new Date();
  for (const [name, day] of [
    ['from', view.from],
    ['to', view.to],
  ] as const) {
    if (day !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(day))
      throw new StoreInputError(`${name} must be a day, YYYY-MM-DD (Mexico City)`);
  }
  return [stale, now.toISOString(), view.from ?? null, view.to ?? null];
}

const IN_RANGE = (day: string) =>
  `($3::date IS NULL OR ${day} >= $3::date) AND ($4::date IS NULL OR ${day} <= $4::date)`;
// Where the money went, as finance counts volumes: settled (LIQUIDATED, a credit received, a charge
// confirmed), rejected (REJECTED, CANCELLED, DECLINED; a charge declined or canceled), refused (a
// credit the gateway refused: the platform refunds it), refunded (REFUNDED, refunded or reversed
// afterwards, a chargeback), held (a credit held for review), pending (not final yet). The money
// figures themselves come from the journal (../journal/read.ts), never from these.
const OUTCOME_OF_STATUS = (
  refunded: string,
  status: string,
) => `CASE WHEN ${refunded} OR ${status} = 'REFUNDED' THEN 'refunded' WHEN ${status} = 'LIQUIDATED' THEN 'settled'
    WHEN ${status} IN ('REJECTED', 'CANCELLED', 'DECLINED') THEN 'rejected' ELSE 'pending' END`;
export const OUTCOMES = ['settled', 'rejected', 'refused', 'refunded', 'held', 'pending'] as const;
const OLD = (at: string) => `(${at} < $2::timestamptz - make_interval(secs => $1::double precision))`;

// A transfer or credit is compared with the line of the newest report that lists it, reports
// ordered by their own time, never by name or arrival (so the order facts come in changes
// nothing). A report's time is its REPORT event's created_at (the latest of it and of the files
// repeating its content: the platform said that content again then); without an event, the latest
// transaction_date its content lists (it was generated no earlier). Ties, newest first: the report
// with an event (an exact time over a lower bound), more lines (a day's file only gains
// transactions), a higher sum of status ranks (statuses only move forward), then the SHA-256 of
// its content. An older line that says otherwise (amount or status) is kept beside it as
// \`older_*\`, the newest such one: shown on the item, not a mismatch by itself, since the older
// file is what the platform said before and the newest line is still compared with our books.
const REPORT_CTES = `report_files AS (
  -- 1 is the newest; files equal on every key share a rank (only ones imported before 0012 can).
  SELECT r.file_name,
    dense_rank() OVER (ORDER BY coalesce(greatest(r.created_at, d.created_at), r.content_time) DESC NULLS LAST,
      greatest(r.created_at, d.created_at) IS NOT NULL DESC, r.line_count DESC NULLS LAST, r.status_rank_sum DESC NULLS LAST,
      r.content_sha256 DESC NULLS LAST) AS file_rank
  FROM ledger_reports r
  LEFT JOIN (SELECT duplicate_of, max(created_at) AS created_at FROM ledger_reports WHERE duplicate_of IS NOT NULL GROUP BY duplicate_of) d
    ON d.duplicate_of = r.file_name
  WHERE r.duplicate_of IS NULL
),
report_lines AS (
  SELECT l.transaction_id, l.file_name, l.line_no, l.amount, l.status,
    row_number() OVER w AS age, first_value(l.amount) OVER w AS newest_amount, first_value(l.status) OVER w AS newest_status
  FROM ledger_report_lines l JOIN report_files f ON f.file_name = l.file_name
  -- Partitioned in byte order: the same groups, and a sort that costs a fraction of the collation's.
  -- Between files of one rank the line's own content decides, then the name: only lines that say
  -- the same reach it.
  WINDOW w AS (PARTITION BY l.transaction_id COLLATE "C"
    ORDER BY f.file_rank, ledger_status_rank(l.status) DESC NULLS LAST, l.amount DESC, l.status, l.file_name)
),
report AS (
  SELECT transaction_id,
    min(amount) FILTER (WHERE age = 1) AS amount, min(status) FILTER (WHERE age = 1) AS status,
    min(file_name) FILTER (WHERE age = 1) AS file_name, min(line_no) FILTER (WHERE age = 1) AS line_no,
    (array_agg(file_name ORDER BY age) FILTER (WHERE age > 1 AND (amount <> newest_amount OR status <> newest_status)))[1] AS older_file,
    (array_agg(line_no ORDER BY age) FILTER (WHERE age > 1 AND (amount <> newest_amount OR status <> newest_status)))[1] AS older_line,
    (array_agg(amount ORDER BY age) FILTER (WHERE age > 1 AND (amount <> newest_amount OR status <> newest_status)))[1] AS older_amount,
    (array_agg(status ORDER BY age) FILTER (WHERE age > 1 AND (amount <> newest_amount OR status <> newest_status)))[1] AS older_status
  FROM report_lines GROUP BY transaction_id
)`;

export const ITEMS_SQL = `
conflicted AS (
  SELECT DISTINCT transaction_id FROM ledger_conflicts WHERE transaction_id IS NOT NULL
),
${REPORT_CTES},
outbound AS (
  SELECT o.*, rl.amount AS report_amount, rl.status AS report_status, rl.file_name AS report_file, rl.line_no AS report_line,
    rl.older_file, rl.older_line, rl.older_amount, rl.older_status, ic.amount AS credit_amount,
    EXISTS (SELECT 1 FROM ledger_refunds r WHERE r.original_transaction_id = o.transaction_id) AS has_refund,
    -- A status update counts for a transfer by id, or by tracking key in the older form without an id.
    o.status_rank = 2 AND EXISTS (
      SELECT 1 FROM ledger_status_history h WHERE h.transaction_id = o.transaction_id AND ledger_status_rank(h.status) = 2 AND h.status <> o.status
      UNION ALL
      SELECT 1 FROM ledger_status_history h WHERE h.transaction_id IS NULL AND h.tracking_key = o.tracking_key AND ledger_status_rank(h.status) = 2 AND h.status <> o.status
    ) AS status_conflict,
    EXISTS (SELECT 1 FROM conflicted k WHERE k.transaction_id = o.transaction_id) AS conflicted
  FROM ledger_outbound o
  LEFT JOIN report rl ON rl.transaction_id = o.transaction_id
  LEFT JOIN LATERAL (SELECT c.amount FROM ledger_credits c WHERE o.sub_category = 'INT_DEBIT' AND c.sub_category = 'INT_CREDIT' AND c.tracking_key = o.tracking_key LIMIT 1) ic ON true
  WHERE ${IN_RANGE('ledger_day(o.created_at)')}
),
outbound_items AS (
  SELECT 'outbound'::text AS kind, transaction_id AS id,
    CASE WHEN operation = 'penny_validation' THEN 'penny_validation' WHEN sub_category = 'INT_DEBIT' THEN 'internal_out' ELSE 'spei_out' END AS product,
    ledger_day(created_at) AS day, created_at AS at, amount, 'out'::text AS direction, status, tracking_key, destination_account AS account,
    array_remove(ARRAY[
      CASE WHEN status_conflict THEN 'status' END,
      CASE WHEN credit_amount IS NOT NULL AND credit_amount <> amount THEN 'amount' END,
      CASE WHEN ownership_evidence->>'nameMatches' = 'false' THEN 'holder_name' END,
      CASE WHEN ownership_evidence->>'rfcMatches' = 'false' THEN 'holder_rfc' END,
      CASE WHEN report_amount IS NOT NULL AND report_amount <> amount THEN 'report.amount' END,
      CASE WHEN report_status IS NOT NULL AND status_seq IS NOT NULL AND report_status <> status THEN 'report.status' END
    ], NULL) AS fields,
    has_refund OR status = 'REFUNDED' AS refunded,
    CASE WHEN operation = 'penny_validation' THEN ownership = 'verified' ELSE status_rank = 2 END AS settled,
    status_seq IS NULL AND cep_seq IS NULL AS no_events,
    false AS unexpected,
    conflicted,
    CASE WHEN conflicted THEN 'conflicting facts recorded: see the conflicts'
         WHEN operation = 'penny_validation' THEN coalesce(ownership_evidence->>'note', 'waiting for the CEP result') ELSE status_reason END AS note,
    ${OUTCOME_OF_STATUS('has_refund', 'status')} AS outcome,
    -- A state the item's own rules decide before matched (a credit's: held, or a match that needs a person).
    NULL::text AS review,
    -- The report line it was compared with, and an older one that says otherwise (REPORT_CTES).
    report_file, report_line, report_amount, report_status, older_file, older_line, older_amount, older_status
  FROM outbound
),
credits AS (
  SELECT c.*, m.receivable_id, m.state AS match_state, m.note AS match_note, d.amount AS debit_amount, rl.amount AS report_amount,
    rl.status AS report_status, rl.file_name AS report_file, rl.line_no AS report_line,
    rl.older_file, rl.older_line, rl.older_amount, rl.older_status, s.standing,
    EXISTS (SELECT 1 FROM ledger_refunds f WHERE f.original_transaction_id = c.transaction_id) AS has_refund,
    EXISTS (SELECT 1 FROM conflicted k WHERE k.transaction_id = c.transaction_id) AS conflicted
  FROM ledger_credits c
  LEFT JOIN ledger_credit_matches m ON m.credit_id = c.transaction_id
  -- Called once per credit: credit_items reads the standing in several places, and a function
  -- with a subquery is not inlined, so each of those places would call it again.
  CROSS JOIN LATERAL (SELECT ledger_credit_standing(c.transaction_id, c.gateway_outcome) AS standing OFFSET 0) s
  LEFT JOIN report rl ON rl.transaction_id = c.transaction_id
  LEFT JOIN LATERAL (SELECT o.amount FROM ledger_outbound o WHERE c.sub_category = 'INT_CREDIT' AND o.sub_category = 'INT_DEBIT' AND o.tracking_key = c.tracking_key LIMIT 1) d ON true
  WHERE ${IN_RANGE('ledger_day(c.transaction_at)')}
),
credit_items AS (
  SELECT 'credit'::text, transaction_id, CASE WHEN sub_category = 'INT_CREDIT' THEN 'internal_in' ELSE 'spei_in' END,
    ledger_day(transaction_at), transaction_at, amount, 'in'::text, CASE WHEN has_refund THEN 'REFUNDED' ELSE 'LIQUIDATED' END, tracking_key, beneficiary_account,
    array_remove(ARRAY[
      CASE WHEN debit_amount IS NOT NULL AND debit_amount <> amount THEN 'amount' END,
      CASE WHEN report_amount IS NOT NULL AND report_amount <> amount THEN 'report.amount' END
    ], NULL),
    has_refund,
    match_state = 'matched' OR debit_amount IS NOT NULL,
    false,
    match_state IS NULL AND debit_amount IS NULL AND standing = 'accepted',
    conflicted,
    CASE WHEN conflicted THEN 'conflicting facts recorded: see the conflicts'
         WHEN standing = 'held' THEN 'held by the gateway (' || gateway_outcome || '): not money in until an operator releases it'
         WHEN match_note IS NOT NULL THEN match_note WHEN debit_amount IS NOT NULL THEN 'our internal transfer'
         WHEN standing = 'rejected' THEN 'refused by the gateway: waiting for the platform''s refund'
         ELSE 'no receivable matches it' END,
    CASE WHEN has_refund THEN 'refunded' WHEN standing = 'rejected' THEN 'refused' WHEN standing = 'held' THEN 'held' ELSE 'settled' END,
    CASE WHEN standing = 'held' THEN 'held' WHEN match_state <> 'matched' THEN match_state END,
    report_file, report_line, report_amount, report_status, older_file, older_line, older_amount, older_status
  FROM credits
),
refunds AS (
  SELECT f.*, coalesce(o.amount, c.amount) AS original_amount, (o.transaction_id IS NOT NULL OR c.transaction_id IS NOT NULL) AS original_known,
    CASE WHEN o.transaction_id IS NOT NULL THEN 'reversal' WHEN c.transaction_id IS NOT NULL THEN 'credit_refund'
         WHEN f.sub_category = 'SPEI_REFUNDED_DEBIT' THEN 'credit_refund' ELSE 'reversal' END AS refund_kind,
    EXISTS (SELECT 1 FROM conflicted k WHERE k.transaction_id IN (f.transaction_id, f.original_transaction_id)) AS conflicted
  FROM ledger_refunds f
  LEFT JOIN ledger_outbound o ON o.transaction_id = f.original_transaction_id
  LEFT JOIN ledger_credits c ON c.transaction_id = f.original_transaction_id
  WHERE ${IN_RANGE('ledger_day(f.transaction_at)')}
),
refund_items AS (
  SELECT 'refund'::text, transaction_id, refund_kind, ledger_day(transaction_at), transaction_at, amount,
    -- A refund belongs to the flow of what it returns: a reversal nets against money out, a refund of a credit against money in.
    CASE WHEN refund_kind = 'reversal' THEN 'out' ELSE 'in' END, 'LIQUIDATED'::text, tracking_key, NULL::text,
    array_remove(ARRAY[
      CASE WHEN original_known AND original_amount <> amount THEN 'amount' END,
      CASE WHEN original_amount_stated IS NOT NULL AND original_amount_stated <> amount THEN 'original_transaction_amount' END
    ], NULL),
    false, original_known, false, NOT original_known, conflicted,
    CASE WHEN conflicted THEN 'conflicting facts recorded: see the conflicts'
         WHEN original_known THEN 'refund of ' || original_transaction_id ELSE 'original transaction ' || original_transaction_id || ' is not in the ledger' END,
    'settled'::text, NULL::text, NULL::text, NULL::integer, NULL::numeric, NULL::text, NULL::text, NULL::integer, NULL::numeric, NULL::text
  FROM refunds
),
orphan_updates AS (
  -- An update without an id is named by its tracking key. Its amount: the intent's the transaction
  -- was attached to (write-ahead recording), else a report line's that names it; never none when
  -- either knows it.
  SELECT 'status_update'::text, coalesce(h.transaction_id, h.tracking_key), 'unrecorded_out'::text, ledger_day(min(h.received_at)), min(h.received_at),
    coalesce(
      (SELECT i.amount FROM ledger_outbound_intents i WHERE i.transaction_id = max(h.transaction_id) LIMIT 1),
      (SELECT min(rl.amount) FROM ledger_report_lines rl
        WHERE rl.transaction_id = max(h.transaction_id) OR (max(h.transaction_id) IS NULL AND rl.tracking_key = max(h.tracking_key)))
    ), 'out'::text, max(h.status), max(h.tracking_key), NULL::text, ARRAY[]::text[], false, false, false, true, false,
    'a status update for a transaction we never recorded', ${OUTCOME_OF_STATUS('false', 'max(h.status)')}, NULL::text,
    NULL::text, NULL::integer, NULL::numeric, NULL::text, NULL::text, NULL::integer, NULL::numeric, NULL::text
  FROM ledger_status_history h
  WHERE CASE WHEN h.transaction_id IS NULL THEN NOT EXISTS (SELECT 1 FROM ledger_outbound o WHERE o.tracking_key = h.tracking_key)
             ELSE NOT EXISTS (SELECT 1 FROM ledger_outbound o WHERE o.transaction_id = h.transaction_id) END
  GROUP BY coalesce(h.transaction_id, h.tracking_key)
  HAVING ${IN_RANGE('ledger_day(min(h.received_at))')}
),
charges AS (
  -- A direct debit charge: recorded, or known only from its results (an orphan). The last outcome
  -- by the platform's timestamp is its status; a declined or canceled after a confirmed is a
  -- chargeback, and a result with an amount other than the recorded one is a mismatch.
  SELECT k.charge_id, c.charge_id IS NOT NULL AS recorded, c.amount, c.status AS recorded_status, c.reference,
    coalesce(c.created_at, r.first_at) AS at, r.last_outcome, r.confirmed_at, r.failed_after_confirmed, r.failed_before_confirmed, r.other_amount,
    r.charge_id IS NOT NULL AS has_results
  FROM (SELECT charge_id FROM ledger_dd_charges UNION SELECT charge_id FROM ledger_dd_results) k
  LEFT JOIN ledger_dd_charges c ON c.charge_id = k.charge_id
  LEFT JOIN LATERAL (
    SELECT x.charge_id, min(x.result_at) AS first_at,
      (array_agg(x.outcome ORDER BY x.result_at DESC, x.event_seq DESC))[1] AS last_outcome,
      min(x.result_at) FILTER (WHERE x.outcome = 'confirmed') AS confirmed_at,
      coalesce(bool_or(x.outcome <> 'confirmed' AND x.result_at > y.confirmed_at), false) AS failed_after_confirmed,
      coalesce(bool_or(x.outcome <> 'confirmed' AND x.result_at <= y.confirmed_at), false) AS failed_before_confirmed,
      bool_or(x.amount IS NOT NULL AND c.amount IS NOT NULL AND x.amount <> c.amount) AS other_amount
    FROM ledger_dd_results x
    LEFT JOIN LATERAL (SELECT min(z.result_at) AS confirmed_at FROM ledger_dd_results z WHERE z.charge_id = x.charge_id AND z.outcome = 'confirmed') y ON true
    WHERE x.charge_id = k.charge_id GROUP BY x.charge_id
  ) r ON true
),
charge_items AS (
  SELECT 'charge'::text, charge_id, 'direct_debit_charge'::text, ledger_day(at), at, amount, 'in'::text,
    CASE WHEN failed_after_confirmed THEN 'chargeback' ELSE coalesce(last_outcome, recorded_status, 'pending') END, NULL::text, NULL::text,
    array_remove(ARRAY[
      CASE WHEN other_amount THEN 'amount' END,
      CASE WHEN failed_after_confirmed THEN 'chargeback' END,
      CASE WHEN failed_before_confirmed THEN 'charge_result' END
    ], NULL),
    false, recorded AND has_results, NOT has_results, has_results AND NOT recorded, false,
    CASE WHEN NOT recorded THEN 'a charge result for a charge we never recorded'
         WHEN failed_after_confirmed THEN 'chargeback: ' || last_outcome || ' after it was confirmed'
         WHEN failed_before_confirmed THEN 'confirmed after it was declined or canceled'
         WHEN NOT has_results THEN 'waiting for the charge result'
         ELSE 'charge ' || coalesce(reference, charge_id) || ' ' || last_outcome END,
    CASE WHEN failed_after_confirmed THEN 'refunded' WHEN last_outcome = 'confirmed' THEN 'settled' WHEN last_outcome IN ('declined', 'canceled') THEN 'rejected' ELSE 'pending' END,
    NULL::text, NULL::text, NULL::integer, NULL::numeric, NULL::text, NULL::text, NULL::integer, NULL::numeric, NULL::text
  FROM charges
  WHERE ${IN_RANGE('ledger_day(at)')}
),
all_items AS (
  SELECT * FROM outbound_items UNION ALL SELECT * FROM credit_items UNION ALL SELECT * FROM refund_items UNION ALL SELECT * FROM orphan_updates
  UNION ALL SELECT * FROM charge_items
),
items AS (
  SELECT a.kind, a.id, a.product, a.day, a.at, a.amount, a.direction, a.status, a.tracking_key, a.account, a.fields, a.note, a.outcome,
    CASE
      WHEN a.conflicted THEN 'conflict'
      WHEN cardinality(a.fields) > 0 THEN 'mismatched'
      WHEN a.refunded THEN 'refunded'
      WHEN a.review IS NOT NULL THEN a.review
      WHEN a.settled THEN 'matched'
      WHEN a.unexpected THEN 'orphan'
      WHEN a.no_events AND ${OLD('a.at')} THEN 'orphan'
      WHEN ${OLD('a.at')} THEN 'stale'
      ELSE 'pending'
    END AS state,
    a.report_file, a.report_line, a.report_amount, a.report_status, a.older_file, a.older_line, a.older_amount, a.older_status
  FROM all_items a
)`;
