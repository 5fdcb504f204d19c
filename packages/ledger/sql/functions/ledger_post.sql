-- Appends, for each item, one posting that brings its journal to its target; returns the number
-- of entries written (0 when the journal already says what the facts say). A correction is a new
-- posting, never an update, so the journal of an item always nets to what its facts say, in
-- whatever order they came.
CREATE OR REPLACE FUNCTION ledger_post(items text[], cause text) RETURNS integer
LANGUAGE sql AS $$
  WITH target AS (
    SELECT t.item, t.account, t.value_date, t.source, sum(t.amount) AS amount FROM ledger_targets(items) t GROUP BY 1, 2, 3, 4
  ), booked AS (
    SELECT j.item, j.account, j.value_date, j.source, sum(j.amount) AS amount
    FROM ledger_journal j WHERE j.item = ANY(items) GROUP BY 1, 2, 3, 4
  ), changed AS (
    SELECT coalesce(t.item, b.item) AS item, coalesce(t.account, b.account) AS account, coalesce(t.value_date, b.value_date) AS value_date,
           coalesce(t.source, b.source) AS source, coalesce(t.amount, 0) - coalesce(b.amount, 0) AS amount
    FROM target t FULL JOIN booked b ON b.item = t.item AND b.account = t.account AND b.value_date = t.value_date AND b.source = t.source
    WHERE coalesce(t.amount, 0) <> coalesce(b.amount, 0)
  ), postings AS (
    SELECT s.item, nextval('ledger_posting_seq') AS posting_id FROM (SELECT DISTINCT c.item FROM changed c ORDER BY 1) s
  ), written AS (
    INSERT INTO ledger_journal (posting_id, item, account, value_date, amount, source, cause)
    SELECT p.posting_id, c.item, c.account, c.value_date, c.amount, c.source, $2 FROM changed c JOIN postings p ON p.item = c.item
    RETURNING 1
  )
  SELECT count(*)::int FROM written
$$;
