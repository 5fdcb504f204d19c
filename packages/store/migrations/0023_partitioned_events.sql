-- The event store partitioned by month of received_at, so that a month's deliveries can be archived
-- to a file and dropped as one table (docs/operations.md, "Retention") while the months after it
-- are written and read as before.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
--
-- PostgreSQL asks every unique index of a partitioned table to hold the partition key, so the one
-- unique rule that matters, one stored event per dedupe_key, moves to a table of its own:
-- webhook_event_keys, a row per key (about 100 bytes), written first by the append in the same
-- statement as the event. It holds what a redelivery is answered with (the seq, the first
-- decision's outcome and status, the delivery count), so a redelivery of an archived event is still
-- answered as the first delivery was and never stored twice. Its rows outlive their events for the
-- dedupe window the archive is given.
CREATE TABLE webhook_event_keys (
  dedupe_key     text        PRIMARY KEY,
  seq            bigint      NOT NULL,
  received_at    timestamptz NOT NULL,
  deliveries     integer     NOT NULL CHECK (deliveries >= 1),
  outcome        text        NOT NULL,
  answer_status  smallint    NOT NULL
);

-- The table as it was, renamed with its constraints and indexes out of the way of the new one's names.
ALTER TABLE webhook_events RENAME TO webhook_events_unpartitioned;
ALTER TABLE webhook_events_unpartitioned RENAME CONSTRAINT webhook_events_pkey TO webhook_events_unpartitioned_pkey;
DROP INDEX webhook_events_drifted;

-- Seqs stay unique (drawn from webhook_events_seq, never given by a writer); the primary key holds
-- received_at too because PostgreSQL asks it to, and a lookup by seq alone still uses it.
CREATE TABLE webhook_events (
  seq             bigint      NOT NULL DEFAULT nextval('webhook_events_seq'),
  source          text        NOT NULL CHECK (source IN ('core', 'cash', 'direct_debit')),
  event_type      text        NOT NULL CHECK (event_type <> ''),
  dedupe_key      text        NOT NULL CHECK (dedupe_key <> ''),
  id_msg          text,
  transaction_id  text,
  operation_id    text,
  raw_body        bytea       NOT NULL,
  payload         jsonb,
  headers         jsonb       NOT NULL DEFAULT '{}',
  received_at     timestamptz NOT NULL,
  stored_at       timestamptz NOT NULL DEFAULT now(),
  drift           jsonb       NOT NULL DEFAULT '[]',
  outcome         text        NOT NULL CHECK (outcome IN ('accepted', 'rejected', 'flagged', 'stored')),
  reason          text,
  answer_status   smallint    NOT NULL CHECK (answer_status BETWEEN 100 AND 599),
  refund_reason   text,
  deliveries      integer     NOT NULL DEFAULT 1 CHECK (deliveries >= 1),
  PRIMARY KEY (seq, received_at)
) PARTITION BY RANGE (received_at);
CREATE INDEX webhook_events_drifted ON webhook_events (seq) WHERE drift <> '[]'::jsonb;

-- Rows of a month that has no partition yet (a clock far off, a worker that did not run for
-- months): nothing is refused. webhook_events_add_partition moves them into their month's table.
CREATE TABLE webhook_events_default PARTITION OF webhook_events DEFAULT;

-- The partition of a month, made when missing (its current definition: sql/functions/webhook_events_add_partition.sql).
CREATE FUNCTION webhook_events_add_partition(at timestamptz) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  lo timestamptz := date_trunc('month', at, 'UTC');
  hi timestamptz := date_trunc('month', at, 'UTC') + interval '1 month';
  name text := 'webhook_events_' || to_char(date_trunc('month', at, 'UTC') AT TIME ZONE 'UTC', 'YYYY_MM');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN name;
  END IF;
  -- One creator at a time (two apps starting together); the second finds the table made.
  PERFORM pg_advisory_xact_lock(hashtext('webhook_events partitions'));
  IF to_regclass(name) IS NOT NULL THEN
    RETURN name;
  END IF;
  -- No event may land in the default partition between the move below and the attach, which
  -- checks that the default holds none of the month (inserts routed elsewhere are not held up).
  LOCK TABLE webhook_events_default IN EXCLUSIVE MODE;
  EXECUTE format('CREATE TABLE %I (LIKE webhook_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
  -- The bound as a constraint first: ATTACH then trusts it instead of reading the table again.
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I CHECK (received_at >= %L AND received_at < %L)', name, name || '_bound', lo, hi);
  EXECUTE format('WITH moved AS (DELETE FROM webhook_events_default WHERE received_at >= %L AND received_at < %L RETURNING *) '
                 'INSERT INTO %I SELECT * FROM moved', lo, hi, name);
  EXECUTE format('ALTER TABLE webhook_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, lo, hi);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', name, name || '_bound');
  RETURN name;
END
$$;

-- The months the stored events fall in, then this month and the next three.
SELECT webhook_events_add_partition(m)
FROM (SELECT DISTINCT date_trunc('month', received_at, 'UTC') AS m FROM webhook_events_unpartitioned
      UNION SELECT date_trunc('month', now(), 'UTC') + make_interval(months => n) FROM generate_series(0, 3) n) months;

INSERT INTO webhook_events SELECT seq, source, event_type, dedupe_key, id_msg, transaction_id, operation_id,
  raw_body, payload, headers, received_at, stored_at, drift, outcome, reason, answer_status, refund_reason, deliveries
FROM webhook_events_unpartitioned;

INSERT INTO webhook_event_keys (dedupe_key, seq, received_at, deliveries, outcome, answer_status)
SELECT dedupe_key, seq, received_at, deliveries, outcome, answer_status FROM webhook_events_unpartitioned;

-- The sequence stays (it was owned by the column dropped here); the foreign keys that pointed at
-- the old table's seq go with it (CASCADE drops those constraints, not their tables): a seq is no
-- longer unique on its own to the database, and an archived event leaves its seq behind in the
-- ledger on purpose.
ALTER SEQUENCE webhook_events_seq OWNED BY NONE;
DROP TABLE webhook_events_unpartitioned CASCADE;
ALTER SEQUENCE webhook_events_seq OWNED BY webhook_events.seq;

-- Each archive written by `paykit store archive`: which month's events went to which file, with
-- the file's checksum, so a reader who asks for an archived event is told where it is.
CREATE TABLE webhook_event_archives (
  partition_name  text        PRIMARY KEY,
  range_from      timestamptz NOT NULL,
  range_to        timestamptz NOT NULL,
  file            text        NOT NULL,
  sha256          text        NOT NULL,
  events          bigint      NOT NULL,
  first_seq       bigint,
  last_seq        bigint,
  archived_at     timestamptz NOT NULL DEFAULT now(),
  restored_at     timestamptz
);

-- The store's append for a database without the ledger (the ledger's set defines its own, with
-- the redelivery conflicts: @paykit/ledger's sql/functions/webhook_events_append.sql). The key
-- is written first, in dedupe_key order (two batches that share keys lock them in the same order,
-- and hold them to the end: the event rows of those keys are then written in that order too); only
-- a new key's event is written. A redelivery is answered from its key, with the first decision's
-- reasons from the event row where it is still stored (not archived), and its count is copied there.
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
  -- Redeliveries, in a statement of their own: it sees the first delivery's row even when that
  -- row was committed while the statement above waited for its key.
  RETURN QUERY
  WITH r AS MATERIALIZED (
    SELECT * FROM unnest(keys, seqs, times, news, counts, outcomes, statuses)
      AS r(dedupe_key, seq, received_at, inserted, deliveries, outcome, answer_status)
    WHERE NOT r.inserted
  ), counted AS (
    UPDATE webhook_events e SET deliveries = r.deliveries FROM r
    WHERE e.seq = r.seq AND e.received_at = r.received_at AND e.deliveries < r.deliveries
  )
  SELECT r.dedupe_key, r.seq::text, false, r.deliveries, r.outcome, e.reason, r.answer_status, e.refund_reason
  FROM r LEFT JOIN webhook_events e ON e.seq = r.seq AND e.received_at = r.received_at;
END
$$;
