// Which requests may be sent again, as one table. A retry of a request that moves money is safe
// only when every attempt carries the same Idempotency-Key and the platform dedupes that
// operation by it; a POST the platform does not dedupe may have been applied even when its
// answer was lost, so it is repeated only when it certainly never left (a refused connection, a
// connect that timed out).

/**
 * - `idempotent-method`: GET, HEAD, OPTIONS, PUT, PATCH, DELETE: a repeat lands on the same state.
 * - `with-key`: a POST the platform dedupes by Idempotency-Key: retried only when the request
 *   carries one (the transport sends the same headers, so the same key, on every attempt).
 * - `never-after-sent`: any other POST, with or without a key: retried only when the request
 *   cannot have reached the server.
 */
export type RetryRule = 'idempotent-method' | 'with-key' | 'never-after-sent';

export interface RetryRow {
  rule: RetryRule;
  /** Why, in the platform's words where it has them. */
  why: string;
}

/**
 * Operations whose rule is not the one their method gives them, keyed `<product>.<operationId>`.
 * Only documented deduplication earns a row with `with-key`.
 */
export const RETRY_TABLE: Readonly<Record<string, RetryRow>> = Object.freeze({
  'core.createMoneyOut': {
    rule: 'with-key',
    why: 'money_out dedupes by Idempotency-Key (24 h from the first request; the first answer is replayed)',
  },
  'core.createPennyValidation': {
    rule: 'with-key',
    why: 'penny validation takes a deterministic Idempotency-Key (same request, same key; 409 for another payload)',
  },
  'core.createInternalTransaction': {
    rule: 'never-after-sent',
    why: 'internal_transaction is not documented to honour an Idempotency-Key: a repeat could move the money again',
  },
});

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT', 'PATCH']);

/** The row of one operation: the table's, or the one its method gives it. */
export function retryRowFor(product: string, operation: string | undefined, method: string): RetryRow {
  const listed = operation === undefined ? undefined : RETRY_TABLE[`${product}.${operation}`];
  if (listed) return listed;
  if (IDEMPOTENT_METHODS.has(method.toUpperCase()))
    return { rule: 'idempotent-method', why: `${method.toUpperCase()} is idempotent` };
  return {
    rule: 'never-after-sent',
    why: `a ${method.toUpperCase()} the platform does not dedupe may already have been applied`,
  };
}

/**
 * Failure codes that mean no byte of the request reached the server: the connection was refused,
 * the name did not resolve, or undici gave up connecting (UND_ERR_CONNECT_TIMEOUT: the TCP or TLS
 * handshake did not finish, so nothing was written).
 */
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

export interface AttemptOutcome {
  /** An HTTP answer came back (429 / 5xx are the retryable ones), or the attempt failed without one. */
  kind: 'answer' | 'failure';
  /** For a failure: the error code found on it or its causes (ECONNREFUSED…), if any. */
  code?: string;
}

/**
 * Whether the row allows another attempt after this outcome (retry budget and status checks are
 * the transport's). `idempotencyKey` is the key the request carries, if any.
 */
export function mayRepeat(row: RetryRow, idempotencyKey: string | undefined, outcome: AttemptOutcome): boolean {
  if (row.rule === 'idempotent-method') return true;
  if (row.rule === 'with-key' && idempotencyKey !== undefined && idempotencyKey.trim() !== '') return true;
  // Without dedupe, only a request that certainly never left may go again.
  return outcome.kind === 'failure' && outcome.code !== undefined && NEVER_SENT_CODES.has(outcome.code);
}

/** The first string `code` on an error or its causes. */
export function failureCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}
