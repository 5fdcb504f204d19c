-- The reconciliation ledger: what we sent (recorded when the API returned it), what we expect to
-- receive, and what the platform's events and reports say, each row linked to the stored event
-- it came from (event_seq → webhook_events.seq). Applying events is idempotent: every natural key
-- below is unique and inserts are ON CONFLICT DO NOTHING, and webhook_events.applied_at marks an
-- event applied in the same transaction that applied it.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

-- Claiming work: only unapplied events are read, oldest first.
CREATE INDEX webhook_events_unapplied ON webhook_events (seq) WHERE applied_at IS NULL;

-- How far a transaction status has moved. Terminal outcomes share a rank so a late sibling never
-- replaces the first one (the disagreement is reported instead); REFUNDED follows a settlement.
CREATE FUNCTION ledger_status_rank(status text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE status
    WHEN 'INITIALIZED' THEN 0 WHEN 'IN_PROGRESS' THEN 1
    WHEN 'LIQUIDATED' THEN 2 WHEN 'REJECTED' THEN 2 WHEN 'CANCELLED' THEN 2 WHEN 'DECLINED' THEN 2
    WHEN 'REFUNDED' THEN 3 ELSE NULL END::smallint
$$;

-- Mexico City has been UTC-6 all year since 2022; a day of the ledger is a Mexico City day.
CREATE FUNCTION ledger_day(at timestamptz) RETURNS date
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ((at - interval '6 hours') AT TIME ZONE 'UTC')::date $$;

-- Outbound transactions as the API returned them (money_out, internal_transaction, penny validation).
CREATE TABLE ledger_outbound (
  transaction_id      text          PRIMARY KEY,
  tracking_key        text,
  operation           text          NOT NULL CHECK (operation IN ('money_out', 'internal_transaction', 'penny_validation')),
  -- SPEI_DEBIT (leaves the platform) or INT_DEBIT (a platform account), as returned.
  sub_category        text,
  amount              numeric(18,2) NOT NULL CHECK (amount >= 0),
  source_account      text,
  destination_account text,
  -- Penny validation: whom we expect to own the destination account.
  expected_holder     text,
  expected_rfc        text,
  created_at          timestamptz   NOT NULL,
  recorded_at         timestamptz   NOT NULL DEFAULT now(),
  -- The furthest status the platform reported (STATUS_UPDATE), or the one the API returned.
  status              text          NOT NULL,
  status_rank         smallint      NOT NULL,
  status_reason       text,
  status_at           timestamptz,
  status_seq          bigint,
  -- Penny validation: the latest CEP result and the ownership decided from it.
  cep_status          text,
  cep_seq             bigint,
  ownership           text          CHECK (ownership IN ('verified', 'mismatch', 'inconclusive')),
  ownership_evidence  jsonb,
  response            jsonb         NOT NULL DEFAULT '{}'
);
CREATE INDEX ledger_outbound_tracking ON ledger_outbound (tracking_key);
CREATE INDEX ledger_outbound_day ON ledger_outbound (ledger_day(created_at));

-- Every STATUS_UPDATE, known transaction or not (an unknown one is an orphan until it is recorded).
CREATE TABLE ledger_status_history (
  event_seq          bigint      PRIMARY KEY,
  transaction_id     text        NOT NULL,
  tracking_key       text,
  status             text        NOT NULL,
  reason             text,
  reason_description text,
  updated_at         timestamptz,
  received_at        timestamptz NOT NULL
);
CREATE INDEX ledger_status_history_tx ON ledger_status_history (transaction_id);

-- Every CEP event of a penny validation.
CREATE TABLE ledger_cep_results (
  event_seq        bigint      PRIMARY KEY,
  transaction_id   text        NOT NULL,
  status           text        NOT NULL,
  beneficiary_name text,
  beneficiary_rfc  text,
  beneficiary_account text,
  processed_at     timestamptz,
  received_at      timestamptz NOT NULL
);
CREATE INDEX ledger_cep_results_tx ON ledger_cep_results (transaction_id);

-- Credits a team expects (registered through the API or the CLI), matched one-to-one to MONEY_IN.
CREATE TABLE ledger_receivables (
  id                  text          PRIMARY KEY,
  beneficiary_account text          NOT NULL CHECK (beneficiary_account ~ '^[0-9]{18}$'),
  amount              numeric(18,2) NOT NULL CHECK (amount > 0),
  reference           text          CHECK (reference ~ '^[0-9]{1,7}$'),
  concept             text,
  due_date            date          NOT NULL,
  created_at          timestamptz   NOT NULL DEFAULT now(),
  -- Set once, by the worker or at registration: a receivable is paid by one credit.
  credit_id           text          UNIQUE
);
CREATE INDEX ledger_receivables_open ON ledger_receivables (beneficiary_account) WHERE credit_id IS NULL;

-- Incoming credits (MONEY_IN SPEI_CREDIT and INT_CREDIT).
CREATE TABLE ledger_credits (
  transaction_id      text          PRIMARY KEY,
  event_seq           bigint        NOT NULL UNIQUE,
  sub_category        text          NOT NULL,
  beneficiary_account text          NOT NULL,
  payer_account       text,
  payer_name          text,
  amount              numeric(18,2) NOT NULL,
  tracking_key        text,
  numeric_reference   text,
  concept             text,
  owner_id            text,
  transaction_at      timestamptz   NOT NULL,
  -- The gateway's decision: accepted, rejected (422: the platform refunds it), flagged (held).
  gateway_outcome     text          NOT NULL
);
CREATE INDEX ledger_credits_tracking ON ledger_credits (tracking_key);
CREATE INDEX ledger_credits_day ON ledger_credits (ledger_day(transaction_at));

-- Refunds: a reversal of our own transfer (SPEI_REFUNDED_CREDIT) or a refund of a credit we received (SPEI_REFUNDED_DEBIT).
-- Which of the two it is, is decided when reading (the original may be recorded after the refund).
CREATE TABLE ledger_refunds (
  transaction_id          text          PRIMARY KEY,
  event_seq               bigint        NOT NULL UNIQUE,
  sub_category            text,
  original_transaction_id text          NOT NULL,
  original_tracking_key   text,
  amount                  numeric(18,2) NOT NULL,
  original_amount_stated  numeric(18,2),
  tracking_key            text,
  transaction_at          timestamptz   NOT NULL
);
CREATE INDEX ledger_refunds_original ON ledger_refunds (original_transaction_id);

-- REPORT events, and the file of each once imported.
CREATE TABLE ledger_reports (
  file_name   text        PRIMARY KEY,
  client_id   text,
  file_type   text,
  period      text,
  created_at  timestamptz,
  event_seq   bigint      UNIQUE,
  imported_at timestamptz,
  line_count  integer
);

CREATE TABLE ledger_report_lines (
  file_name        text          NOT NULL REFERENCES ledger_reports (file_name),
  line_no          integer       NOT NULL,
  transaction_id   text          NOT NULL,
  tracking_key     text,
  transaction_at   timestamptz   NOT NULL,
  sub_category     text          NOT NULL,
  amount           numeric(18,2) NOT NULL,
  status           text          NOT NULL,
  PRIMARY KEY (file_name, line_no)
);
CREATE INDEX ledger_report_lines_tx ON ledger_report_lines (transaction_id);

-- Events that could not be applied, with the reason. Claims skip them until a retry is asked
-- for (after a fix); applied, the row goes; refused again, it stays with the new reason.
CREATE TABLE ledger_parked_events (
  seq        bigint      PRIMARY KEY REFERENCES webhook_events (seq),
  reason     text        NOT NULL,
  parked_at  timestamptz NOT NULL DEFAULT now(),
  attempts   integer     NOT NULL DEFAULT 1,
  retry      boolean     NOT NULL DEFAULT false
);

-- Text that a timestamptz cast accepts without raising (a cast error would fail the whole batch).
CREATE FUNCTION ledger_is_offset_time(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT value ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,9})?)?(Z|z|[+-][0-9]{2}(:?[0-5][0-9])?)$'
     AND substr(value, 9, 2)::int <= CASE substr(value, 6, 2)::int WHEN 2 THEN 29 WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END
