-- Write-ahead intents in the books. An intent written before a transfer is sent, and left without
-- the platform's answer, is money that may have left: until its answer is attached (or the platform
-- refused it, moving nothing) it is booked in suspense, so the journal states it and every figure of
-- it is read there. Its item is int:<intent id>, its source intent:<intent id>:
--   out:unconfirmed        sent, no answer recorded: may have left (debit)
--   platform:unconfirmed   its counterpart: the account it may have left from is named only by the
--                          platform's answer (credit)
-- Once an answer or an exact fact attaches it, or a refusal fails it, the item's target is empty and
-- its next posting takes it out of suspense; the transfer's own item (tx:<id>) books the money.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- ledger_targets of 0015 keeps the entries of transfers, credits, charges and receivables under a
-- name of its own; ledger_targets adds the intents' (ledger_post, checkBooks and every reader call it).
ALTER FUNCTION ledger_targets(text[]) RENAME TO ledger_fact_targets;

CREATE FUNCTION ledger_targets(items text[])
RETURNS TABLE (item text, account text, value_date date, amount numeric, source text)
LANGUAGE sql STABLE AS $$
  SELECT t.item, t.account, t.value_date, t.amount, t.source FROM ledger_fact_targets(items) t
  UNION ALL
  SELECT 'int:' || i.id, x.account, ledger_day(i.created_at), x.amount, 'intent:' || i.id
  FROM ledger_outbound_intents i
  CROSS JOIN LATERAL (VALUES ('out:unconfirmed', i.amount), ('platform:unconfirmed', -i.amount)) AS x(account, amount)
  WHERE i.id = ANY(ARRAY(SELECT substr(k, 5) FROM unnest(items) k WHERE k LIKE 'int:%'))
    AND i.transaction_id IS NULL AND i.failed_at IS NULL
$$;

CREATE OR REPLACE FUNCTION ledger_all_items() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT 'tx:' || transaction_id FROM ledger_outbound
  UNION SELECT 'tx:' || transaction_id FROM ledger_credits
  UNION SELECT 'tx:' || original_transaction_id FROM ledger_refunds
  UNION SELECT 'dd:' || charge_id FROM ledger_dd_results
  UNION SELECT 'rcv:' || id FROM ledger_receivables
  UNION SELECT 'int:' || id FROM ledger_outbound_intents
$$;

-- The intents already left without an answer.
SELECT ledger_post(ARRAY(SELECT 'int:' || id FROM ledger_outbound_intents WHERE transaction_id IS NULL AND failed_at IS NULL), 'migrate');
