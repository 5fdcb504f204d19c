-- A time the platform sent, in any documented form, or NULL when it reads as none of them:
--   "20250402" (compact date) and "2025-04-02": that day's midnight in Mexico City;
--   "2025-03-06 11:16:59[.491631]" or with a T: Mexico City time (UTC-6 all year since 2022);
--   "2025-03-05 11:16:59.488685-06:00", "2026-02-24T10:30:15Z": as stated.
-- NULL, never an error: one bad value must not fail the batch it is in. ledger_time is inlined
-- into the statement that calls it and reads the two common forms itself; ledger_time_any (PL/pgSQL,
-- about 11 µs a call; a SQL function with a subquery is not inlined and costs about 100 µs) the rest.
CREATE OR REPLACE FUNCTION ledger_time_any(value text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  t text := CASE
    WHEN value ~ '^[0-9]{8}$' THEN substr(value, 1, 4) || '-' || substr(value, 5, 2) || '-' || substr(value, 7, 2) || ' 00:00:00-06:00'
    WHEN value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN value || ' 00:00:00-06:00'
    WHEN value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?$' THEN value || '-06:00'
    ELSE value END;
BEGIN
  IF NOT ledger_is_offset_time(t) OR substr(t, 1, 4) = '0000' THEN
    RETURN NULL;
  END IF;
  -- 29 February only in a leap year (ledger_is_offset_time lets every 29 February through).
  IF substr(t, 6, 5) = '02-29' AND NOT (substr(t, 1, 4)::int % 4 = 0 AND (substr(t, 1, 4)::int % 100 <> 0 OR substr(t, 1, 4)::int % 400 = 0)) THEN
    RETURN NULL;
  END IF;
  RETURN t::timestamptz;
END
$$;