$$;

-- MONEY_IN and REFUND transaction_date: Mexico City local time without an offset.
CREATE FUNCTION ledger_is_local_time(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT value ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]) ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$'
     AND substr(value, 9, 2)::int <= CASE substr(value, 6, 2)::int WHEN 2 THEN 29 WHEN 4 THEN 30 WHEN 6 THEN 30 WHEN 9 THEN 30 WHEN 11 THEN 30 ELSE 31 END
$$;

CREATE FUNCTION ledger_is_amount(value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT value ~ '^[0-9]{1,16}\.[0-9]{2}$' $$;

-- Why an event cannot be applied, or NULL when it can: the first field at fault, named. The
-- reader is tolerant (extra fields are fine); only what the ledger needs is checked.
CREATE FUNCTION ledger_event_problem(event_type text, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(payload->'body') IS DISTINCT FROM 'object'
      THEN event_type || ': body is missing or not an object'
    WHEN event_type IN ('MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND') AND jsonb_typeof(payload->'body'->'id') IS DISTINCT FROM 'string'
      THEN event_type || ': body.id (the transaction id) is missing or not a string'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND NOT coalesce(ledger_is_amount(payload->'body'->>'amount'), false)
      THEN event_type || ': body.amount is missing or not a decimal string with two decimals'
    WHEN event_type IN ('MONEY_IN', 'REFUND') AND payload->'body' ? 'transaction_date' AND payload->'body'->>'transaction_date' IS NOT NULL
         AND NOT ledger_is_local_time(payload->'body'->>'transaction_date')
      THEN event_type || ': body.transaction_date is not "YYYY-MM-DD HH:MM:SS" (Mexico City time)'
    WHEN event_type = 'MONEY_IN' AND jsonb_typeof(payload->'body'->'beneficiary_account') IS DISTINCT FROM 'string'
      THEN 'MONEY_IN: body.beneficiary_account is missing or not a string'
    WHEN event_type = 'MONEY_IN' AND coalesce(payload->'body'->>'sub_category', '') NOT IN ('SPEI_CREDIT', 'INT_CREDIT')
      THEN 'MONEY_IN: body.sub_category must be SPEI_CREDIT or INT_CREDIT'
    WHEN event_type = 'STATUS_UPDATE' AND ledger_status_rank(payload->'body'->>'status') IS NULL
      THEN 'STATUS_UPDATE: body.status is missing or not a transaction status (INITIALIZED, IN_PROGRESS, LIQUIDATED, CANCELLED, REFUNDED, REJECTED, DECLINED)'
    WHEN event_type = 'STATUS_UPDATE' AND payload->'body'->>'update_at' IS NOT NULL AND NOT ledger_is_offset_time(payload->'body'->>'update_at')
      THEN 'STATUS_UPDATE: body.update_at is not an ISO 8601 time with an offset'
    WHEN event_type = 'CEP' AND coalesce(payload->'body'->>'status', '') NOT IN ('INITIALIZED', 'PENDING', 'DELAYED', 'COMPLETED', 'FAILED')
      THEN 'CEP: body.status is missing or not PENDING, DELAYED, COMPLETED or FAILED'
    WHEN event_type = 'CEP' AND payload->'body'->>'processed_at' IS NOT NULL AND NOT ledger_is_offset_time(payload->'body'->>'processed_at')
      THEN 'CEP: body.processed_at is not an ISO 8601 time with an offset'
    WHEN event_type = 'REFUND' AND jsonb_typeof(payload->'body'->'original_transaction_id') IS DISTINCT FROM 'string'
      THEN 'REFUND: body.original_transaction_id is missing or not a string'
    WHEN event_type = 'REFUND' AND payload->'body'->>'original_transaction_amount' IS NOT NULL
         AND NOT ledger_is_amount(payload->'body'->>'original_transaction_amount')
      THEN 'REFUND: body.original_transaction_amount is not a decimal string with two decimals'
    WHEN event_type = 'REPORT' AND jsonb_typeof(payload->'file_name') IS DISTINCT FROM 'string'
      THEN 'REPORT: file_name is missing or not a string'
    WHEN event_type = 'REPORT' AND payload->>'created_at' IS NOT NULL AND NOT ledger_is_offset_time(payload->>'created_at')
      THEN 'REPORT: created_at is not an ISO 8601 time with an offset'
    ELSE NULL
  END
$$;
