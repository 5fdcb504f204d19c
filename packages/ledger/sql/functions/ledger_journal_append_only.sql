-- Append-only: an entry of ledger_journal is never changed or removed (a correction is a posting of
-- its own). The trigger ledger_journal_append_only (migration 0015_journal) runs it.
CREATE OR REPLACE FUNCTION ledger_journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_journal is append-only: post a correcting entry instead of % ', TG_OP;
END
$$;
