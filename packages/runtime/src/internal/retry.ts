import { mayRepeat, retryRowFor } from '../core/retry-table.ts';

// When to repeat a request, and how long to wait. Only requests that are safe to repeat are
// retried: a POST without an Idempotency-Key may have been applied by the platform even when its
// answer was lost (a transfer sent twice is money lost), so it is never repeated automatically.

export interface RetryPolicy {
  /** Retries after the first attempt (so at most maxRetries + 1 attempts). */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 8000,
});

/** A policy with defaults filled in and nonsense (negative, NaN) rejected. */
export function retryPolicy(partial: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...stripUndefined(partial) };
  for (const key of ['maxRetries', 'baseDelayMs', 'maxDelayMs'] as const) {
    const value = policy[key];
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`retry.${key} must be a finite number ≥ 0 (got ${value}).`);
  }
  return { ...policy, maxRetries: Math.floor(policy.maxRetries) };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Retry-After as milliseconds: delta-seconds ("120", "1.5") or an HTTP date. Undefined when absent
 * or unreadable; never negative.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  // An HTTP date needs at least a year and a time; Date.parse alone accepts "1" and the like.
  if (!/\d{4}/.test(text) || !/\d{1,2}:\d{2}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt + 1` (`attempt` counts from 0: the wait after the first
 * failed attempt is `backoffDelay(0, …)`). Full jitter: a uniform integer in
 * [0, min(maxDelayMs, baseDelayMs · 2^attempt)]. A readable Retry-After wins, capped at
 * 4 · maxDelayMs so a server cannot park a client for an hour.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  retryAfter: string | null,
  random: () => number = Math.random,
): number {
  const fromServer = parseRetryAfter(retryAfter);
  if (fromServer !== undefined) return Math.min(fromServer, policy.maxDelayMs * 4);
  const exponent = Math.max(0, Math.floor(attempt));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(exponent, 52));
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.min(Math.floor(unit * (ceiling + 1)), Math.floor(ceiling));
}

/**
 * Whether a request may be sent again after an answer that is worth retrying, by the retry table
 * (src/core/retry-table.ts): idempotent methods yes; a POST only when the table says the platform dedupes
 * that operation (`product` and `operation` name it) and the request carries an Idempotency-Key.
 */
export function isSafeToRetry(request: Request, product = '', operation?: string): boolean {
  return isSafeToRepeat(request.method, request.headers, product, operation);
}

/** isSafeToRetry from a method and headers. */
export function isSafeToRepeat(method: string, headers: Headers, product = '', operation?: string): boolean {
  return mayRepeat(retryRowFor(product, operation, method), headers.get('idempotency-key') ?? undefined, {
    kind: 'answer',
  });
}

/** Retry on 429 and 5xx (network errors and timeouts are retried by the transport too). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}
