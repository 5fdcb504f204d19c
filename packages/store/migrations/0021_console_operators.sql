-- The finance console's named operators (apps/console, `paykit operators`): who may log in, with
-- which role, and a password kept only as its scrypt hash (packages/store src/operators.ts). A
-- `viewer` reads and exports; an `operator` also acts (retries parked events, releases held money).
-- `credential` changes whenever the password is reset or the operator is disabled: a login made
-- under another credential is no longer one, so a reset or a disable ends the operator's logins on
-- every replica at the next request. Operators are disabled, never deleted: the audit trail names them.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
CREATE TABLE console_operators (
  name          text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9._-]{0,63}$'),
  role          text NOT NULL CHECK (role IN ('viewer', 'operator')),
  password_hash text NOT NULL,
  status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  credential    integer NOT NULL DEFAULT 1,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
