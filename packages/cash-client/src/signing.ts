// The cash product's signatures: each request is signed with the api_secret (X-Client-Id,
// X-Timestamp, X-Signature over timestamp + "." + body), and each webhook delivery carries
// X-Webhook-Signature, an HMAC of the raw payload keyed with the webhook's secret_token. The HMAC,
// the constant-time comparison and the strict header reading are the runtime's, shared by every
// product; no error built here ever contains a secret or the signature we expected.
import {
  WebhookVerificationError,
  constantTimeEqual,
  hmacSha256Hex,
  singleHeader,
  type HeaderSource,
} from '@paykit/runtime';
import { createHmac } from 'node:crypto';

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
  if (typeof apiKey !== 'string' || apiKey === '')
    throw new TypeError('signCashRequest: apiKey is missing: pass the cash api_key (sent as X-Client-Id)');
  if (typeof apiSecret !== 'string' || apiSecret === '')
    throw new TypeError('signCashRequest: apiSecret is missing: pass the cash api_secret');
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(
      'signCashRequest: body must be the exact string or bytes sent (JSON.stringify it once and send that same string; "" when there is none)',
    );
  }
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError(
      `signCashRequest: timestampSeconds must be whole Unix seconds (Math.floor(Date.now() / 1000)), got ${String(timestampSeconds)}`,
    );
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
    throw new TypeError(
      'verifyCashWebhook: secretToken is missing: pass the secret_token returned when the cash webhook was created',
    );
  }
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      'verifyCashWebhook: pass the raw request body (a string or bytes) exactly as received, not the parsed JSON',
    );
  }
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  if (typeof toleranceSeconds !== 'number' || Number.isNaN(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('verifyCashWebhook: toleranceSeconds must be a number of seconds, 0 or more');
  }
  const now = options.now ?? new Date();
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new TypeError('verifyCashWebhook: options.now must be a valid Date');

  const signature = singleHeader(headers, 'X-Webhook-Signature');
  const timestamp = singleHeader(headers, 'X-Webhook-Timestamp');
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) {
    throw new WebhookVerificationError(
      'malformed',
      'X-Webhook-Signature is not 64 hexadecimal characters (a hex HMAC-SHA256): the request did not come from the platform, or a proxy changed it',
    );
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError(
      'malformed',
      'X-Webhook-Timestamp is not a Unix time in whole seconds: the request did not come from the platform, or a proxy changed it',
    );
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
