-- The entries each item's facts call for now (ledger_post, checkBooks and every reader call it):
-- ledger_fact_targets' for transfers, credits, charges and receivables, and those of write-ahead
-- intents (int:<intent id>, source intent:<intent id>). An intent written before a transfer is sent,
-- and left without the platform's answer, is money that may have left; until its answer is
-- attached (or the platform refused it, moving nothing) it is booked in suspense:
--   out:unconfirmed        sent, no answer recorded: may have left (debit)
--   platform:unconfirmed   its counterpart: the account it may have left from is named only by the
--                          platform's answer (credit)
-- Once attached or failed, the intent's target is empty and its next posting takes it out of
-- suspense; the transfer's own item (tx:<id>) books the money.
CREATE OR REPLACE FUNCTION ledger_targets(items text[])
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
