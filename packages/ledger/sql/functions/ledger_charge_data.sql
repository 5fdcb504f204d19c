-- The object that carries a charge_result: data in the documented form {event, timestamp, data},
-- the payload itself in the older flat form {charge_id, charge_result, charge_reference}.
CREATE OR REPLACE FUNCTION ledger_charge_data(payload jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(payload->'data') = 'object' THEN payload->'data' ELSE payload END
$$;
