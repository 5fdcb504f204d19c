-- Direct debit charges in the ledger: the charges we created (the direct debit API's answer to
-- POST /charges, recorded by the client's onChargeCreated hook) and the results the platform sends
-- (charge_result deliveries, source 'direct_debit'). Both are facts; the state of a charge is
-- computed when read from all of them, so the order they came in does not matter.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- A charge as the API returned it. The amount is read from the answer's JSON number as text
-- (100, 100.0, 250.5), never through a float.
CREATE TABLE ledger_dd_charges (
  charge_id   text          PRIMARY KEY,
  reference   text,
  amount      numeric(18,2) NOT NULL CHECK (amount >= 0),
  currency    text          NOT NULL,
  status      text,
  created_at  timestamptz   NOT NULL,
  recorded_at timestamptz   NOT NULL DEFAULT now(),
  response    jsonb         NOT NULL DEFAULT '{}'
);
CREATE INDEX ledger_dd_charges_day ON ledger_dd_charges (ledger_day(created_at));

-- One result per (charge, outcome): a resend with a new timestamp is the same fact. Of two copies
-- the earliest (by the platform's timestamp, then by seq) stands, whichever was applied first.
-- A declined or canceled after a confirmed is a chargeback (read in reconcile-items-sql.ts).
CREATE TABLE ledger_dd_results (
  charge_id   text          NOT NULL,
  outcome     text          NOT NULL CHECK (outcome IN ('confirmed', 'declined', 'canceled')),
  event_seq   bigint        NOT NULL UNIQUE,
  reference   text,
  -- Present only in forms that carry it; compared with the recorded charge's.
  amount      numeric(18,2),
  reason      text,
  result_at   timestamptz   NOT NULL,
  received_at timestamptz   NOT NULL,
  PRIMARY KEY (charge_id, outcome)
);

-- The object that carries a charge_result: data in the documented form {event, timestamp, data},
-- the payload itself in the older flat form {charge_id, charge_result, charge_reference}.
CREATE FUNCTION ledger_charge_data(payload jsonb) RETURNS jsonb
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(payload->'data') = 'object' THEN payload->'data' ELSE payload END
$$;

-- Why a charge_result cannot be applied, or NULL when it can.
CREATE FUNCTION ledger_charge_problem(payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN jsonb_typeof(payload) IS DISTINCT FROM 'object'
      THEN 'charge_result: the payload is not an object'
    WHEN ledger_id(ledger_charge_data(payload)->'charge_id') IS NULL
      THEN 'charge_result: data.charge_id (the charge id) is missing or not a string'
    WHEN lower(coalesce(ledger_charge_data(payload)->>'charge_result', '')) NOT IN ('confirmed', 'declined', 'canceled')
      THEN 'charge_result: data.charge_result is missing or not confirmed, declined or canceled'
    WHEN jsonb_typeof(ledger_charge_data(payload)->'amount') IN ('number', 'string')
         AND ledger_amount(ledger_charge_data(payload)->>'amount') IS NULL
      THEN 'charge_result: data.amount is not an amount of pesos with up to two decimals (such as 100 or 100.50)'
    ELSE NULL
  END
$$;
