-- Which stored events the reconciliation worker has applied, kept beside webhook_events instead of
-- in it. Marking an event applied used to rewrite its whole row (raw_body, payload and headers,
-- about a kilobyte in all, plus an entry in both of its indexes and the WAL for all of it); a row
-- here is 40 bytes. The claim no longer walks an index of applied events either: it starts at
-- the floor below, which follows the oldest event still waiting.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- An event is applied exactly when its seq is here; the row commits with the ledger rows it made.
-- No foreign key to webhook_events: checking it would lock the wide event row, the write avoided.
CREATE TABLE webhook_events_applied (
  seq         bigint      PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO webhook_events_applied (seq, applied_at)
SELECT seq, applied_at FROM webhook_events WHERE applied_at IS NOT NULL;

-- How far the worker's claims can skip. One row, kept by whichever worker gets to lock it.
--   floor_seq: every stored event with a seq up to here is applied or parked, and no event with
--     such a seq can still be stored (claims start above it; retried parked events are found
--     through ledger_parked_events).
--   candidate_seq: the highest seq stored when the candidate was taken. A lower seq that was not
--     stored yet belongs to a transaction that was still writing webhook_events then (seqs are
--     drawn in increasing order, by the INSERT itself), or to none: once every transaction in
--     candidate_writers has ended, the floor may move up to candidate_seq over applied and
--     parked events. (So webhook_events_seq keeps CACHE 1, never goes back, and no event is
--     inserted with a seq of its own.)
--   candidate_writers: the virtual transaction ids (pg_locks) that then held ROW EXCLUSIVE on
--     webhook_events.
CREATE TABLE webhook_events_progress (
  only_row          boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  floor_seq         bigint  NOT NULL DEFAULT 0,
  candidate_seq     bigint,
  candidate_writers text[]  NOT NULL DEFAULT '{}'
);

INSERT INTO webhook_events_progress DEFAULT VALUES;

DROP INDEX webhook_events_unapplied;
ALTER TABLE webhook_events DROP COLUMN applied_at;
