-- The finance console's logins, kept in the database so that they survive a restart and every
-- replica of the console behind a load balancer reads the same ones (apps/console session-store.ts).
-- A row is keyed by the SHA-256 of the session id, never the id itself: whoever reads this table
-- cannot present a cookie from it. Logging out deletes the row, so every replica refuses the
-- cookie at once. The key that signs the session and CSRF cookies is generated once, here, by the
-- first console to start (console_keys), so replicas agree on it without a shared setting.
-- Released migrations are never edited (their checksum is recorded): change the schema in a new file.
CREATE TABLE console_sessions (
  id_hash    text PRIMARY KEY,
  data       jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_expires_at ON console_sessions (expires_at);

CREATE TABLE console_keys (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Failed console logins, shared by every replica: the lockout per client address, the delay per
-- operator and the console-wide ceiling per minute are counted here (apps/console login-guard.ts).
-- Rows older than the longest window (15 minutes) are deleted as logins are tried.
CREATE TABLE console_login_failures (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at       timestamptz NOT NULL,
  address  text NOT NULL,
  operator text NOT NULL
);
CREATE INDEX console_login_failures_at ON console_login_failures (at);
CREATE INDEX console_login_failures_address ON console_login_failures (address, at);
CREATE INDEX console_login_failures_operator ON console_login_failures (operator, at);

-- The console's audit trail: every login (right, wrong or refused), every logout and every action
-- (retrying parked events, releasing held money), with who, when, from where, what, and the outcome
-- (apps/console audit.ts). Never updated nor deleted by the console.
CREATE TABLE console_audit (
  id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at       timestamptz NOT NULL,
  operator text,
  address  text NOT NULL,
  action   text NOT NULL,
  target   text,
  outcome  text NOT NULL,
  detail   text
);
CREATE INDEX console_audit_at ON console_audit (at, id);
