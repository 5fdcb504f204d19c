-- The ledger applies the platform's facts in any order and keeps the ones that contradict each
-- other: a conflict is stored as a fact of its own (ledger_conflicts) instead of being dropped.
-- Every documented wire form applies (compact dates, local times, a STATUS_UPDATE with only a
-- tracking key, numeric ids); an event is parked only when it truly cannot be applied.
-- Core dedupe keys carry the event type, so a MONEY_IN and a STATUS_UPDATE that share an id_msg
-- are two events.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- A time the platform sent, in any documented form, or NULL when it reads as none of them:
--   "20250402" (compact date) and "2025-04-02": that day's midnight in Mexico City;
--   "2025-03-06 11:16:59[.491631]" or with a T: Mexico City time (UTC-6 all year since 2022);
--   "2025-03-05 11:16:59.488685-06:00", "2026-02-24T10:30:15Z": as stated.
-- NULL, never an error: one bad value must not fail the batch it is in. ledger_time is inlined
-- into the statement that calls it and reads the two common forms itself; ledger_time_any (PL/pgSQL,
-- about 11 µs a call; a SQL function with a subquery is not inlined and costs about 100 µs) the rest.
CREATE FUNCTION ledger_time_any(value text) RETURNS timestamptz
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

CREATE FUNCTION ledger_time(value text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN value IS NULL THEN NULL
    WHEN substr(value, 6, 5) = '02-29' OR substr(value, 1, 4) = '0000' THEN ledger_time_any(value)
    WHEN ledger_is_offset_time(value) THEN value::timestamptz
    WHEN ledger_is_local_time(value) THEN (value || '-06:00')::timestamptz
    ELSE ledger_time_any(value) END
$$;

-- An amount as the platform may send it: a decimal string or a JSON number, up to two decimals.
CREATE FUNCTION ledger_amount(value text) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT CASE WHEN value ~ '^[0-9]{1,16}(\.[0-9]{1,2})?$' THEN value::numeric(18,2) END $$;

-- A transaction id: a string (a UUID or a numeric string such as "123456") or a JSON number.
CREATE FUNCTION ledger_id(value jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(value) IN ('string', 'number') AND value #>> '{}' <> '' THEN value #>> '{}' END
$$;

-- An older STATUS_UPDATE has no id: it is matched to the transfer by tracking key.
ALTER TABLE ledger_status_history ALTER COLUMN transaction_id DROP NOT NULL;
CREATE INDEX ledger_status_history_tracking ON ledger_status_history (tracking_key) WHERE transaction_id IS NULL;

-- Facts that contradict one already applied. The first stands in the ledger; the conflicting one
-- is kept here, and the item it concerns reads "conflict", never "matched".
--   credit         a MONEY_IN for a transaction already credited, under another id_msg, with other content
--   refund         a REFUND for a refund already recorded, under another id_msg, with other content
--   second_refund  a second refund of one transaction (refunds are never partial: one is the whole amount)
--   redelivery     an event redelivered under its id_msg with another body (the first body was answered and applied)
CREATE TABLE ledger_conflicts (
  id              bigint        GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind            text          NOT NULL CHECK (kind IN ('credit', 'refund', 'second_refund', 'redelivery')),
  -- The ledger item it concerns (the credited or refunded transaction), when known.
  transaction_id  text,
  event_type      text          NOT NULL,
  -- The event whose fact stands, and the conflicting one (a redelivery has no event of its own: its body is kept here).
  first_seq       bigint        NOT NULL,
  event_seq       bigint        UNIQUE,
  dedupe_key      text,
  first_amount    numeric(18,2),
  amount          numeric(18,2),
  detail          text          NOT NULL,
  raw_body        bytea,
  recorded_at     timestamptz   NOT NULL DEFAULT now()
);
CREATE INDEX ledger_conflicts_tx ON ledger_conflicts (transaction_id);
-- The same conflicting body redelivered again is one conflict.
CREATE UNIQUE INDEX ledger_conflicts_redelivery ON ledger_conflicts (first_seq, md5(raw_body)) WHERE kind = 'redelivery';

-- core:<id_msg> → core:<event type>:<id_msg> (and core:sha256:… likewise), the form the gateway now
-- writes, so a redelivery after the upgrade is still recognised. REPORT keys stay core:report:….
UPDATE webhook_events SET dedupe_key = 'core:' || event_type || ':' || substr(dedupe_key, 6)
WHERE source = 'core' AND dedupe_key LIKE 'core:%' AND dedupe_key NOT LIKE 'core:report:%';

-- The batch append of 0006, now recording a redelivery whose body differs from the stored one as a
-- conflict (in the statement that answers it, so an answered redelivery is never lost).
CREATE OR REPLACE FUNCTION webhook_events_append(batch json, bodies bytea)
RETURNS TABLE (dedupe_key text, seq text, inserted boolean, deliveries integer, outcome text, reason text, answer_status smallint, refund_reason text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH input AS MATERIALIZED (
    SELECT CASE WHEN i.guard_clabe IS NULL
                  OR i.guard_version IS NOT DISTINCT FROM (SELECT a.xmin::text FROM accounts a WHERE a.clabe = i.guard_clabe)
                THEN nextval('webhook_events_seq') END AS seq,
           i.*
    FROM json_to_recordset(batch)
      AS i(source text, event_type text, dedupe_key text, id_msg text, transaction_id text, operation_id text, body_at int, body_length int,
           payload_at int, payload text, headers jsonb, received_at timestamptz, drift jsonb, outcome text, reason text, answer_status int,
           refund_reason text, deliveries int, guard_clabe text, guard_version text)
  ), written AS (
    INSERT INTO webhook_events AS e (seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body,
                                     payload, headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
    SELECT seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, substring(bodies FROM body_at + 1 FOR body_length),
           -- Read from the body from now on, so parsed now: what jsonb refuses fails this event here
           -- (the batch isolates it), never a reader later.
           CASE WHEN payload IS NOT NULL THEN payload::jsonb
                WHEN convert_from(substring(bodies FROM payload_at + 1 FOR body_at + body_length - payload_at), 'UTF8')::jsonb IS NOT NULL THEN NULL
           END,
           headers, received_at, drift,
           outcome, reason, answer_status, refund_reason, deliveries
    FROM input
    WHERE seq IS NOT NULL
    ORDER BY dedupe_key COLLATE "C"
    ON CONFLICT (dedupe_key) DO UPDATE SET deliveries = e.deliveries + EXCLUDED.deliveries
    -- A duplicate's stored body and payload come back (only a duplicate's), to compare with the redelivery's.
    RETURNING e.dedupe_key, e.seq, (e.xmax = 0) AS inserted, e.deliveries, e.outcome, e.reason, e.answer_status, e.refund_reason, e.event_type,
              e.transaction_id, CASE WHEN e.xmax <> 0 THEN e.raw_body END AS stored_body, CASE WHEN e.xmax <> 0 THEN e.payload END AS stored_payload
  ), conflicts AS (
    INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, dedupe_key, detail, raw_body)
    SELECT 'redelivery', coalesce(w.transaction_id, i.transaction_id), w.event_type, w.seq, w.dedupe_key,
           'redelivered under ' || coalesce('id_msg ' || i.id_msg, 'its key') || ' with another body: the first body was answered and applied, this one is kept here',
           substring(bodies FROM i.body_at + 1 FOR i.body_length)
    FROM written w JOIN input i ON i.dedupe_key = w.dedupe_key
    -- Only duplicates have a stored body here: the bodies of new events are not copied again.
    WHERE NOT w.inserted AND w.stored_body <> substring(bodies FROM i.body_at + 1 FOR i.body_length)
      -- The same JSON written otherwise (spacing, key order) is the same event.
      AND (i.payload_at IS NULL AND i.payload IS NULL
           OR webhook_event_payload(w.stored_body, w.stored_payload)
              IS DISTINCT FROM coalesce(i.payload::jsonb, convert_from(substring(bodies FROM i.payload_at + 1 FOR i.body_at + i.body_length - i.payload_at), 'UTF8')::jsonb))
    ON CONFLICT DO NOTHING
  )
  SELECT w.dedupe_key, w.seq::text, w.inserted, w.deliveries, w.outcome, w.reason, w.answer_status, w.refund_reason FROM written w;
END
$$;

-- Why an event cannot be applied, or NULL when it can. Only what the ledger cannot do without is
-- checked: a time in a form no documentation shows is read as "not given" (the receipt time
-- stands in), never a reason to park money.
CREATE OR REPLACE FUNCTION ledger_event_problem(event_type text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(payload->'body') IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_id(payload->'body'->'id') IS NULL AND ledger_id(payload->'body'->'tracking_key') IS NULL
      THEN 'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given'
    WHEN event_type IN ('MONEY_IN', 'CEP', 'REFUND') AND ledger_id(payload->'body'->'id') IS NULL
      THEN event_type || ': body.id (the transaction id) is missing or not a string or number'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND ledger_amount(payload->'body'->>'amount') IS NULL
      THEN event_type || ': body.amount is missing or not an amount (a decimal string such as "150.00")'
    WHEN event_type = 'MONEY_IN' AND ledger_id(payload->'body'->'beneficiary_account') IS NULL
      THEN 'MONEY_IN: body.beneficiary_account is missing'
    WHEN event_type = 'MONEY_IN' AND coalesce(payload->'body'->>'sub_category', '') NOT IN ('SPEI_CREDIT', 'INT_CREDIT')
      THEN 'MONEY_IN: body.sub_category must be SPEI_CREDIT or INT_CREDIT'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_status_rank(payload->'body'->>'status') IS NULL
      THEN 'STATUS_UPDATE: body.status is missing or not a transaction status (INITIALIZED, IN_PROGRESS, LIQUIDATED, CANCELLED, REFUNDED, REJECTED, DECLINED)'
    WHEN event_type = 'CEP' AND coalesce(payload->'body'->>'status', '') NOT IN ('INITIALIZED', 'PENDING', 'DELAYED', 'COMPLETED', 'FAILED')
      THEN 'CEP: body.status is missing or not PENDING, DELAYED, COMPLETED or FAILED'
    WHEN event_type = 'REFUND' AND ledger_id(payload->'body'->'original_transaction_id') IS NULL
      THEN 'REFUND: body.original_transaction_id is missing'
    WHEN event_type = 'REPORT' AND jsonb_typeof(payload->'file_name') IS DISTINCT FROM 'string'
      THEN 'REPORT: file_name is missing or not a string'
    ELSE NULL
  END
$$;
