-- A time the platform sent, in any documented form, or NULL (see ledger_time_any); never an error.
-- The usual form, YYYY-MM-DDTHH:MM:SS±HH:MM, is checked with string functions alone (a regular
-- expression costs about 2 µs, and the applier reads a time of most events); every other form goes
-- through ledger_is_offset_time, ledger_is_local_time and ledger_time_any. PL/pgSQL: as a SQL
-- function it is not inlined (its argument is read many times and the cast is only stable), and a
-- call cost about 10 µs.
CREATE OR REPLACE FUNCTION ledger_time(value text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF length(value) = 25 AND translate(value, '0123456789', '') IN ('--T::-:', '--T::+:')
     AND substr(value, 5, 1) = '-' AND substr(value, 8, 1) = '-' AND substr(value, 11, 1) = 'T'
     AND substr(value, 14, 1) = ':' AND substr(value, 17, 1) = ':' AND substr(value, 20, 1) IN ('+', '-')
     AND substr(value, 23, 1) = ':' AND substr(value, 1, 4) <> '0000' AND substr(value, 6, 2) BETWEEN '01' AND '12' AND substr(value, 9, 2) BETWEEN '01' AND '28'
     AND substr(value, 12, 2) <= '23' AND substr(value, 15, 2) <= '59' AND substr(value, 18, 2) <= '59'
     AND substr(value, 21, 2) <= '15' AND substr(value, 24, 2) <= '59' THEN
    RETURN value::timestamptz;
  END IF;
  RETURN CASE
    WHEN value IS NULL THEN NULL
    WHEN substr(value, 6, 5) = '02-29' OR substr(value, 1, 4) = '0000' THEN ledger_time_any(value)
    WHEN ledger_is_offset_time(value) THEN value::timestamptz
    WHEN ledger_is_local_time(value) THEN (value || '-06:00')::timestamptz
    ELSE ledger_time_any(value) END;
END
$$;
