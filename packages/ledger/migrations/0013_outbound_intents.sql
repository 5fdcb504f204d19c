-- Write-ahead recording of outbound money: the request of every transfer (penny validation,
-- money_out, internal_transaction) is written here before it is sent, with the Idempotency-Key it
-- carries, and the platform's transaction is attached once it answers. An intent without a
-- transaction is a transfer whose answer never reached the ledger: it may or may not have moved
-- money, and only replaying the same request with the same key (or an exact link from the
-- platform's events) tells which.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.

CREATE TABLE ledger_outbound_intents (
  id                      text          PRIMARY KEY,
  operation               text          NOT NULL CHECK (operation IN ('money_out', 'internal_transaction', 'penny_validation')),
  -- NULL for internal_transaction: the platform does not honour a key there.
  idempotency_key         text,
  client_id               text          NOT NULL,
  amount                  numeric(18,2) NOT NULL CHECK (amount > 0),
  currency                text          NOT NULL DEFAULT 'MXN',
  source_instrument       text          NOT NULL,
  destination_instrument  text          NOT NULL,
  external_reference      text,
  description             text,
  -- The body exactly as sent: a replay must send the same payload, or the key is a 409.
  request                 jsonb         NOT NULL,
  -- Who sent it: a person (the OS user of the CLI) or a service.
  actor                   text          NOT NULL,
  created_at              timestamptz   NOT NULL,
  -- The latest attempt with this key; attempts counts them (a rerun of the same command reuses the intent).
  sent_at                 timestamptz   NOT NULL,
  previous_sent_at        timestamptz,
  attempts                integer       NOT NULL DEFAULT 1 CHECK (attempts >= 1),
  transaction_id          text,
  attached_at             timestamptz,
  -- answer: the platform's answer to a request of this intent; event: a fact the platform sent that names it exactly.
  attached_by             text          CHECK (attached_by IN ('answer', 'event')),
  attach_evidence         jsonb,
  -- The platform answered an error that creates nothing (a 4xx): nothing moved.
  failed_at               timestamptz,
  failure                 text,
  CHECK ((transaction_id IS NULL) = (attached_at IS NULL))
);
CREATE INDEX ledger_outbound_intents_key ON ledger_outbound_intents (idempotency_key, created_at);
CREATE INDEX ledger_outbound_intents_tx ON ledger_outbound_intents (transaction_id) WHERE transaction_id IS NOT NULL;
CREATE INDEX ledger_outbound_intents_open ON ledger_outbound_intents (created_at) WHERE transaction_id IS NULL AND failed_at IS NULL;
