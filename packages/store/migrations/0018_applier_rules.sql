-- The rules the applier runs for every event, made cheap, and a time out of range read as none.
-- A SQL function that the planner cannot inline (its body is less immutable than its declaration,
-- or an argument it reads several times is not a plain column) runs through the SQL-function
-- executor at every call, about 3–20 µs each; the applier calls ledger_event_problem once per event,
-- ledger_time once per event and ledger_day several times per journal entry. Measured on one
-- 5,000-event batch of the reconcile benchmark: ledger_post 288 → 172 ms, ledger_event_problem
-- 20 → 3 µs per MONEY_IN, ledger_time 11 → 3 µs.
-- ledger_is_offset_time let through any two-digit offset hour, so "+16:00" reached the cast, which
-- raised: one such event failed its whole batch and was parked, a MONEY_IN with it left out of the
-- books. Offsets now end at ±15:59, the cast's own limit; anything past it reads as no time.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- The day of an instant in Mexico City (UTC−6 all year since 2022): the value day of every posting,
-- the day of the lists and the daily summary. Written with immutable operators only (the instant
-- read at UTC, then 6 hours back), so the planner inlines it into the statements that call it,
-- several times per journal entry; `(at - interval '6 hours')`, a timestamptz operation, is only
-- stable, which kept the function from being inlined and cost about 3 µs a call.
CREATE OR REPLACE FUNCTION ledger_day(at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ((at AT TIME ZONE 'UTC') - interval '6 hours')::date $$;

-- Text that a timestamptz cast accepts without raising (a cast error would fail the whole batch):
-- a date and time with an offset PostgreSQL can represent (up to ±15:59) or Z.
CREATE OR REPLACE FUNCTION ledger_is_offset_time(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT value ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|z|[+-](0[0-9]|1[0-5])(:?[0-5][0-9])?)$'
     AND substr(value, 9, 2)::int <= CASE substr(value, 6, 2)::int WHEN 2 THEN 29 WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END
$$;

-- A time the platform sent, in any documented form, or NULL when it reads as none of them:
--   "20250402" (compact date) and "2025-04-02": that day's midnight in Mexico City;
--   "2025-03-06 11:16:59[.491631]" or with a T: Mexico City time (UTC−6 all year since 2022);
--   "2025-03-05 11:16:59.488685-06:00", "2026-02-24T10:30:15Z": as stated.
-- NULL, never an error: one bad value must not fail the batch it is in. The usual form,
-- YYYY-MM-DDTHH:MM:SS±HH:MM, is checked with string functions alone (a regular expression costs
-- about 2 µs, and the applier reads a time of most events); every other form goes through the
-- regular expressions of ledger_is_offset_time and ledger_is_local_time, and ledger_time_any.
-- PL/pgSQL: as a SQL function it is not inlined (its argument is read many times, and the cast is
-- only stable) and each call cost about 10 µs.
CREATE OR REPLACE FUNCTION ledger_time(value text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF length(value) = 25 AND translate(value, '0123456789', '') IN ('--T::-:', '--T::+:')
     AND substr(value, 1, 4) <> '0000' AND substr(value, 6, 2) BETWEEN '01' AND '12' AND substr(value, 9, 2) BETWEEN '01' AND '28'
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

-- Why a stored event cannot be applied, in words an operator can act on, or NULL when it can.
-- The amount rule is paykit_amount's (the one rule of @paykit/contracts' readAmount). PL/pgSQL, with
-- the body read once: as a SQL function it is not inlined (its payload is read many times) and each
-- call cost about 20 µs; this costs about 3.
CREATE OR REPLACE FUNCTION ledger_event_problem(event_type text, payload jsonb)
RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $function$
DECLARE
  b jsonb := payload->'body';
BEGIN
  RETURN CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(b) IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_id(b->'id') IS NULL AND ledger_id(b->'tracking_key') IS NULL
      THEN 'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given'
    WHEN event_type IN ('MONEY_IN', 'CEP', 'REFUND') AND ledger_id(b->'id') IS NULL
      THEN event_type || ': body.id (the transaction id) is missing or not a string or number'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND paykit_amount(b->'amount') IS NULL
      THEN event_type || ': body.amount ' || coalesce(left((b->'amount')::text, 44), 'is missing')
           || CASE WHEN b->'amount' IS NULL THEN '' ELSE ' is not an amount' END
           || ': an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)'
    WHEN event_type = 'MONEY_IN' AND ledger_id(b->'beneficiary_account') IS NULL
      THEN 'MONEY_IN: body.beneficiary_account is missing'
    WHEN event_type = 'MONEY_IN' AND b->>'sub_category' IS NOT NULL AND upper(b->>'sub_category') NOT IN ('SPEI_CREDIT', 'INT_CREDIT')
      THEN 'MONEY_IN: body.sub_category, when given, must be SPEI_CREDIT or INT_CREDIT'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_status_rank(b->>'status') IS NULL
      THEN 'STATUS_UPDATE: body.status is missing or not a transaction status (INITIALIZED, IN_PROGRESS, LIQUIDATED, CANCELLED, REFUNDED, REJECTED, DECLINED)'
    WHEN event_type = 'CEP' AND coalesce(b->>'status', '') NOT IN ('INITIALIZED', 'PENDING', 'DELAYED', 'COMPLETED', 'FAILED')
      THEN 'CEP: body.status is missing or not PENDING, DELAYED, COMPLETED or FAILED'
    WHEN event_type = 'REFUND' AND ledger_id(b->'original_transaction_id') IS NULL
      THEN 'REFUND: body.original_transaction_id is missing'
    WHEN event_type = 'REPORT' AND jsonb_typeof(payload->'file_name') IS DISTINCT FROM 'string'
      THEN 'REPORT: file_name is missing or not a string'
    ELSE NULL
  END;
END
$function$;

