-- An event whose payload is its own body's JSON no longer stores it twice: its payload column is
-- NULL, and webhook_event_payload(raw_body, payload) reads it from the body. A 700-byte MONEY_IN
-- made a 1.8 kB row with both; writing those bytes (WAL, new pages, pages evicted from a full buffer
-- cache) was on the gateway's answer path (apps/webhook-gateway/README.md, "Performance", has the
-- benchmark pairs). A payload given apart from the body (a mended one, or none for a body that is
-- not JSON) is stored as before, and so are the rows written before this migration: readers see
-- no difference.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

ALTER TABLE webhook_events ALTER COLUMN payload DROP NOT NULL;

-- The payload of a stored event: the one stored, else its body's JSON (after a byte order mark,
-- which is no part of the JSON). Every reader of webhook_events goes through it.
CREATE FUNCTION webhook_event_payload(raw_body bytea, payload jsonb) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(payload, convert_from(CASE WHEN substring(raw_body FROM 1 FOR 3) = '\xefbbbf'::bytea THEN substring(raw_body FROM 4) ELSE raw_body END, 'UTF8')::jsonb)
$$;

-- The batch append of 0005, storing NULL for a payload read from the body.
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
  )
  INSERT INTO webhook_events AS e (seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body,
                                   payload, headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
  SELECT seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id,
         substring(bodies FROM body_at + 1 FOR body_length),
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
  RETURNING e.dedupe_key, e.seq::text, (e.xmax = 0), e.deliveries, e.outcome, e.reason, e.answer_status, e.refund_reason;
END
$$;
