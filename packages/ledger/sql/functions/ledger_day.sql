-- Mexico City has been UTC-6 all year since 2022; a day of the ledger is a Mexico City day.
-- Indexes are built on it (ledger_outbound_day, ledger_credits_day, ledger_dd_charges_day): a
-- change to it is a migration that replaces it and rebuilds them (migrate refuses a change here).
CREATE OR REPLACE FUNCTION ledger_day(at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ((at - interval '6 hours') AT TIME ZONE 'UTC')::date $$;
