-- The payload of a stored event: the one stored, else its body's JSON (after a byte order mark,
-- which is no part of the JSON). An event whose payload is its own body's JSON stores it once, in
-- raw_body, with payload NULL; every reader of webhook_events goes through this function.
CREATE OR REPLACE FUNCTION webhook_event_payload(raw_body bytea, payload jsonb) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(payload, convert_from(CASE WHEN substring(raw_body FROM 1 FOR 3) = '\xefbbbf'::bytea THEN substring(raw_body FROM 4) ELSE raw_body END, 'UTF8')::jsonb)
$$;
