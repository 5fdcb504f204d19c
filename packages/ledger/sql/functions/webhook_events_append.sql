-- The event store's batch append (packages/store/src/event-batch.ts) as a function: a statement
-- sent as text is parsed and planned again for every batch, which costs the server about as much
-- CPU as writing the batch's rows; PL/pgSQL keeps the plan for the life of the connection.
--
-- The store's migrations (0005_append_events, 0006_payload_from_body, 0023_partitioned_events) create
-- it for a database without the ledger; this is the ledger's definition of it, which also records a redelivery whose
-- body differs from the stored one as a conflict (ledger_conflicts, kind redelivery), in the
-- statement that answers it, so an answered redelivery is never lost. The gateway runs the
-- ledger's migration set for it.
--
-- `batch`: a JSON array of rows, keys named as the columns of `i` below; `bodies`: the raw bodies end
-- to end, each row's at body_at (0-based) for body_length bytes, its JSON text (unless `payload`
-- gives the payload) from payload_at to the body's end.
-- seq is drawn in arrival order (the CTE is materialised before the sort), in the statement that
-- writes webhook_events, and only for the events that pass their account guard: the account's row
-- (clabe guard_clabe) still has the version (xmin) the decision read, or still does not exist
-- (guard_version null). An event whose guard failed is not written and returns no row.
-- One stored event per key is the rule of webhook_event_keys (store migration 0023: the event
-- table is partitioned by month and can hold no unique index on dedupe_key). The keys are written
-- first, in dedupe_key order, so two batches that share keys lock them in the same order and hold
-- them to the end; only a new key's event is written. A payload that is the body's own JSON is
-- stored as NULL (webhook_event_payload reads it from the body).
-- A redelivery is answered from its key (seq, first decision, delivery count) in a second
-- statement, which sees the first delivery's row even when it was committed while the first
-- statement waited for the key: the count is copied to the row, the first decision's reasons read
-- from it, and a body that differs from the stored one is recorded as a conflict. A redelivery
-- of an archived event (its key kept, its row in an archive file) is recorded as a conflict too:
-- its body cannot be compared here, so it is kept for a person to compare with the archive.
CREATE OR REPLACE FUNCTION webhook_events_append(batch json, bodies bytea)
RETURNS TABLE (dedupe_key text, seq text, inserted boolean, deliveries integer, outcome text, reason text, answer_status smallint, refund_reason text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  keys text[]; seqs bigint[]; times timestamptz[]; news boolean[]; counts integer[]; outcomes text[]; statuses smallint[];
  reasons text[]; refund_reasons text[];
BEGIN
  WITH input AS MATERIALIZED (
    SELECT CASE WHEN i.guard_clabe IS NULL
                  OR i.guard_version IS NOT DISTINCT FROM (SELECT a.xmin::text FROM accounts a WHERE a.clabe = i.guard_clabe)
                THEN nextval('webhook_events_seq') END AS seq,
           i.*
    FROM json_to_recordset(batch)
      AS i(source text, event_type text, dedupe_key text, id_msg text, transaction_id text, operation_id text, body_at int, body_length int,
           payload_at int, payload text, headers jsonb, received_at timestamptz, drift jsonb, outcome text, reason text, answer_status int,
           refund_reason text, deliveries int, guard_clabe text, guard_version text)
  ), keyed AS (
    INSERT INTO webhook_event_keys AS k (dedupe_key, seq, received_at, deliveries, outcome, answer_status)
    SELECT dedupe_key, seq, received_at, deliveries, outcome, answer_status FROM input
    WHERE seq IS NOT NULL
    ORDER BY dedupe_key COLLATE "C"
    ON CONFLICT (dedupe_key) DO UPDATE SET deliveries = k.deliveries + EXCLUDED.deliveries
    RETURNING k.dedupe_key, k.seq, k.received_at, (k.xmax = 0) AS inserted, k.deliveries, k.outcome, k.answer_status
  ), written AS (
    INSERT INTO webhook_events (seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id, raw_body,
                                payload, headers, received_at, drift, outcome, reason, answer_status, refund_reason, deliveries)
    SELECT i.seq, i.source, i.event_type, i.dedupe_key, i.id_msg, i.transaction_id, i.operation_id,
           substring(bodies FROM i.body_at + 1 FOR i.body_length),
           -- Read from the body from now on, so parsed now: what jsonb refuses fails this event here
           -- (the batch isolates it), never a reader later.
           CASE WHEN i.payload IS NOT NULL THEN i.payload::jsonb
                WHEN convert_from(substring(bodies FROM i.payload_at + 1 FOR i.body_at + i.body_length - i.payload_at), 'UTF8')::jsonb IS NOT NULL THEN NULL
           END,
           i.headers, i.received_at, i.drift, i.outcome, i.reason, i.answer_status, i.refund_reason, i.deliveries
    FROM input i JOIN keyed k ON k.dedupe_key = i.dedupe_key
    WHERE k.inserted
  )
  SELECT array_agg(k.dedupe_key), array_agg(k.seq), array_agg(k.received_at), array_agg(k.inserted), array_agg(k.deliveries),
         array_agg(k.outcome), array_agg(k.answer_status), array_agg(i.reason), array_agg(i.refund_reason)
  INTO keys, seqs, times, news, counts, outcomes, statuses, reasons, refund_reasons
  FROM keyed k JOIN input i ON i.dedupe_key = k.dedupe_key;

  RETURN QUERY
  SELECT r.dedupe_key, r.seq::text, true, r.deliveries, r.outcome, r.reason, r.answer_status, r.refund_reason
  FROM unnest(keys, seqs, news, counts, outcomes, statuses, reasons, refund_reasons)
    AS r(dedupe_key, seq, inserted, deliveries, outcome, answer_status, reason, refund_reason)
  WHERE r.inserted;
  IF NOT (false = ANY (news)) THEN
    RETURN;
  END IF;

  RETURN QUERY
  WITH r AS MATERIALIZED (
    SELECT r.*, e.seq IS NOT NULL AS stored, e.event_type, e.transaction_id, e.reason, e.refund_reason, e.raw_body AS stored_body,
           e.payload AS stored_payload
    FROM unnest(keys, seqs, times, news, counts, outcomes, statuses)
           AS r(dedupe_key, seq, received_at, inserted, deliveries, outcome, answer_status)
    LEFT JOIN webhook_events e ON e.seq = r.seq AND e.received_at = r.received_at
    WHERE NOT r.inserted
  ), counted AS (
    UPDATE webhook_events e SET deliveries = r.deliveries FROM r
    WHERE e.seq = r.seq AND e.received_at = r.received_at AND e.deliveries < r.deliveries
  ), input AS (
    SELECT i.* FROM json_to_recordset(batch)
      AS i(dedupe_key text, event_type text, id_msg text, transaction_id text, body_at int, body_length int, payload_at int, payload text)
    WHERE i.dedupe_key IN (SELECT r.dedupe_key FROM r)
  ), conflicts AS (
    INSERT INTO ledger_conflicts (kind, transaction_id, event_type, first_seq, dedupe_key, detail, raw_body)
    SELECT 'redelivery', coalesce(r.transaction_id, i.transaction_id), coalesce(r.event_type, i.event_type), r.seq, r.dedupe_key,
           CASE WHEN r.stored
                THEN 'redelivered under ' || coalesce('id_msg ' || i.id_msg, 'its key') || ' with another body: the first body was answered and applied, this one is kept here'
                ELSE 'redelivered under ' || coalesce('id_msg ' || i.id_msg, 'its key') || ' after the first delivery was archived: the first body was answered and applied; compare this one with the archive (paykit store archives)'
           END,
           substring(bodies FROM i.body_at + 1 FOR i.body_length)
    FROM r JOIN input i ON i.dedupe_key = r.dedupe_key
    WHERE NOT r.stored
       OR r.stored_body <> substring(bodies FROM i.body_at + 1 FOR i.body_length)
          -- The same JSON written otherwise (spacing, key order) is the same event.
          AND (i.payload_at IS NULL AND i.payload IS NULL
               OR webhook_event_payload(r.stored_body, r.stored_payload)
                  IS DISTINCT FROM coalesce(i.payload::jsonb, convert_from(substring(bodies FROM i.payload_at + 1 FOR i.body_at + i.body_length - i.payload_at), 'UTF8')::jsonb))
    ON CONFLICT DO NOTHING
  )
  SELECT r.dedupe_key, r.seq::text, false, r.deliveries, r.outcome, r.reason, r.answer_status, r.refund_reason FROM r;
END
$$;
