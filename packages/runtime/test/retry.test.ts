import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isRetryableStatus,
  isSafeToRetry,
  parseRetryAfter,
  retryPolicy,
} from '../src/internal/retry.ts';

describe('backoffDelay', () => {
  it('full jitter: an integer in [0, min(maxDelayMs, baseDelayMs · 2^attempt)] for any attempt and random', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 120_000 }),
        (attempt, r, baseDelayMs, maxDelayMs) => {
          const policy = { maxRetries: 2, baseDelayMs, maxDelayMs };
          const delay = backoffDelay(attempt, policy, null, () => r);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
        },
      ),
    );
  });

  it('covers the whole range: random 0 gives 0, random near 1 gives the ceiling', () => {
    const policy = DEFAULT_RETRY_POLICY;
    expect(backoffDelay(0, policy, null, () => 0)).toBe(0);
    expect(backoffDelay(0, policy, null, () => 0.999_999_9)).toBe(500);
    expect(backoffDelay(2, policy, null, () => 0.999_999_9)).toBe(2000);
    expect(backoffDelay(10, policy, null, () => 0.999_999_9)).toBe(8000);
    expect(backoffDelay(3, policy, null, () => 0.5)).toBe(2000);
    // a broken random source cannot push the delay out of range
    expect(backoffDelay(1, policy, null, () => 7)).toBe(1000);
    expect(backoffDelay(1, policy, null, () => Number.NaN)).toBe(0);
  });

  it('Retry-After wins when readable (seconds or HTTP date), capped at 4 × maxDelayMs', () => {
    const policy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 1000 };
    expect(backoffDelay(0, policy, '2', () => 0.9)).toBe(2000);
    expect(backoffDelay(0, policy, '0', () => 0.9)).toBe(0);
    expect(backoffDelay(0, policy, '1.5', () => 0.9)).toBe(1500);
    expect(backoffDelay(0, policy, '120', () => 0.9)).toBe(4000);
    expect(backoffDelay(0, policy, new Date(Date.now() - 60_000).toUTCString(), () => 0.9)).toBe(0);
    // unreadable: back to jitter
    expect(backoffDelay(0, policy, 'soon', () => 0.5)).toBe(250);
    expect(backoffDelay(0, policy, '-3', () => 0.5)).toBe(250);
  });

  it('parseRetryAfter reads delta-seconds and HTTP dates against a given now', () => {
    const now = Date.parse('2026-05-07T18:00:00Z');
    expect(parseRetryAfter('Thu, 07 May 2026 18:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter(' 7 ', now)).toBe(7000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter('May', now)).toBeUndefined();
  });
});

describe('which requests and answers are retried', () => {
  const request = (method: string, headers: Record<string, string> = {}): Request =>
    new Request('http://127.0.0.1/x', { method, headers });

  it('reads, deletes and the account lifecycle PUT/PATCH are safe to repeat; a POST only when the platform dedupes it and it carries a key', () => {
    expect(['GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT', 'PATCH'].map((m) => isSafeToRetry(request(m)))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    const key = { 'Idempotency-Key': '5b8f2c1e-7d3a-5e4f-9a0b-1c2d3e4f5a6b' };
    expect(isSafeToRetry(request('POST'))).toBe(false);
    expect(isSafeToRetry(request('POST', key))).toBe(false);
    expect(isSafeToRetry(request('POST', key), 'core', 'createMoneyOut')).toBe(true);
    expect(isSafeToRetry(request('POST', key), 'core', 'createInternalTransaction')).toBe(false);
    expect(isSafeToRetry(request('POST', { 'idempotency-key': '  ' }), 'core', 'createMoneyOut')).toBe(false);
  });

  it('retries 429 and 5xx only', () => {
    expect([429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 201, 204, 400, 401, 403, 404, 408, 409, 422, 600].some(isRetryableStatus)).toBe(false);
  });

  it('retryPolicy fills defaults (2 retries, 500 ms base, 8 s cap) and rejects nonsense', () => {
    expect(retryPolicy()).toEqual({ maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 });
    expect(retryPolicy({ maxRetries: 0, baseDelayMs: undefined })).toEqual({
      maxRetries: 0,
      baseDelayMs: 500,
      maxDelayMs: 8000,
    });
    expect(() => retryPolicy({ baseDelayMs: -1 })).toThrow(/baseDelayMs/);
    expect(() => retryPolicy({ maxDelayMs: Number.NaN })).toThrow(/maxDelayMs/);
  });
});
