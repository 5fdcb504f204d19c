-- The event store's batch append (packages/store/src/event-batch.ts) as a function. A statement
-- sent as text is parsed and planned again for every batch, which costs the server about as much
-- CPU as writing the batch's rows; PL/pgSQL keeps the plan for the life of the connection.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- `batch`: a JSON array of rows, keys named as the columns of `i` below; `bodies`: the raw bodies end
-- to end, each row's at body_at (0-based) for body_length bytes, its JSON text (unless `payload`
-- gives the payload) from payload_at to the body's end.
-- seq is drawn in arrival order (the CTE is materialised before the sort), by this INSERT, and only
-- for the events that pass their account guard: the account's row (clabe guard_clabe) still has
-- the version (xmin) the decision read, or still does not exist (guard_version null). Rows are
-- written in dedupe_key order, so two batches that share keys lock them in the same order and
-- cannot deadlock. An event whose guard failed is not written and returns no row (every other
-- event returns one, a duplicate through ON CONFLICT DO UPDATE included).
CREATE FUNCTION webhook_events_append(batch json, bodies bytea)
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
         coalesce(payload, convert_from(substring(bodies FROM payload_at + 1 FOR body_at + body_length - payload_at), 'UTF8'))::jsonb,
         headers, received_at, drift,
         outcome, reason, answer_status, refund_reason, deliveries
  FROM input
  WHERE seq IS NOT NULL
  ORDER BY dedupe_key COLLATE "C"
  ON CONFLICT (dedupe_key) DO UPDATE SET deliveries = e.deliveries + EXCLUDED.deliveries
  RETURNING e.dedupe_key, e.seq::text, (e.xmax = 0), e.deliveries, e.outcome, e.reason, e.answer_status, e.refund_reason;
END
$$;
