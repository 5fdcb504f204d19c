// The cash product's signatures: request signing and delivery verification, against OpenSSL's answers and by property.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex, WebhookVerificationError } from '@paykit/runtime';
import { everythingShown, thrownBy } from '@paykit/test-basics/error-shown';
import { signCashRequest, verifyCashWebhook } from '../src/signing.ts';

const failure = (run: () => unknown) => thrownBy(run, WebhookVerificationError);

// Known answers computed with OpenSSL 3.0, never with this code:
//   printf '%s' '<data>' | openssl dgst -sha256 -hmac '<key>'
// (the shell passes the UTF-8 bytes of the text through unchanged).
const SECRET_TOKEN = '3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf02468';
const API_SECRET = 'k2GqkBn3yzfpXcQ1x5MZs8T0vYwRa7Ld';
const API_KEY = 'a'.repeat(32);
const PAID_BODY =
  '{"event":"webhook.paid.success","operation_id":42,"amount":150,"status":"paid","external_user_id":"Peña 💸"}';
const PAID_SIGNATURE = '2efb73b2e13c3afb9b946cc2803ae5af597967f825b098c2f1feeb225b7c98c1';
const ACTIVATION_BODY = '{"event":"webhook.activation","processed_at":"2026-05-07T18:00:00Z"}';
const ACTIVATION_SIGNATURE = '2c0d5f8c13ef3000b302cc72659a9abd5ceabffaffaa0641e36457e1a9ff1ffb';

