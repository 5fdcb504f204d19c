// What verifying a webhook delivery takes, whatever the product: HMAC-SHA256, a constant-time
// comparison, one header read strictly, the error that names the failed check (errors.ts); and the core
// delivery check (a bearer token registered with the webhook; direct debit and the gateway's admin
// API use the same). No error built here ever contains a secret or the value we expected.
import { WebhookVerificationError } from './errors.ts';
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Hex HMAC-SHA256. Strings (key or data) are hashed as their UTF-8 bytes. */
export function hmacSha256Hex(key: string | Uint8Array, data: string | Uint8Array): string {
  return createHmac('sha256', key).update(data).digest('hex');
}

/**
 * Equal contents, compared in constant time. Both sides are first reduced to their SHA-256 digest,
 * so inputs of different lengths are compared like any others and the timing tells nothing about
 * where (or whether by length) they differ; equal digests mean equal inputs. Two strings are
 * compared as strings (their UTF-16 code units, so the answer is always that of ===); a string
 * against bytes is compared as its UTF-8 bytes. (Plain digests, not an HMAC under a secret key:
 * equality needs no key, and a keyed HMAC costs a key object on every call.)
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  return timingSafeEqual(digestOf(bytesOf(a, bothStrings)), digestOf(bytesOf(b, bothStrings)));
}

function digestOf(bytes: Uint8Array): Buffer {
  // The one-shot hash: no Hash object per call (a delivery's verification is on the gateway's hot path).
  return hash('sha256', bytes, 'buffer');
}

function bytesOf(value: string | Uint8Array, asUtf16: boolean): Uint8Array {
  if (typeof value === 'string') return Buffer.from(value, asUtf16 ? 'utf16le' : 'utf8');
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`expected a string or bytes, got ${typeof value}`);
}

/**
 * Verifies a core webhook delivery: `Authorization: Bearer <token>` compared in constant time with
 * every accepted token (several during a rotation). Returns the index of the token that matched.
 * A receiver that verifies many deliveries builds one verifier (createCoreWebhookVerifier) instead.
 */
export function verifyCoreWebhook(headers: HeaderSource, acceptedTokens: readonly string[]): number {
  return createCoreWebhookVerifier(acceptedTokens)(headers);
}

/**
 * verifyCoreWebhook for a fixed set of accepted tokens, digested once: each delivery then costs one
 * digest of the token it carries and one constant-time comparison per accepted token.
 */
export function createCoreWebhookVerifier(acceptedTokens: readonly string[]): (headers: HeaderSource) => number {
  if (!Array.isArray(acceptedTokens) || acceptedTokens.length === 0) {
    throw new TypeError(
      'verifyCoreWebhook: pass at least one accepted token (the token registered with the webhook; two during a rotation)',
    );
  }
  if (acceptedTokens.some((token) => typeof token !== 'string' || token === '')) {
    throw new TypeError(
      'verifyCoreWebhook: an accepted token is empty or not a string: check the webhook token configuration',
    );
  }
  const accepted = acceptedTokens.map((token) => digestOf(bytesOf(token, true)));
  return (headers) => {
    const authorization = singleHeader(headers, 'Authorization');
    const bearer = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!bearer) {
      throw new WebhookVerificationError(
        'malformed',
        'Authorization is not "Bearer <token>": check that the webhook was registered with auth_type AUTH',
      );
    }
    const given = digestOf(bytesOf(bearer[1]!, true));
    let matched = -1;
    // Compare with every token, even after a match, so the time taken does not tell which one matched.
    accepted.forEach((digest, index) => {
      if (timingSafeEqual(given, digest) && matched < 0) matched = index;
    });
    if (matched < 0) {
      throw new WebhookVerificationError(
        'mismatch',
        'the bearer token matches none of the accepted webhook tokens: check the token registered with this webhook (and, during a rotation, that both tokens are accepted)',
      );
    }
    return matched;
  };
}

/**
 * One header's value, by case-insensitive name, from Headers or a plain object (values may be arrays,
 * as in node:http). Throws WebhookVerificationError: 'missing-header' when absent or empty,
 * 'malformed' when it appears more than once with different values.
 */
export function singleHeader(headers: HeaderSource, name: string): string {
  const values = headerValues(headers, name.toLowerCase());
  const distinct = [...new Set(values.map((value) => value.trim()))];
  if (distinct.length === 0 || (distinct.length === 1 && distinct[0] === '')) {
    throw new WebhookVerificationError(
      'missing-header',
      `the ${name} header is missing: the request did not come from the platform, or a proxy removed it`,
    );
  }
  if (distinct.length > 1)
    throw new WebhookVerificationError(
      'malformed',
      `the ${name} header appears ${distinct.length} times with different values: expected exactly one`,
    );
  return distinct[0]!;
}

function headerValues(headers: HeaderSource, lowerName: string): string[] {
  if (headers === null || typeof headers !== 'object')
    throw new TypeError('expected the request headers (a Headers object or a plain object of header names to values)');
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    const value = (headers as Headers).get(lowerName);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== lowerName) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((item): item is string => typeof item === 'string'));
  }
  return values;
}
