import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { everythingShown, thrownBy } from '@paykit/test-basics/error-shown';
import { WebhookVerificationError } from '../src/core/errors.ts';
import { constantTimeEqual, hmacSha256Hex, verifyCoreWebhook } from '../src/core/signing.ts';

const failure = (run: () => unknown) => thrownBy(run, WebhookVerificationError);

// Known answers computed with OpenSSL 3.0, never with this code:
//   printf '%s' '<data>' | openssl dgst -sha256 -hmac '<key>'
// (the shell passes the UTF-8 bytes of the text through unchanged).
const SECRET_TOKEN = '3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf02468';
const PAID_BODY =
  '{"event":"webhook.paid.success","operation_id":42,"amount":150,"status":"paid","external_user_id":"Peña 💸"}';
const PAID_SIGNATURE = '2efb73b2e13c3afb9b946cc2803ae5af597967f825b098c2f1feeb225b7c98c1';
const ACTIVATION_BODY = '{"event":"webhook.activation","processed_at":"2026-05-07T18:00:00Z"}';
const ACTIVATION_SIGNATURE = '2c0d5f8c13ef3000b302cc72659a9abd5ceabffaffaa0641e36457e1a9ff1ffb';

describe('hmacSha256Hex (known answers from openssl dgst -sha256 -hmac)', () => {
  it('matches OpenSSL', () => {
    expect(hmacSha256Hex('secret', '1715104800.{"endpoint_url":"https://x"}')).toBe(
      'b6feb679dccfef27fa9063b29ef297b233d8e057b4328da14d757c66a1da6e94',
    );
    expect(hmacSha256Hex('key', 'The quick brown fox jumps over the lazy dog')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
    expect(hmacSha256Hex('key', '')).toBe('5d5d139563c95b5967b9bd9a8c9b233a9dedb45072794cd232dc1b74832607d0');
    expect(hmacSha256Hex(SECRET_TOKEN, PAID_BODY)).toBe(PAID_SIGNATURE);
    expect(hmacSha256Hex(SECRET_TOKEN, ACTIVATION_BODY)).toBe(ACTIVATION_SIGNATURE);
  });

  it('hashes strings as UTF-8, so bytes and text agree', () => {
    expect(hmacSha256Hex(Buffer.from(SECRET_TOKEN), Buffer.from(PAID_BODY, 'utf8'))).toBe(PAID_SIGNATURE);
    expect(hmacSha256Hex(SECRET_TOKEN, new TextEncoder().encode(PAID_BODY))).toBe(PAID_SIGNATURE);
  });
});

describe('verifyCoreWebhook', () => {
  const current = 'c'.repeat(20) + 'U2FsdGVkX1-8q9w7e6r5t4y3u2i1o0p';
  const next = 'n'.repeat(20) + 'Zm9vYmFyYmF6cXV4cXV1eHF1dXpxdXV4';
  const accepted = [current, next];

  it('returns the index of the matching token (two during a rotation)', () => {
    expect(verifyCoreWebhook({ authorization: `Bearer ${current}` }, accepted)).toBe(0);
    expect(verifyCoreWebhook({ Authorization: `Bearer ${next}` }, accepted)).toBe(1);
    expect(verifyCoreWebhook(new Headers({ Authorization: `bearer ${next}` }), accepted)).toBe(1);
    expect(verifyCoreWebhook({ AUTHORIZATION: [`Bearer ${current}`] }, [current])).toBe(0);
    expect(verifyCoreWebhook({ authorization: `Bearer ${current}` }, [current, current])).toBe(0);
  });

  it('names the failed check and never shows a token', () => {
    expect(failure(() => verifyCoreWebhook({}, accepted)).reason).toBe('missing-header');
    expect(failure(() => verifyCoreWebhook({ authorization: '' }, accepted)).reason).toBe('missing-header');
    expect(failure(() => verifyCoreWebhook({ authorization: `Basic ${current}` }, accepted)).reason).toBe('malformed');
    expect(failure(() => verifyCoreWebhook({ authorization: current }, accepted)).reason).toBe('malformed');
    expect(failure(() => verifyCoreWebhook({ authorization: 'Bearer ' }, accepted)).reason).toBe('malformed');
    const wrong = failure(() => verifyCoreWebhook({ authorization: `Bearer ${current}x` }, accepted));
    expect(wrong.reason).toBe('mismatch');
    expect(wrong.message).toMatch(/matches none of the accepted webhook tokens/);
    const shown = everythingShown(wrong);
    expect(shown).not.toContain(current);
    expect(shown).not.toContain(next);
    expect(failure(() => verifyCoreWebhook({ authorization: `Bearer ${current.slice(0, -1)}` }, accepted)).reason).toBe(
      'mismatch',
    );
  });

  it('needs at least one non-empty accepted token', () => {
    expect(() => verifyCoreWebhook({ authorization: 'Bearer x' }, [])).toThrow(/pass at least one accepted token/);
    expect(() => verifyCoreWebhook({ authorization: 'Bearer x' }, [''])).toThrow(/empty or not a string/);
  });
});

describe('constantTimeEqual', () => {
  it('compares strings and bytes', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual(Buffer.from('ñ'), 'ñ')).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 0]))).toBe(false);
    // Two different lone surrogates have the same UTF-8 replacement bytes; as strings they differ.
    expect(constantTimeEqual('\ud800', '\udc00')).toBe(false);
  });
});

describe('signing properties', () => {
  it('constantTimeEqual agrees with ===', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(fc.property(text, text, (a, b) => constantTimeEqual(a, b) === (a === b)));
    fc.assert(fc.property(text, (a) => constantTimeEqual(a, a) && !constantTimeEqual(a, `${a}\0`)));
    const hex = fc.stringMatching(/^[0-9a-f]{0,8}$/);
    fc.assert(fc.property(hex, hex, (a, b) => constantTimeEqual(a, b) === (a === b)));
    const bytes = fc.uint8Array({ maxLength: 8 });
    fc.assert(fc.property(bytes, bytes, (a, b) => constantTimeEqual(a, b) === Buffer.from(a).equals(Buffer.from(b))));
  });
});
