// One connection module for every app: PGlite in-process when DATABASE_URL is unset (nothing to
// install for a first run), a pg Pool when it is set. Both speak the same SQL and hand back the
// same JavaScript types (int8 and numeric as strings, timestamptz as Date, jsonb parsed, bytea as
// bytes), so code above this file never asks which one it has.
import { openPglite } from './pglite-database.ts';
import { openPostgres } from './postgres-database.ts';

export { StoreConfigError, StoreInputError, StoreUnavailableError } from './errors.ts';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface Queryable {
  /**
   * One statement with `$1…` parameters, or (without parameters) a script of several statements,
   * whose last result is returned. Connection failures reject with StoreUnavailableError; a
   * statement's own errors (syntax, constraints) reject with the driver's error and its SQLSTATE `code`.
   */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Where it is, safe to print: "PGlite at /abs/.data/pglite", "PGlite in memory", "PostgreSQL postgres@127.0.0.1:5432/paykit" — never a password. */
  readonly description: string;
  /**
   * BEGIN, `fn`, COMMIT (ROLLBACK when `fn` throws). Use only `tx` inside `fn`: PGlite has one
   * connection, so a query on the Database itself would wait for this transaction to end.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** SELECT 1 within timeoutMs, else rejects with StoreUnavailableError (for /readyz). */
  ping(timeoutMs: number): Promise<void>;
  /**
   * The connections as they are now: how many are open and in use, and for how long (for /readyz
   * and /healthz). Both kinds have it; optional so that a wrapper written for an older version still type-checks.
   */
  connections?(): ConnectionStats;
  /** Ends every connection (PGlite: flushes and releases its data directory). Safe to call twice. */
  close(): Promise<void>;
}

export interface ConnectionStats {
  /** Connections open (PGlite: 1). */
  open: number;
  /** Connections running a statement or a transaction now. */
  busy: number;
  /** Callers waiting for a free connection. */
  waiting: number;
  /** How long the longest-running busy connection has been in use, in ms (0 when none is). */
  longestBusyMs: number;
  /** Statements that got no answer within queryTimeoutMs since the database was opened. */
  timedOut: number;
  /** The client-side deadline of each statement (PGlite: none, 0). */
  queryTimeoutMs: number;
}

export interface DatabaseOptions {
  /** postgres://… → pg Pool. Unset → PGlite. */
  databaseUrl?: string;
  /** PGlite data directory (default `<cwd>/.data/pglite`, created if missing); 'memory://' for in-memory. */
  dataDir?: string;
  /** pg pool size (default 10). */
  poolSize?: number;
  /** pg: fail a connection attempt after this long (default 2000 ms) so callers see an outage fast. */
  connectTimeoutMs?: number;
  /**
   * pg: the client-side deadline of every statement, BEGIN and COMMIT included (default 10,000 ms;
   * also the server's statement_timeout). Past it the statement fails with StoreUnavailableError and
   * its connection is destroyed, with the idle ones: a frozen connection never answers, and the
   * server never sees a query lost on the way, so only the client can end the wait.
   */
  queryTimeoutMs?: number;
  /** pg: the server ends a transaction whose client went silent for this long (default 2 × queryTimeoutMs). */
  idleInTransactionTimeoutMs?: number;
}

/**
 * Opens the database and checks that it answers: a bad URL or data directory rejects with
 * StoreConfigError, a server that cannot be reached within connectTimeoutMs with StoreUnavailableError.
 */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl !== undefined) return openPostgres(options.databaseUrl, options);
  return openPglite(options.dataDir);
}

/** The statement deadline of withLongStatements: a migration may rewrite a whole table. */
export const LONG_STATEMENT_TIMEOUT_MS = 30 * 60_000;

/**
 * Runs `work` (migrations, say) on a PostgreSQL connection of its own whose statements may run for
 * 30 minutes, past the deadline meant for serving statements, then closes it. Without a
 * `databaseUrl` (PGlite, which has no deadline, or a database the caller opened itself) it runs on `db`.
 */
export async function withLongStatements<T>(
  db: Database,
  options: DatabaseOptions,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  if (options.databaseUrl === undefined || db.kind !== 'postgres') return work(db);
  const long = await openPostgres(options.databaseUrl, {
    ...options,
    poolSize: 1,
    queryTimeoutMs: LONG_STATEMENT_TIMEOUT_MS,
  });
  try {
    return await work(long);
  } finally {
    await long.close();
  }
}
