-- Text that a timestamptz cast accepts without raising (a cast error would fail the whole batch):
-- a date and time with Z or an offset PostgreSQL can represent (up to ±15:59).
CREATE OR REPLACE FUNCTION ledger_is_offset_time(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT value ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|z|[+-](0[0-9]|1[0-5])(:?[0-5][0-9])?)$'
     AND substr(value, 9, 2)::int <= CASE substr(value, 6, 2)::int WHEN 2 THEN 29 WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END
$$;
