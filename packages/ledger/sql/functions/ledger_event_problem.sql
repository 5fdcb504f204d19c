-- Why an event cannot be applied, or NULL when it can: the first field at fault, named. Only what
-- the ledger cannot do without is checked: a time in a form no documentation shows is read as "not
-- given" (the receipt time stands in), never a reason to park money. The amount of a MONEY_IN or
-- REFUND is read by the one amount rule (paykit_amount): one that breaks it (a JSON number, "0.00",
-- "1.5", " 1.00"…) parks the event, as a missing one does, with a reason that quotes what was sent.
-- A MONEY_IN without sub_category is a credit of unknown kind; only a sub_category that is given
-- and is neither kind (in any letter case) parks it.
-- PL/pgSQL, with the body read once: as a SQL function it is not inlined (its payload is read
-- many times) and a call cost about 20 µs.
CREATE OR REPLACE FUNCTION ledger_event_problem(event_type text, payload jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $function$
DECLARE
  b jsonb := payload->'body';
BEGIN
  RETURN CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(b) IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_id(b->'id') IS NULL AND ledger_id(b->'tracking_key') IS NULL
      THEN 'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given'
    WHEN event_type IN ('MONEY_IN', 'CEP', 'REFUND') AND ledger_id(b->'id') IS NULL
      THEN event_type || ': body.id (the transaction id) is missing or not a string or number'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND paykit_amount(b->'amount') IS NULL
      THEN event_type || ': body.amount ' || coalesce(left((b->'amount')::text, 44), 'is missing')
           || CASE WHEN b->'amount' IS NULL THEN '' ELSE ' is not an amount' END
           || ': an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)'
    WHEN event_type = 'MONEY_IN' AND ledger_id(b->'beneficiary_account') IS NULL
      THEN 'MONEY_IN: body.beneficiary_account is missing'
    WHEN event_type = 'MONEY_IN' AND b->>'sub_category' IS NOT NULL AND upper(b->>'sub_category') NOT IN ('SPEI_CREDIT', 'INT_CREDIT')
      THEN 'MONEY_IN: body.sub_category, when given, must be SPEI_CREDIT or INT_CREDIT'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_status_rank(b->>'status') IS NULL
      THEN 'STATUS_UPDATE: body.status is missing or not a transaction status (INITIALIZED, IN_PROGRESS, LIQUIDATED, CANCELLED, REFUNDED, REJECTED, DECLINED)'
    WHEN event_type = 'CEP' AND coalesce(b->>'status', '') NOT IN ('INITIALIZED', 'PENDING', 'DELAYED', 'COMPLETED', 'FAILED')
      THEN 'CEP: body.status is missing or not PENDING, DELAYED, COMPLETED or FAILED'
    WHEN event_type = 'REFUND' AND ledger_id(b->'original_transaction_id') IS NULL
      THEN 'REFUND: body.original_transaction_id is missing'
    WHEN event_type = 'REPORT' AND jsonb_typeof(payload->'file_name') IS DISTINCT FROM 'string'
      THEN 'REPORT: file_name is missing or not a string'
    ELSE NULL
  END;
END
$function$;
