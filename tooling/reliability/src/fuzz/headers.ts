// Hostile headers: content types, credentials (right, wrong, missing, truncated, repeated) and
// odd extra headers.
import fc from 'fast-check';
import { hmacSha256Hex } from '@paykit/runtime';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import type { RawHeader } from '../http.ts';

/** Content types the gateway reads as JSON (its parser matches the media type, any case, any parameters). */
export const JSON_CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'Application/Json; Charset=UTF-8',
  'application/json;charset=utf-16',
] as const;
export const OTHER_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/jsonx',
  'application/vnd.api+json',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  ';;;',
  '',
] as const;

export interface ContentTypeCase {
  /** The Content-Type headers sent, in order (none, one, or two: node:http keeps the first). */
  values: string[];
}

export const contentTypes: fc.Arbitrary<ContentTypeCase> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom<string>(...JSON_CONTENT_TYPES).map((value): ContentTypeCase => ({ values: [value] })),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom<string>(...OTHER_CONTENT_TYPES).map((value): ContentTypeCase => ({ values: [value] })),
  },
  { weight: 2, arbitrary: fc.constant<ContentTypeCase>({ values: [] }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom<string>(...JSON_CONTENT_TYPES, ...OTHER_CONTENT_TYPES),
        fc.constantFrom<string>(...JSON_CONTENT_TYPES, ...OTHER_CONTENT_TYPES),
      )
      .map((values) => ({ values })),
  },
);

export const isJsonContentType = (value: string | undefined): boolean =>
  value !== undefined && value.split(';')[0]!.trim().toLowerCase() === 'application/json';

/**
 * A credential variant: the right one half the time (so bodies get past authentication and are
 * read), otherwise any of `variants`.
 */
export const credentialVariant = <T extends string>(valid: T, variants: readonly T[]): fc.Arbitrary<T> =>
  fc.oneof({ weight: 1, arbitrary: fc.constant(valid) }, { weight: 1, arbitrary: fc.constantFrom(...variants) });

/** Bearer-token variants: which the gateway accepts, and the headers carrying them. */
export const BEARER_VARIANTS = [
  'valid',
  'scheme-lower-case',
  'missing',
  'empty',
  'wrong',
  'truncated',
  'token-upper-case',
  'other-scheme',
  'no-scheme',
  'previous-rotation',
  'repeated-same',
  'repeated-different',
] as const;
export type BearerVariant = (typeof BEARER_VARIANTS)[number];

export interface Credentials {
  variant: string;
  headers: RawHeader[];
  /** Whether the gateway documents accepting them. */
  accepted: boolean;
}

/**
 * `token`: the one the gateway holds; `previous`: one it no longer holds. The auth scheme is
 * case-insensitive (RFC 7235 §2.1), so "bearer <token>" is accepted; the token itself is not.
 */
export function bearerCredentials(variant: BearerVariant, token: string, previous: string): Credentials {
  const one = (value: string, accepted: boolean): Credentials => ({
    variant,
    headers: [['Authorization', value]],
    accepted,
  });
  switch (variant) {
    case 'valid':
      return one(`Bearer ${token}`, true);
    case 'scheme-lower-case':
      return one(`bearer ${token}`, true);
    case 'missing':
      return { variant, headers: [], accepted: false };
    case 'empty':
      return one('', false);
    case 'wrong':
      return one(`Bearer ${'z'.repeat(token.length)}`, false);
    case 'truncated':
      return one(`Bearer ${token.slice(0, -1)}`, false);
    case 'token-upper-case':
      return one(`Bearer ${token.toUpperCase()}`, false);
    case 'other-scheme':
      return one(`Basic ${token}`, false);
    case 'no-scheme':
      return one(token, false);
    case 'previous-rotation':
      return one(`Bearer ${previous}`, false);
    case 'repeated-same':
      return {
        variant,
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['authorization', `Bearer ${token}`],
        ],
        accepted: true,
      };
    case 'repeated-different':
      return {
        variant,
        headers: [
          ['Authorization', `Bearer ${token}`],
          ['Authorization', `Bearer ${previous}`],
        ],
        accepted: false,
      };
  }
}

