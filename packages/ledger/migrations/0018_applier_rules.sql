-- ledger_day, inlined. Written with a timestamptz minus an interval, an operation that is only
-- stable, the immutable function could not be inlined, and each call ran through the SQL-function
-- executor (about 3 µs); the journal's postings call it several times per entry. Read at UTC first,
-- then 6 hours back, every operator is immutable and the planner inlines it. It gives the same day
-- for every instant (a test compares the two over 32 years in four time zones), so the indexes
-- built on it keep the same keys; they are rebuilt all the same, as after every change to an
-- indexed function. Its current definition is sql/functions/ledger_day.sql.
-- The function files changed with it: ledger_time.sql and ledger_is_offset_time.sql (a time with
-- an offset past ±15:59 reads as none instead of failing its batch), ledger_event_problem.sql
-- (PL/pgSQL, the body read once). A build without this migration leaves them alone.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

CREATE OR REPLACE FUNCTION ledger_day(at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ((at AT TIME ZONE 'UTC') - interval '6 hours')::date $$;
REINDEX INDEX ledger_outbound_day;
REINDEX INDEX ledger_credits_day;
REINDEX INDEX ledger_dd_charges_day;
