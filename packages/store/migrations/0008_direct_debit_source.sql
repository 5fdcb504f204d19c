-- Direct debit webhook deliveries (charge_result) are stored beside core and cash events, under
-- the source 'direct_debit'. The check of 0001 named only core and cash.
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_source_check;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_source_check CHECK (source IN ('core', 'cash', 'direct_debit'));
