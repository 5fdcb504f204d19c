-- Every webhook event the gateway acknowledged, exactly as received, with the decision it answered.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- seq is the received order the reconciliation worker consumes by. It is a sequence of its own so
-- the insert can draw numbers in arrival order while writing rows in dedupe_key order (the order
-- that keeps concurrent batches from deadlocking on the unique index).
CREATE SEQUENCE webhook_events_seq AS bigint;

CREATE TABLE webhook_events (
  seq             bigint      PRIMARY KEY DEFAULT nextval('webhook_events_seq'),
  source          text        NOT NULL CHECK (source IN ('core', 'cash')),
  event_type      text        NOT NULL CHECK (event_type <> ''),
  -- core:<id_msg>, core:report:<client_id>:<file_name>, cash:<operation_id>:<event>
  dedupe_key      text        NOT NULL UNIQUE CHECK (dedupe_key <> ''),
  id_msg          text,
  transaction_id  text,
  operation_id    text,
  raw_body        bytea       NOT NULL,
  payload         jsonb       NOT NULL,
  headers         jsonb       NOT NULL DEFAULT '{}',
  received_at     timestamptz NOT NULL,
  stored_at       timestamptz NOT NULL DEFAULT now(),
  drift           jsonb       NOT NULL DEFAULT '[]',
  outcome         text        NOT NULL CHECK (outcome IN ('accepted', 'rejected', 'flagged', 'stored')),
  reason          text,
  answer_status   smallint    NOT NULL CHECK (answer_status BETWEEN 100 AND 599),
  refund_reason   text,
  -- How many times this dedupe_key arrived; redeliveries only ever add to it.
  deliveries      integer     NOT NULL DEFAULT 1 CHECK (deliveries >= 1),
  -- Set by the reconciliation worker once it has applied the event (not built yet).
  applied_at      timestamptz
);

ALTER SEQUENCE webhook_events_seq OWNED BY webhook_events.seq;

-- Each re-run of the decision for a stored event (ops replays); the event row itself never changes.
CREATE TABLE webhook_event_replays (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  seq            bigint      NOT NULL REFERENCES webhook_events (seq),
  replayed_at    timestamptz NOT NULL DEFAULT now(),
  drift          jsonb       NOT NULL DEFAULT '[]',
  outcome        text        NOT NULL CHECK (outcome IN ('accepted', 'rejected', 'flagged', 'stored')),
  reason         text,
  answer_status  smallint    NOT NULL CHECK (answer_status BETWEEN 100 AND 599),
  refund_reason  text
);

CREATE INDEX webhook_event_replays_seq ON webhook_event_replays (seq, replayed_at);
