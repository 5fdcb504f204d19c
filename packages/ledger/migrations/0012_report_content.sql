-- A report file is recognised by its content: the SHA-256 of its text is kept with the import, and
-- one content is imported once. The same file announced or imported under another name keeps a row
-- of its own (so the worker stops fetching it) that names the file it repeats and holds no lines.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

ALTER TABLE ledger_reports ADD COLUMN content_sha256 text;
ALTER TABLE ledger_reports ADD COLUMN duplicate_of text REFERENCES ledger_reports (file_name);
CREATE UNIQUE INDEX ledger_reports_content ON ledger_reports (content_sha256) WHERE duplicate_of IS NULL;
