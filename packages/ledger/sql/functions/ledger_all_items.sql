-- Every item's journal key, for a full check or a rebuild.
CREATE OR REPLACE FUNCTION ledger_all_items() RETURNS SETOF text
LANGUAGE sql STABLE AS $$
  SELECT 'tx:' || transaction_id FROM ledger_outbound
  UNION SELECT 'tx:' || transaction_id FROM ledger_credits
  UNION SELECT 'tx:' || original_transaction_id FROM ledger_refunds
  UNION SELECT 'dd:' || charge_id FROM ledger_dd_results
  UNION SELECT 'rcv:' || id FROM ledger_receivables
  UNION SELECT 'int:' || id FROM ledger_outbound_intents
$$;
