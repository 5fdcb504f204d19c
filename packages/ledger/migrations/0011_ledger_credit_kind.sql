-- A MONEY_IN the platform documents without sub_category (the money-in validation guide's example)
-- is still a credit, and the gateway acknowledged it: its kind is unknown, not wrong. It applies with
-- sub_category NULL (an external credit wherever a kind is needed, as the gateway answered it), and
-- a sub_category in another letter case is read as its kind. Only a sub_category that is given and
-- is neither kind parks the event.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

ALTER TABLE ledger_credits ALTER COLUMN sub_category DROP NOT NULL;

CREATE OR REPLACE FUNCTION ledger_event_problem(event_type text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(payload->'body') IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_id(payload->'body'->'id') IS NULL AND ledger_id(payload->'body'->'tracking_key') IS NULL
      THEN 'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given'
    WHEN event_type IN ('MONEY_IN', 'CEP', 'REFUND') AND ledger_id(payload->'body'->'id') IS NULL
      THEN event_type || ': body.id (the transaction id) is missing or not a string or number'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND ledger_amount(payload->'body'->>'amount') IS NULL
      THEN event_type || ': body.amount is missing or not an amount (a decimal string such as "150.00")'
    WHEN event_type = 'MONEY_IN' AND ledger_id(payload->'body'->'beneficiary_account') IS NULL
      THEN 'MONEY_IN: body.beneficiary_account is missing'
    WHEN event_type = 'MONEY_IN' AND payload->'body'->>'sub_category' IS NOT NULL AND upper(payload->'body'->>'sub_category') NOT IN ('SPEI_CREDIT', 'INT_CREDIT')
      THEN 'MONEY_IN: body.sub_category, when given, must be SPEI_CREDIT or INT_CREDIT'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_status_rank(payload->'body'->>'status') IS NULL
      THEN 'STATUS_UPDATE: body.status is missing or not a transaction status (INITIALIZED, IN_PROGRESS, LIQUIDATED, CANCELLED, REFUNDED, REJECTED, DECLINED)'
    WHEN event_type = 'CEP' AND coalesce(payload->'body'->>'status', '') NOT IN ('INITIALIZED', 'PENDING', 'DELAYED', 'COMPLETED', 'FAILED')
      THEN 'CEP: body.status is missing or not PENDING, DELAYED, COMPLETED or FAILED'
    WHEN event_type = 'REFUND' AND ledger_id(payload->'body'->'original_transaction_id') IS NULL
      THEN 'REFUND: body.original_transaction_id is missing'
    WHEN event_type = 'REPORT' AND jsonb_typeof(payload->'file_name') IS DISTINCT FROM 'string'
      THEN 'REPORT: file_name is missing or not a string'
    ELSE NULL
  END
$$;
