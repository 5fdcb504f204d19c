-- The one rule for a valid core amount, the same as @paykit/contracts' readAmount (AMOUNT_PATTERN),
-- which the gateway and the CLI use: a JSON string, ASCII digits, a dot and exactly two decimals,
-- above zero, at most 9999999999999999.99 (numeric(18,2); leading zeros are read as the value
-- they write). A JSON number is not an amount, even one with two decimals: it may already have
-- lost centavos. The pattern below is AMOUNT_PATTERN's text; a test of @paykit/ledger fails when
-- they differ, and another runs one table of inputs (packages/contracts/fixtures/amounts) through both.
--
-- The amount a JSON value holds by the rule, or NULL when it holds none (absent, JSON null, a
-- number, "0.00", "1.5", " 1.00"…). NULL, never an error: one bad value must not fail the batch
-- it is in. A SQL function, so it is inlined into the statement that calls it.
CREATE OR REPLACE FUNCTION paykit_amount(value jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(value) = 'string' AND (value #>> '{}') ~ '^(?:0*[1-9][0-9]{0,15}\.[0-9]{2}|0+\.(?:0[1-9]|[1-9][0-9]))$'
              THEN (value #>> '{}')::numeric(18,2) END
$$;
COMMENT ON FUNCTION paykit_amount(jsonb) IS
  'A core amount by the one rule (@paykit/contracts readAmount): a decimal string with exactly two decimals, 0.01 to 9999999999999999.99; NULL for anything else.';
