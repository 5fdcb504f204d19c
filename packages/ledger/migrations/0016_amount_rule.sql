-- One rule for a valid core amount, the same as @paykit/contracts' readAmount (AMOUNT_PATTERN),
-- which the gateway and the CLI use: a JSON string, ASCII digits, a dot and exactly two decimals,
-- above zero, at most 9999999999999999.99 (numeric(18,2); leading zeros are read as the value
-- they write). A JSON number is not an amount, even one with two
-- decimals: it may already have lost centavos. The pattern below is AMOUNT_PATTERN's text; a test
-- of @paykit/contracts fails when they differ, and another runs one table of inputs through both.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- The amount a JSON value holds by the rule, or NULL when it holds none (absent, JSON null, a
-- number, "0.00", "1.5", " 1.00"…). NULL, never an error: one bad value must not fail the batch
-- it is in. A SQL function, so it is inlined into the statement that calls it.
CREATE FUNCTION paykit_amount(value jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(value) = 'string' AND (value #>> '{}') ~ '^(?:0*[1-9][0-9]{0,15}\.[0-9]{2}|0+\.(?:0[1-9]|[1-9][0-9]))$'
              THEN (value #>> '{}')::numeric(18,2) END
$$;

COMMENT ON FUNCTION paykit_amount(jsonb) IS
  'A core amount by the one rule (@paykit/contracts readAmount): a decimal string with exactly two decimals, 0.01 to 9999999999999999.99; NULL for anything else.';

-- ledger_amount (0007) reads "up to two decimals, a string or a JSON number": from now on it is
-- only the reader of direct debit amounts, which the platform documents as JSON numbers (100,
-- 100.0, 250.5). Core amounts (MONEY_IN, REFUND) are read with paykit_amount.
COMMENT ON FUNCTION ledger_amount(text) IS
  'Direct debit amounts only (JSON numbers such as 100 or 250.5, up to two decimals). Core amounts: paykit_amount(jsonb).';

-- 0011's ledger_event_problem, the amount of a MONEY_IN or REFUND now read by the rule: one that
-- breaks it (a JSON number, "0.00", "1.5", " 1.00"…) parks the event, as a missing one did, with
-- a reason that quotes what was sent. Everything else is as in 0011.
CREATE OR REPLACE FUNCTION ledger_event_problem(event_type text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(payload->'body') IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_id(payload->'body'->'id') IS NULL AND ledger_id(payload->'body'->'tracking_key') IS NULL
      THEN 'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given'
    WHEN event_type IN ('MONEY_IN', 'CEP', 'REFUND') AND ledger_id(payload->'body'->'id') IS NULL
      THEN event_type || ': body.id (the transaction id) is missing or not a string or number'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND paykit_amount(payload->'body'->'amount') IS NULL
      THEN event_type || ': body.amount ' || coalesce(left((payload->'body'->'amount')::text, 44), 'is missing')
           || CASE WHEN payload->'body'->'amount' IS NULL THEN '' ELSE ' is not an amount' END
           || ': an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)'
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
