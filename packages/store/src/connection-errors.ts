// Which failures mean "the database is not there" (the caller answers 503 and the platform
// redelivers) and which are a statement's own fault (a constraint, bad data: retrying cannot help).
import { StoreUnavailableError } from './errors.ts';

/** SQLSTATE classes of lost connections, exhausted resources, shutdowns and server faults. */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);

/** Socket-level failures as Node reports them. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What pg and PGlite say, without a code, when the connection is gone or never came up. */
const UNAVAILABLE_MESSAGES =
  /query read timeout|connection terminated|timeout exceeded when trying to connect|connection error|not queryable|PGlite is closed|Cannot use a pool after calling end|server closed the connection|terminating connection/i;

/** The 5-character SQLSTATE of a PostgreSQL error (pg and PGlite both put it in `code`), if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True when the failure is about reaching the database rather than about the statement. */
export function isUnavailable(error: unknown): boolean {
  // Ours, already judged (a statement past its deadline, a closed database).
  if (error instanceof StoreUnavailableError) return true;
  const state = sqlState(error);
  if (state !== undefined) return UNAVAILABLE_CLASSES.has(state.slice(0, 2));
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  return error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * pg's client-side deadline (query_timeout) passed: the statement got no answer, as on a frozen
 * connection. Whether the server ran it is unknown (a COMMIT may still land).
 */
export function isQueryTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/** Rejected credentials, or a database that does not exist: configuration, not an outage. */
export function isConfigProblem(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && (state.startsWith('28') || state === '3D000');
}

/**
 * A statement's data broke a type, a constraint or a limit (SQLSTATE classes 22, 23 and 54, e.g. a
 * JSON nested past the server's stack depth): that row is wrong, not the database.
 */
export function isDataError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== undefined && ['22', '23', '54'].includes(state.slice(0, 2));
}

/** A deadlock or serialization failure: the same statement may well succeed when run again. */
export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40P01' || state === '40001';
}

/** The error's own message, for a sentence of ours; never a stack or its fields. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
