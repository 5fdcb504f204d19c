-- Why a charge_result cannot be applied, or NULL when it can.
CREATE OR REPLACE FUNCTION ledger_charge_problem(payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(payload) IS DISTINCT FROM 'object'
      THEN 'charge_result: the payload is not an object'
    WHEN ledger_id(ledger_charge_data(payload)->'charge_id') IS NULL
      THEN 'charge_result: data.charge_id (the charge id) is missing or not a string'
    WHEN lower(coalesce(ledger_charge_data(payload)->>'charge_result', '')) NOT IN ('confirmed', 'declined', 'canceled')
      THEN 'charge_result: data.charge_result is missing or not confirmed, declined or canceled'
    WHEN jsonb_typeof(ledger_charge_data(payload)->'amount') IN ('number', 'string')
         AND ledger_amount(ledger_charge_data(payload)->>'amount') IS NULL
      THEN 'charge_result: data.amount is not an amount of pesos with up to two decimals (such as 100 or 100.50)'
    ELSE NULL
  END
$$;
