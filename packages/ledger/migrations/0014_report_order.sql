-- Reports are ordered by their own time, never by file name. Two facts of a report's content are
-- kept with its import, for when the REPORT event (its created_at) is missing or ties: the latest
-- transaction_date it lists (the platform generated the file no earlier) and the sum of its lines'
-- status ranks (statuses only move forward, so of two files of one day listing the same
-- transactions, the later shows more of them further on). The ledger's reads compare with them.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

ALTER TABLE ledger_reports ADD COLUMN content_time timestamptz;
ALTER TABLE ledger_reports ADD COLUMN status_rank_sum bigint;

UPDATE ledger_reports r SET content_time = s.content_time, status_rank_sum = s.status_rank_sum
FROM (
  SELECT file_name, max(transaction_at) AS content_time, coalesce(sum(ledger_status_rank(status)), 0) AS status_rank_sum
  FROM ledger_report_lines GROUP BY file_name
) s
WHERE s.file_name = r.file_name;
