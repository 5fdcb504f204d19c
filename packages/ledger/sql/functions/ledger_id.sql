-- A transaction id: a string (a UUID or a numeric string such as "123456") or a JSON number.
CREATE OR REPLACE FUNCTION ledger_id(value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(value) IN ('string', 'number') AND value #>> '{}' <> '' THEN value #>> '{}' END
$$;