const NOW = new Date('2026-05-07T18:00:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;

function flipHex(hex: string, position: number): string {
  const flipped = (parseInt(hex[position]!, 16) ^ 1).toString(16);
  return hex.slice(0, position) + flipped + hex.slice(position + 1);
}

describe('signCashRequest', () => {
  it('signs timestamp + "." + body with the api_secret (OpenSSL vectors)', () => {
    expect(
      signCashRequest({
        apiKey: API_KEY,
        apiSecret: 'secret',
        body: '{"endpoint_url":"https://x"}',
        timestampSeconds: 1715104800,
      }),
    ).toEqual({
      'X-Client-Id': API_KEY,
      'X-Timestamp': '1715104800',
      'X-Signature': 'b6feb679dccfef27fa9063b29ef297b233d8e057b4328da14d757c66a1da6e94',
    });
    const unicode = '{"amount":150,"external_user_id":"usuario-ñandú","type":"cash_in"}';
    const expected = '1db8ca105cae7a9723c5c100e32f4ad0c8ae33832853a8e8dc008acd5422da60';
    expect(
      signCashRequest({ apiKey: API_KEY, apiSecret: API_SECRET, body: unicode, timestampSeconds: 1778176800 })[
        'X-Signature'
      ],
    ).toBe(expected);
    expect(
      signCashRequest({
        apiKey: API_KEY,
        apiSecret: API_SECRET,
        body: Buffer.from(unicode),
        timestampSeconds: 1778176800,
      })['X-Signature'],
    ).toBe(expected);
    // A request without a body (a GET) signs "timestamp." alone.
    expect(
      signCashRequest({ apiKey: API_KEY, apiSecret: 'secret', body: '', timestampSeconds: 1778176800 })['X-Signature'],
    ).toBe('512650ed0aba13dde53ae7185896ad0f5dfeb91328ebfbefa45c2db9ad793a77');
  });

  it('refuses bad input without echoing the secret', () => {
    const base = { apiKey: API_KEY, apiSecret: API_SECRET, body: '{}', timestampSeconds: 1778176800 };
    for (const bad of [
      { ...base, timestampSeconds: 1778176800.5 },
      { ...base, timestampSeconds: 1778176800000 * 1e6 },
      { ...base, timestampSeconds: -1 },
      { ...base, body: { a: 1 } as unknown as string },
      { ...base, apiSecret: '' },
      { ...base, apiKey: '' },
    ]) {
      let thrown: Error | undefined;
      try {
        signCashRequest(bad);
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect(everythingShown(thrown!)).not.toContain(API_SECRET);
    }
    expect(() => signCashRequest({ ...base, timestampSeconds: Date.now() / 1000 + 0.5 })).toThrow(
      /whole Unix seconds \(Math.floor\(Date.now\(\) \/ 1000\)\)/,
    );
  });
});

describe('verifyCashWebhook', () => {
  const headers = { 'x-webhook-signature': PAID_SIGNATURE, 'x-webhook-timestamp': String(NOW_SECONDS) };

  it('accepts a delivery signed with the secret_token (OpenSSL vector)', () => {
    expect(verifyCashWebhook(PAID_BODY, headers, SECRET_TOKEN, { now: NOW })).toBeUndefined();
    expect(() =>
      verifyCashWebhook(ACTIVATION_BODY, { ...headers, 'x-webhook-signature': ACTIVATION_SIGNATURE }, SECRET_TOKEN, {
        now: NOW,
      }),
    ).not.toThrow();
  });

  it('verifies the exact bytes: a string body is its UTF-8', () => {
    expect(() => verifyCashWebhook(Buffer.from(PAID_BODY, 'utf8'), headers, SECRET_TOKEN, { now: NOW })).not.toThrow();
    expect(() =>
      verifyCashWebhook(new TextEncoder().encode(PAID_BODY), headers, SECRET_TOKEN, { now: NOW }),
    ).not.toThrow();
    // Re-serialised JSON is not the delivery: same data, other bytes.
    const reserialised = JSON.stringify(JSON.parse(PAID_BODY), null, 1);
    expect(failure(() => verifyCashWebhook(reserialised, headers, SECRET_TOKEN, { now: NOW })).reason).toBe('mismatch');
    // Latin-1 bytes of the same text are other bytes too.
    expect(
      failure(() => verifyCashWebhook(Buffer.from(PAID_BODY, 'latin1'), headers, SECRET_TOKEN, { now: NOW })).reason,
    ).toBe('mismatch');
  });

  it('finds headers whatever their case, in Headers, plain objects and arrays of values', () => {
    const mixed = { 'X-Webhook-Signature': PAID_SIGNATURE.toUpperCase(), 'X-WEBHOOK-TIMESTAMP': [String(NOW_SECONDS)] };
    expect(() => verifyCashWebhook(PAID_BODY, mixed, SECRET_TOKEN, { now: NOW })).not.toThrow();
    const fetchHeaders = new Headers({
      'X-Webhook-Signature': PAID_SIGNATURE,
      'X-Webhook-Timestamp': String(NOW_SECONDS),
    });
    expect(() => verifyCashWebhook(PAID_BODY, fetchHeaders, SECRET_TOKEN, { now: NOW })).not.toThrow();
    const repeated = {
      'x-webhook-signature': [PAID_SIGNATURE, PAID_SIGNATURE],
      'x-webhook-timestamp': String(NOW_SECONDS),
    };
    expect(() => verifyCashWebhook(PAID_BODY, repeated, SECRET_TOKEN, { now: NOW })).not.toThrow();
  });

  it('says which header is missing', () => {
    const missingSignature = failure(() =>
      verifyCashWebhook(PAID_BODY, { 'x-webhook-timestamp': String(NOW_SECONDS) }, SECRET_TOKEN, { now: NOW }),
    );
    expect(missingSignature.reason).toBe('missing-header');
    expect(missingSignature.message).toMatch(/the X-Webhook-Signature header is missing/);
    const missingTimestamp = failure(() =>
      verifyCashWebhook(
        PAID_BODY,
        { 'x-webhook-signature': PAID_SIGNATURE, 'x-webhook-timestamp': undefined },
        SECRET_TOKEN,
        { now: NOW },
      ),
    );
    expect(missingTimestamp.reason).toBe('missing-header');
    expect(missingTimestamp.message).toMatch(/X-Webhook-Timestamp/);
    expect(
      failure(() => verifyCashWebhook(PAID_BODY, { ...headers, 'x-webhook-signature': [] }, SECRET_TOKEN, { now: NOW }))
        .reason,
    ).toBe('missing-header');
    expect(failure(() => verifyCashWebhook(PAID_BODY, new Headers(), SECRET_TOKEN, { now: NOW })).reason).toBe(
      'missing-header',
    );
  });

  it('rejects malformed headers', () => {
    const cases: Record<string, string | string[]>[] = [
      { ...headers, 'x-webhook-signature': 'sha256=' + PAID_SIGNATURE },
      { ...headers, 'x-webhook-signature': PAID_SIGNATURE.slice(1) },
      { ...headers, 'x-webhook-signature': PAID_SIGNATURE.replace(/.$/, 'g') },
      { ...headers, 'x-webhook-timestamp': '1778176800.5' },
      { ...headers, 'x-webhook-timestamp': '2026-05-07T18:00:00Z' },
      { ...headers, 'x-webhook-signature': [PAID_SIGNATURE, ACTIVATION_SIGNATURE] },
    ];
    for (const bad of cases)
      expect(failure(() => verifyCashWebhook(PAID_BODY, bad, SECRET_TOKEN, { now: NOW })).reason).toBe('malformed');
    // Two headers of the same name in another case, with different values, are ambiguous too.
    expect(
      failure(() =>
        verifyCashWebhook(PAID_BODY, { ...headers, 'X-Webhook-Signature': ACTIVATION_SIGNATURE }, SECRET_TOKEN, {
          now: NOW,
        }),
      ).reason,
    ).toBe('malformed');
  });

  it('rejects a signature made with another secret or over another body, without echoing the secret or the expected signature', () => {
    const otherSecret = failure(() =>
      verifyCashWebhook(PAID_BODY, headers, SECRET_TOKEN.replace(/^3/, '4'), { now: NOW }),
    );
    expect(otherSecret.reason).toBe('mismatch');
    expect(otherSecret.message).toMatch(
      /does not match the body: check that the secret_token is the one returned for this webhook/,
    );
    const otherBody = failure(() => verifyCashWebhook(ACTIVATION_BODY, headers, SECRET_TOKEN, { now: NOW }));
    expect(otherBody.reason).toBe('mismatch');
    const shown = everythingShown(otherBody);
    expect(shown).not.toContain(SECRET_TOKEN);
    expect(shown).not.toContain(ACTIVATION_SIGNATURE);
    expect(shown).not.toContain(PAID_SIGNATURE);
  });

  it('checks the timestamp against now (default tolerance 300 s, both directions)', () => {
    const at = (seconds: number) => ({ ...headers, 'x-webhook-timestamp': String(NOW_SECONDS + seconds) });
    expect(() => verifyCashWebhook(PAID_BODY, at(-300), SECRET_TOKEN, { now: NOW })).not.toThrow();
    expect(() => verifyCashWebhook(PAID_BODY, at(300), SECRET_TOKEN, { now: NOW })).not.toThrow();
    const old = failure(() => verifyCashWebhook(PAID_BODY, at(-301), SECRET_TOKEN, { now: NOW }));
    expect(old.reason).toBe('stale');
    expect(old.message).toMatch(
      /X-Webhook-Timestamp is 301 s away from now \(tolerance 300 s\).*pass options.now = the time it was received/,
    );
    expect(failure(() => verifyCashWebhook(PAID_BODY, at(301), SECRET_TOKEN, { now: NOW })).reason).toBe('stale');
    expect(() =>
      verifyCashWebhook(PAID_BODY, at(-3600), SECRET_TOKEN, { now: NOW, toleranceSeconds: 3600 }),
    ).not.toThrow();
    expect(
      failure(() => verifyCashWebhook(PAID_BODY, at(-1), SECRET_TOKEN, { now: NOW, toleranceSeconds: 0 })).reason,
    ).toBe('stale');
  });

  it('uses the current time when no now is given', () => {
    const fresh = {
      'x-webhook-signature': PAID_SIGNATURE,
      'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    };
    expect(() => verifyCashWebhook(PAID_BODY, fresh, SECRET_TOKEN)).not.toThrow();
    expect(failure(() => verifyCashWebhook(PAID_BODY, headers, SECRET_TOKEN, { toleranceSeconds: 60 })).reason).toBe(
      'stale',
    );
  });

  it('treats a missing secret or a parsed body as a programming error', () => {
    expect(() => verifyCashWebhook(PAID_BODY, headers, '', { now: NOW })).toThrow(
      /pass the secret_token returned when the cash webhook was created/,
    );
    expect(() => verifyCashWebhook(JSON.parse(PAID_BODY) as string, headers, SECRET_TOKEN, { now: NOW })).toThrow(
      /raw request body .* not the parsed JSON/,
    );
    expect(() => verifyCashWebhook(PAID_BODY, headers, SECRET_TOKEN, { now: NOW, toleranceSeconds: -1 })).toThrow(
      TypeError,
    );
  });
});

describe('cash signing properties', () => {
  const secret = fc.stringMatching(/^[0-9a-f]{64}$/);
  const body = fc.oneof(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 512 }));
  const bytesOf = (value: string | Uint8Array) =>
    typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
  const skew = fc.integer({ min: -300, max: 300 });

  it('sign then verify succeeds', () => {
    fc.assert(
      fc.property(body, secret, skew, (payload, token, offset) => {
        const signed = {
          'X-Webhook-Signature': hmacSha256Hex(token, payload),
          'X-Webhook-Timestamp': String(NOW_SECONDS + offset),
        };
        verifyCashWebhook(payload, signed, token, { now: NOW });
        // The same bytes, handed over the other way (string ↔ bytes), verify too.
        verifyCashWebhook(bytesOf(payload), signed, token, { now: NOW });
      }),
    );
  });

  it('flipping any byte of the body fails', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        secret,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (payload, token, where, mask) => {
          const signed = {
            'X-Webhook-Signature': hmacSha256Hex(token, payload),
            'X-Webhook-Timestamp': String(NOW_SECONDS),
          };
          const altered = Buffer.from(payload);
          const position = where % altered.length;
          altered[position] = altered[position]! ^ mask;
          expect(failure(() => verifyCashWebhook(altered, signed, token, { now: NOW })).reason).toBe('mismatch');
        },
      ),
    );
  });

  it('flipping any character of the signature fails', () => {
    fc.assert(
      fc.property(body, secret, fc.nat(63), (payload, token, position) => {
        const signature = flipHex(hmacSha256Hex(token, payload), position);
        const signed = { 'X-Webhook-Signature': signature, 'X-Webhook-Timestamp': String(NOW_SECONDS) };
        expect(failure(() => verifyCashWebhook(payload, signed, token, { now: NOW })).reason).toBe('mismatch');
      }),
    );
  });

  it('a cash request signature is the HMAC of "timestamp." followed by the body bytes', () => {
    fc.assert(
      fc.property(
        body,
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (payload, apiSecret, timestampSeconds) => {
          const headers = signCashRequest({ apiKey: API_KEY, apiSecret, body: payload, timestampSeconds });
          expect(headers['X-Timestamp']).toBe(String(timestampSeconds));
          expect(headers['X-Signature']).toBe(
            hmacSha256Hex(apiSecret, Buffer.concat([Buffer.from(`${timestampSeconds}.`), bytesOf(payload)])),
          );
          expect(headers['X-Signature']).toMatch(/^[0-9a-f]{64}$/);
        },
      ),
    );
  });
});
