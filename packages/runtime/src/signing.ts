// HMAC signing of cash requests and verification of webhook deliveries (cash: HMAC of the raw
// payload; core: a bearer token registered with the webhook). Every comparison of a secret value is
// constant-time, and no error built here ever contains a secret or the signature we expected.
import { PaykitError } from './paykit-error.ts';
import { createHmac, hash, timingSafeEqual } from 'node:crypto';

export type WebhookVerificationReason = 'missing-header' | 'malformed' | 'mismatch' | 'stale';

export class WebhookVerificationError extends PaykitError {
  override readonly name = 'WebhookVerificationError';
  /** Which check failed: a header is absent, malformed, does not match, or is too old or too far ahead. */
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

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
 * The three headers of a signed cash request: X-Client-Id (the api_key), X-Timestamp (Unix seconds),
 * X-Signature = hex HMAC-SHA256(api_secret, timestamp + "." + body). Sign the exact bytes you send:
 * a string body is signed as UTF-8, so send that same string (or pass the bytes you will send).
 */
export function signCashRequest(input: {
  apiKey: string;
  apiSecret: string;
  body: string | Uint8Array;
  timestampSeconds: number;
}): Record<'X-Client-Id' | 'X-Timestamp' | 'X-Signature', string> {
  const { apiKey, apiSecret, body, timestampSeconds } = input;
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('signCashRequest: apiKey is missing: pass the cash api_key (sent as X-Client-Id)');
  if (typeof apiSecret !== 'string' || apiSecret === '') throw new TypeError('signCashRequest: apiSecret is missing: pass the cash api_secret');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError('signCashRequest: body must be the exact string or bytes sent (JSON.stringify it once and send that same string; "" when there is none)');
  }
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError(`signCashRequest: timestampSeconds must be whole Unix seconds (Math.floor(Date.now() / 1000)), got ${String(timestampSeconds)}`);
  }
  const timestamp = String(timestampSeconds);
  const signature = createHmac('sha256', apiSecret).update(`${timestamp}.`, 'utf8').update(body).digest('hex');
  return { 'X-Client-Id': apiKey, 'X-Timestamp': timestamp, 'X-Signature': signature };
}

/**
 * Verifies a cash webhook delivery: X-Webhook-Signature must be the hex HMAC-SHA256 of the raw body
 * keyed with the webhook's secret_token, and X-Webhook-Timestamp within `toleranceSeconds` (default
 * 300) of `now` (default: the current time; pass the time of receipt when verifying a queued
 * delivery later). Verify the bytes as received, before any JSON.parse: re-serialised JSON differs.
 * Throws WebhookVerificationError naming the failed check; never echoes the secret or the expected signature.
 */
export function verifyCashWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secretToken: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): void {
  if (typeof secretToken !== 'string' || secretToken === '') {
    throw new TypeError('verifyCashWebhook: secretToken is missing: pass the secret_token returned when the cash webhook was created');
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyCashWebhook: pass the raw request body (a string or bytes) exactly as received, not the parsed JSON');
  }
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (typeof toleranceSeconds !== 'number' || Number.isNaN(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('verifyCashWebhook: toleranceSeconds must be a number of seconds, 0 or more');
  }
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError('verifyCashWebhook: options.now must be a valid Date');

  const signature = singleHeader(headers, 'X-Webhook-Signature');
  const timestamp = singleHeader(headers, 'X-Webhook-Timestamp');
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) {
    throw new WebhookVerificationError('malformed', 'X-Webhook-Signature is not 64 hexadecimal characters (a hex HMAC-SHA256): the request did not come from the platform, or a proxy changed it');
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('malformed', 'X-Webhook-Timestamp is not a Unix time in whole seconds: the request did not come from the platform, or a proxy changed it');
  }
  const expected = hmacSha256Hex(secretToken, rawBody);
  if (!constantTimeEqual(expected, signature.toLowerCase())) {
    throw new WebhookVerificationError(
      'mismatch',
      'X-Webhook-Signature does not match the body: check that the secret_token is the one returned for this webhook (a new webhook has a new one), ' +
        'and that the raw body is verified byte for byte as received, before any parsing or re-encoding',
    );
  }
  const skewSeconds = Math.abs(now.getTime() - Number(timestamp) * 1000) / 1000;
  if (skewSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'stale',
      `X-Webhook-Timestamp is ${Math.round(skewSeconds)} s away from now (tolerance ${toleranceSeconds} s): a replayed or long-delayed delivery, or a wrong clock; ` +
        'when verifying a queued delivery, pass options.now = the time it was received',
    );
  }
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
    throw new TypeError('verifyCoreWebhook: pass at least one accepted token (the token registered with the webhook; two during a rotation)');
  }
  if (acceptedTokens.some((token) => typeof token !== 'string' || token === '')) {
    throw new TypeError('verifyCoreWebhook: an accepted token is empty or not a string: check the webhook token configuration');
  }
  const accepted = acceptedTokens.map((token) => digestOf(bytesOf(token, true)));
  return (headers) => {
    const authorization = singleHeader(headers, 'Authorization');
    const bearer = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!bearer) {
      throw new WebhookVerificationError('malformed', 'Authorization is not "Bearer <token>": check that the webhook was registered with auth_type AUTH');
    }
    const given = digestOf(bytesOf(bearer[1]!, true));
    let matched = -1;
    // Compare with every token, even after a match, so the time taken does not tell which one matched.
    accepted.forEach((digest, index) => {
      if (timingSafeEqual(given, digest) && matched < 0) matched = index;
    });
    if (matched < 0) {
      throw new WebhookVerificationError('mismatch', 'the bearer token matches none of the accepted webhook tokens: check the token registered with this webhook (and, during a rotation, that both tokens are accepted)');
    }
    return matched;
  };
}

/** One header's value, by case-insensitive name, from Headers or a plain object (values may be arrays, as in node:http). */
function singleHeader(headers: HeaderSource, name: string): string {
  const values = headerValues(headers, name.toLowerCase());
  const distinct = [...new Set(values.map((value) => value.trim()))];
  if (distinct.length === 0 || (distinct.length === 1 && distinct[0] === '')) {
    throw new WebhookVerificationError('missing-header', `the ${name} header is missing: the request did not come from the platform, or a proxy removed it`);
  }
  if (distinct.length > 1) throw new WebhookVerificationError('malformed', `the ${name} header appears ${distinct.length} times with different values: expected exactly one`);
  return distinct[0]!;
}

function headerValues(headers: HeaderSource, lowerName: string): string[] {
  if (headers === null || typeof headers !== 'object') throw new TypeError('expected the request headers (a Headers object or a plain object of header names to values)');
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
