-- A decimal string with exactly two decimals. The ledger's own rules no longer read it (core
-- amounts: paykit_amount; direct debit amounts: ledger_amount).
CREATE OR REPLACE FUNCTION ledger_is_amount(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT value ~ '^[0-9]{1,16}\.[0-9]{2}$' $$;
