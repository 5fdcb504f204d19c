-- Refunds are never partial, so a transaction has one refund that stands: the earliest by the
-- platform's own time, then by id (never by arrival), leaving out one whose content is contested (a
-- REFUND id reused with other content: it books nothing). Any other refund of it is a conflict.
-- One row or none per transaction, found by index; a SQL function the planner inlines where it is
-- called (LATERAL, per item).
CREATE OR REPLACE FUNCTION ledger_standing_refund(original text)
RETURNS TABLE (transaction_id text, event_seq bigint, amount numeric, transaction_at timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT f.transaction_id, f.event_seq, f.amount, f.transaction_at FROM ledger_refunds f
  WHERE f.original_transaction_id = original
    AND NOT EXISTS (SELECT 1 FROM ledger_conflicts k WHERE k.kind = 'refund' AND k.transaction_id = f.transaction_id)
  ORDER BY f.transaction_at, f.transaction_id LIMIT 1
$$;
