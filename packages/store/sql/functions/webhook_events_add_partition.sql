-- The partition of webhook_events for the month (UTC) that `at` falls in, created if it is not
-- there; returns its name (webhook_events_2026_11). Called ahead of time by the apps
-- (src/partitions.ts, ensureEventPartitions) and by the archive for a month whose events landed in
-- webhook_events_default (no partition existed when they arrived): those rows are moved into the
-- new partition in the same transaction, and by a restore, for the month of the events it brings back.
CREATE OR REPLACE FUNCTION webhook_events_add_partition(at timestamptz) RETURNS text
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
