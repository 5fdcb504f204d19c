-- The drift page (src/drift-read.ts) groups the notes of the events that drifted. Without an index it
-- reads every stored event, so its cost grows with the whole history (the store-growth benchmark:
-- 17 ms at 20,000 events, 213 ms at 220,000). Most events have no drift: this partial index holds
-- only those that do, and the page reads them alone.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
CREATE INDEX webhook_events_drifted ON webhook_events (seq) WHERE drift <> '[]'::jsonb;
