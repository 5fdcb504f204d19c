-- The platform accounts the company knows, by CLABE: MONEY_IN decisions read them (an unknown,
-- blocked or cancelled beneficiary, or an amount over the account's limit, is refused).
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
CREATE TABLE accounts (
  clabe         text          PRIMARY KEY CHECK (clabe ~ '^[0-9]{18}$'),
  owner_id      text,
  status        text          NOT NULL CHECK (status IN ('ACTIVE', 'BLOCKED', 'CANCELLED')),
  -- MXN with two decimals; NULL means no limit.
  credit_limit  numeric(18,2) CHECK (credit_limit >= 0),
  updated_at    timestamptz   NOT NULL DEFAULT now()
);