/** Cash signature variants over the exact bytes sent. */
export const CASH_VARIANTS = [
  'signed',
  'hex-upper-case',
  'repeated-same',
  'missing-signature',
  'missing-timestamp',
  'tampered',
  'truncated',
  'base64',
  'wrong-secret',
  'stale',
  'future',
  'timestamp-ms',
  'repeated-different',
] as const;
export type CashVariant = (typeof CASH_VARIANTS)[number];

export interface CashCredentials extends Credentials {
  /** Both signature headers are there (checked before the body is read: 401 otherwise). */
  present: boolean;
}

/**
 * X-Webhook-Signature is the hex HMAC-SHA256 of the raw body (hex: either case is the same
 * digest); X-Webhook-Timestamp must be within `toleranceSeconds` of `nowSeconds`.
 */
export function cashCredentials(
  variant: CashVariant,
  body: Uint8Array,
  options: { secret: string; nowSeconds: number; toleranceSeconds: number },
): CashCredentials {
  const signature = hmacSha256Hex(options.secret, body);
  const now = String(options.nowSeconds);
  const pair = (sig: string, ts: string, accepted: boolean): CashCredentials => ({
    variant,
    headers: [
      ['X-Webhook-Signature', sig],
      ['X-Webhook-Timestamp', ts],
    ],
    accepted,
    present: true,
  });
  const flipped = `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}`;
  switch (variant) {
    case 'signed':
      return pair(signature, now, true);
    case 'hex-upper-case':
      return pair(signature.toUpperCase(), now, true);
    case 'repeated-same':
      return {
        ...pair(signature, now, true),
        headers: [
          ['X-Webhook-Signature', signature],
          ['X-Webhook-Signature', signature],
          ['X-Webhook-Timestamp', now],
        ],
      };
    case 'missing-signature':
      return { variant, headers: [['X-Webhook-Timestamp', now]], accepted: false, present: false };
    case 'missing-timestamp':
      return { variant, headers: [['X-Webhook-Signature', signature]], accepted: false, present: false };
    case 'tampered':
      return pair(flipped, now, false);
    case 'truncated':
      return pair(signature.slice(0, 63), now, false);
    case 'base64':
      return pair(Buffer.from(signature, 'hex').toString('base64'), now, false);
    case 'wrong-secret':
      return pair(hmacSha256Hex(TEST_SECRETS.previousCoreWebhookToken, body), now, false);
    case 'stale':
      return pair(signature, String(options.nowSeconds - options.toleranceSeconds - 60), false);
    case 'future':
      return pair(signature, String(options.nowSeconds + options.toleranceSeconds + 60), false);
    case 'timestamp-ms':
      return pair(signature, String(options.nowSeconds * 1000), false);
    case 'repeated-different':
      return {
        ...pair(signature, now, false),
        headers: [
          ['X-Webhook-Signature', signature],
          ['X-Webhook-Signature', flipped],
          ['X-Webhook-Timestamp', now],
        ],
      };
  }
}

/** Extra headers a client may send: harmless ones, a huge one, one with a control byte, no Host. */
export interface ExtraHeaders {
  kind: 'none' | 'harmless' | 'huge' | 'control-byte' | 'no-host';
  headers: RawHeader[];
}

const HEADER_NAMES = [
  'X-Request-Id',
  'User-Agent',
  'Accept',
  'X-Forwarded-For',
  'Accept-Encoding',
  'X-Paykit-Auth',
  'Cookie',
  'Content-Encoding',
] as const;

/** Printable ASCII up to 200 characters: a header value, and (encoded) an admin query value. */
export const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
});

export const extraHeaders: fc.Arbitrary<ExtraHeaders> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<ExtraHeaders>({ kind: 'none', headers: [] }) },
  {
    weight: 5,
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValue), { minLength: 1, maxLength: 4 })
      .map((headers): ExtraHeaders => ({ kind: 'harmless', headers })),
  },
  // node:http refuses headers over 16 KiB in all with 431; sizes stay far from the edge.
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 20_000, max: 40_000 })
      .map((n): ExtraHeaders => ({ kind: 'huge', headers: [['X-Padding', 'p'.repeat(n)]] })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('\u0001', '\u007f', '\u0000')
      .map((c): ExtraHeaders => ({ kind: 'control-byte', headers: [['X-Odd', `a${c}b`]] })),
  },
  { weight: 1, arbitrary: fc.constant<ExtraHeaders>({ kind: 'no-host', headers: [] }) },
);
