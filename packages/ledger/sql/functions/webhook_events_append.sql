-- The event store's batch append (packages/store/src/event-batch.ts) as a function: a statement
-- sent as text is parsed and planned again for every batch, which costs the server about as much
-- CPU as writing the batch's rows; PL/pgSQL keeps the plan for the life of the connection.
--
-- The store's migrations (0005_append_events, 0006_payload_from_body) create it for a database
-- without the ledger; this is the ledger's definition of it, which also records a redelivery whose
-- body differs from the stored one as a conflict (ledger_conflicts, kind redelivery), in the
-- statement that answers it, so an answered redelivery is never lost. The gateway runs the
-- ledger's migration set for it.
--
-- `batch`: a JSON array of rows, keys named as the columns of `i` below; `bodies`: the raw bodies end
-- to end, each row's at body_at (0-based) for body_length bytes, its JSON text (unless `payload`
-- gives the payload) from payload_at to the body's end.
-- seq is drawn in arrival order (the CTE is materialised before the sort), by this INSERT, and only
-- for the events that pass their account guard: the account's row (clabe guard_clabe) still has
-- the version (xmin) the decision read, or still does not exist (guard_version null). Rows are
-- written in dedupe_key order, so two batches that share keys lock them in the same order and
-- cannot deadlock. An event whose guard failed is not written and returns no row (every other
-- event returns one, a duplicate through ON CONFLICT DO UPDATE included). A payload that is the
-- body's own JSON is stored as NULL (webhook_event_payload reads it from the body).
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
