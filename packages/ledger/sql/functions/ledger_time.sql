-- A time the platform sent, in any documented form, or NULL (see ledger_time_any): the two common
-- forms read here, inlined into the statement that calls it; the rest by ledger_time_any.
CREATE OR REPLACE FUNCTION ledger_time(value text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN value IS NULL THEN NULL
    WHEN substr(value, 6, 5) = '02-29' OR substr(value, 1, 4) = '0000' THEN ledger_time_any(value)
    WHEN ledger_is_offset_time(value) THEN value::timestamptz
    WHEN ledger_is_local_time(value) THEN (value || '-06:00')::timestamptz
    ELSE ledger_time_any(value) END
$$;
