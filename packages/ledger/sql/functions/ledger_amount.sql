-- A direct debit amount, which the platform documents as a JSON number (100, 100.0, 250.5): a
-- decimal string or a JSON number's text, up to two decimals. Core amounts (MONEY_IN, REFUND) are
-- read with paykit_amount, the one amount rule.
CREATE OR REPLACE FUNCTION ledger_amount(value text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN value ~ '^[0-9]{1,16}(\.[0-9]{1,2})?$' THEN value::numeric(18,2) END $$;
COMMENT ON FUNCTION ledger_amount(text) IS
  'Direct debit amounts only (JSON numbers such as 100 or 250.5, up to two decimals). Core amounts: paykit_amount(jsonb).';
