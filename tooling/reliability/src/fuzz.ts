// Hostile input for the gateway and the sandbox, as fast-check arbitraries: bodies (random JSON,
// a valid event with one field of the wrong type or missing, huge strings and arrays, deep
// nesting, invalid UTF-8, not JSON, empty, over the limit), content types, credentials (right,
// wrong, missing, truncated, repeated) and odd extra headers; and the gateway's documented answer
// to each (apps/webhook-gateway/README.md, "Every delivery, in order"), so a scenario checks the
// exact 4xx rather than only "not 5xx".
import fc from 'fast-check';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, type CoreEventType } from '@paykit/contracts';
import { hmacSha256Hex } from '@paykit/runtime';
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import type { RawHeader } from './http.ts';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Valid events, as the platform sends them (ids drawn by fast-check, so a seed repeats a run).

const uuid = fc.uuid({ version: 4 });
const ACME_CLABE = '646180000000000012';
const PAYER_CLABE = '012180000045678907';

const envelope = (type: Exclude<CoreEventType, 'REPORT'>, body: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.record({ id_msg: uuid, msg_name: fc.constant(type), msg_date: fc.constant('2026-11-21'), body });

const CORE_BODIES: Record<Exclude<CoreEventType, 'REPORT'>, fc.Arbitrary<Json>> = {
  MONEY_IN: fc.record({
    id: uuid,
    beneficiary_account: fc.constant(ACME_CLABE),
    beneficiary_name: fc.constant('ACME PAGOS SA DE CV'),
    payer_account: fc.constant(PAYER_CLABE),
    payer_name: fc.constant('CLIENTE UNO'),
    payer_rfc: fc.constant('CUNO800101AB1'),
    payer_institution: fc.constant('40012'),
    amount: fc
      .integer({ min: 1, max: 99_999_999 })
      .map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`),
    transaction_date: fc.constant('2026-11-21 10:15:00'),
    tracking_key: fc.constant('EXT202611210000000001'),
    payment_concept: fc.constant('Factura 123'),
    numeric_reference: fc.constant('1234567'),
    sub_category: fc.constantFrom('SPEI_CREDIT', 'INT_CREDIT'),
    registered_at: fc.constant('2026-11-21T10:15:00-06:00'),
    owner_id: uuid,
  }),
  STATUS_UPDATE: fc.record({
    id: uuid,
    tracking_key: fc.constant('PK202611210000000001'),
    message_type: fc.constant('SPEI'),
    status: fc.constantFrom('IN_PROGRESS', 'LIQUIDATED', 'REJECTED'),
    update_at: fc.constant('2026-11-21T10:16:00-06:00'),
  }),
  CEP: fc.record({
    id: uuid,
    tracking_key: fc.constant('PK202611210000000002'),
    beneficiary_account: fc.constant(PAYER_CLABE),
    beneficiary_name: fc.constant('CLIENTE UNO'),
    beneficiary_rfc: fc.constant('CUNO800101AB1'),
    status: fc.constant('COMPLETED'),
    processed_at: fc.constant('2026-11-21T10:17:00-06:00'),
  }),
  REFUND: fc.record({
    id: uuid,
    tracking_key: fc.constant('RF202611210000000001'),
    amount: fc.constant('1500.00'),
    category: fc.constant('DEBIT_TRANS'),
    sub_category: fc.constant('SPEI_REFUNDED_DEBIT'),
    original_transaction_id: uuid,
    original_transaction_amount: fc.constant('1500.00'),
  }),
};

/** A valid event of a core type (REPORT is flat, the others enveloped). */
/** The inline charge of the direct debit charges page (packages/contracts/fixtures/documented). */
function documentedInlineCharge(): Record<string, unknown> {
  return documentedFixture('direct-debit/request.charges.create.inline.json').payload;
}

export function coreEvent(type: CoreEventType): fc.Arbitrary<Json> {
  if (type === 'REPORT') {
    return fc.record({
      client_id: fc.constant('11111111-1111-4111-8111-111111111111'),
      file_type: fc.constant('TRANSACTIONS'),
      period: fc.constant('DAILY'),
      file_name: uuid.map((id) => `TRANSACTIONS_DAILY_${id}.csv`),
      created_at: fc.constant('2026-11-21T00:05:00-06:00'),
    });
  }
  return envelope(type, CORE_BODIES[type]);
}

/** A valid cash event (paid, expired, reversed) or the activation request. */
export const cashEvent: fc.Arbitrary<Json> = fc.record({
  event: fc.constantFrom('webhook.paid.success', 'webhook.expired', 'webhook.reversed', 'webhook.activation'),
  operation_id: fc.integer({ min: 1, max: 2_000_000_000 }),
  external_user_id: fc.constant('user-1'),
  type: fc.constantFrom('cash_in', 'cash_out'),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
  reference: fc.constant('12345678901234567890'),
  status: fc.constantFrom('paid', 'expired', 'reversed'),
  processed_at: fc.constant('2026-11-21T10:20:00-06:00'),
});

// ---------------------------------------------------------------------------------------------
// Bodies.

export const BODY_FAMILIES = [
  'valid',
  'random-json',
  'random-object',
  'wrong-type',
  'missing-field',
  'huge-string',
  'huge-array',
  'deep',
  'invalid-utf8',
  'not-json',
  'empty',
  'oversize',
] as const;
export type BodyFamily = (typeof BODY_FAMILIES)[number];

export interface FuzzBody {
  family: BodyFamily;
  bytes: Buffer;
}

/** Every place in an object a value sits (objects are walked, arrays are leaves). */
export function fieldPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...fieldPaths(child, [...prefix, key])]);
}

/** A deep copy of `base` with the value at `path` replaced (or removed, for `undefined`). */
function withField(base: Json, path: readonly string[], value: unknown): Json {
  const copy = structuredClone(base);
  let parent: Json = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Json;
  const last = path.at(-1)!;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length]!;

/** A placeholder string replaced in the serialised JSON by raw text (a number JSON.stringify cannot write, deep nesting). */
const RAW = '\u0001raw\u0001';
const serialise = (value: unknown, raw?: string): Buffer => {
  const text = JSON.stringify(value);
  return Buffer.from(raw === undefined ? text : text.replace(JSON.stringify(RAW), raw), 'utf8');
};

/** Values of every other JSON type, and strings a store or a parser may choke on. */
const wrongValue: fc.Arbitrary<{ value: unknown; raw?: string }> = fc.oneof(
  fc
    .oneof(
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.string({ maxLength: 40 }),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    )
    .map((value) => ({ value })),
  fc
    .constantFrom(
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\udfff',
      '',
      ' ',
      '💸',
      '1e400',
      '-0',
      'NaN',
      '9'.repeat(40),
      '<script>',
      "'; DROP TABLE webhook_events; --",
    )
    .map((value) => ({ value })),
  fc
    .constantFrom('1e400', '-1e400', '-0', '123456789012345678901234567890', '0.0000000000000000000000001e-400', '1E+2')
    .map((raw) => ({ value: RAW, raw })),
);

const BAD_UTF8: readonly number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
];
const NOT_JSON = [
  'NaN',
  "{'a':1}",
  '{"a":1,}',
  'undefined',
  '{"a":01}',
  '[1,2',
  '"unterminated',
  '{"a"}',
  '\ufeff{}',
  '{"a":1}{"b":2}',
  'null null',
];

/** Bodies of one family, built around `base` (a valid event of the route), all but `oversize` within `limit` bytes. */
export function bodyOf(family: BodyFamily, base: fc.Arbitrary<Json>, limit: number): fc.Arbitrary<FuzzBody> {
  const room = limit - 4096;
  const made = (bytes: Buffer): FuzzBody => ({ family, bytes });
  const inField = <T>(extra: fc.Arbitrary<T>, build: (event: Json, path: string[], extra: T) => Buffer) =>
    fc.tuple(base, fc.nat(), extra).map(([event, index, more]) => {
      // An empty base (a GET's {}) gets the field it is given.
      const paths = fieldPaths(event);
      return made(build(event, paths.length > 0 ? pick(paths, index) : ['field'], more));
    });
  switch (family) {
    case 'valid':
      return base.map((event) => made(serialise(event)));
    case 'random-json':
      return fc.jsonValue({ maxDepth: 3 }).map((value) => made(serialise(value)));
    case 'random-object':
      // Random fields, sometimes beside the event's own name, so some get past the name check.
      return fc
        .tuple(
          base,
          fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 6 }),
          fc.boolean(),
        )
        .map(([event, fields, keep]) =>
          made(
            serialise(
              keep ? { ...fields, msg_name: event.msg_name, id_msg: event.id_msg, event: event.event } : fields,
            ),
          ),
        );
    case 'wrong-type':
      return inField(wrongValue, (event, path, { value, raw }) => serialise(withField(event, path, value), raw));
    case 'missing-field':
      return inField(fc.constant(undefined), (event, path) => serialise(withField(event, path, undefined)));
    case 'huge-string':
      return inField(
        fc.tuple(fc.integer({ min: 10_000, max: room }), fc.constantFrom('x', 'é', '€', '😀', '\\')),
        (event, path, [bytes, char]) =>
          serialise(withField(event, path, char.repeat(Math.floor(bytes / (2 * Buffer.byteLength(char)))))),
      );
    case 'huge-array':
      return inField(
        fc.tuple(
          fc.integer({ min: 1_000, max: Math.floor(room / 5) }),
          fc.constantFrom<unknown>(0, 'a', null, true, {}),
        ),
        (event, path, [length, item]) =>
          serialise(
            withField(
              event,
              path,
              Array.from({ length }, () => item),
            ),
          ),
      );
    case 'deep':
      return inField(
        fc.tuple(fc.integer({ min: 50, max: Math.floor(room / 6) }), fc.boolean(), fc.boolean()),
        (event, path, [depth, arrays, whole]) => {
          const nested = arrays
            ? '['.repeat(depth) + ']'.repeat(depth)
            : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
          return whole ? Buffer.from(nested) : serialise(withField(event, path, RAW), nested);
        },
      );
    case 'invalid-utf8':
      return inField(fc.constantFrom(...BAD_UTF8), (event, path, bad) => {
        const [before, after] = serialise(withField(event, path, RAW))
          .toString('utf8')
          .split(JSON.stringify(RAW));
        return Buffer.concat([Buffer.from(`${before}"a`), Buffer.from(bad), Buffer.from(`b"${after}`)]);
      });
    case 'not-json':
      return fc.oneof(
        fc.tuple(base, fc.nat()).map(([event, cut]) => {
          const text = JSON.stringify(event);
          return made(Buffer.from(text.slice(0, cut % text.length)));
        }),
        fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => made(Buffer.from(bytes))),
        fc.constantFrom(...NOT_JSON).map((text) => made(Buffer.from(text))),
      );
    case 'empty':
      return fc.constant(made(Buffer.alloc(0)));
    case 'oversize':
      return fc
        .integer({ min: limit + 1, max: limit + 65_536 })
        .map((size) => made(Buffer.from(`{"pad":"${'x'.repeat(size - 10)}"}`)));
  }
}

// ---------------------------------------------------------------------------------------------
// Headers: content types, credentials, odd extras.

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
const headerValue = fc.string({
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

// ---------------------------------------------------------------------------------------------
// The gateway's routes and its documented answers.

export type GatewayRoute =
  | { kind: 'core'; type: CoreEventType; method: 'POST'; path: string; noAuth: boolean }
  | { kind: 'cash'; method: 'POST'; path: string }
  | { kind: 'probe'; method: 'GET' | 'HEAD'; path: '/healthz' | '/readyz' | '/metrics' }
  | { kind: 'admin'; op: 'list' | 'get' | 'replay'; method: 'GET' | 'POST' }
  | { kind: 'unknown'; method: string; path: string };

export function gatewayRoutes(noAuthTypes: readonly CoreEventType[]): GatewayRoute[] {
  const core = (Object.keys(CORE_EVENT_PATHS) as CoreEventType[]).map(
    (type): GatewayRoute => ({
      kind: 'core',
      type,
      method: 'POST',
      path: CORE_EVENT_PATHS[type],
      noAuth: noAuthTypes.includes(type),
    }),
  );
  return [
    ...core,
    { kind: 'cash', method: 'POST', path: CASH_WEBHOOK_PATH },
    ...(['/healthz', '/readyz', '/metrics'] as const).flatMap((path): GatewayRoute[] => [
      { kind: 'probe', method: 'GET', path },
      { kind: 'probe', method: 'HEAD', path },
    ]),
    { kind: 'admin', op: 'list', method: 'GET' },
    { kind: 'admin', op: 'get', method: 'GET' },
    { kind: 'admin', op: 'replay', method: 'POST' },
    // Unknown paths, known paths with other methods, and encodings of known paths that match nothing.
    { kind: 'unknown', method: 'POST', path: '/webhooks/core/payout' },
    { kind: 'unknown', method: 'GET', path: CORE_EVENT_PATHS.MONEY_IN },
    { kind: 'unknown', method: 'PUT', path: CASH_WEBHOOK_PATH },
    { kind: 'unknown', method: 'DELETE', path: '/admin/events/1' },
    { kind: 'unknown', method: 'POST', path: '/healthz' },
    { kind: 'unknown', method: 'OPTIONS', path: '/webhooks/core/report' },
    { kind: 'unknown', method: 'PATCH', path: '/' },
    { kind: 'unknown', method: 'POST', path: '/webhooks/core/money-in/' },
    { kind: 'unknown', method: 'POST', path: '/webhooks%2Fcash' },
    { kind: 'unknown', method: 'GET', path: '/admin' },
    { kind: 'unknown', method: 'GET', path: `/${'a'.repeat(3000)}` },
  ];
}

export const routeName = (route: GatewayRoute): string =>
  route.kind === 'admin'
    ? `${route.method} admin ${route.op}`
    : `${route.method} ${route.path.length > 48 ? `${route.path.slice(0, 40)}…(${route.path.length} chars)` : route.path}`;

/** One answer the gateway may give: a status, and for its own 4xx the `error` code. */
export interface Allowed {
  status: number;
  error?: string;
}

export interface GatewayRequestFacts {
  route: GatewayRoute;
  credentials: Credentials | CashCredentials;
  contentType: ContentTypeCase;
  body: Buffer;
  extra: ExtraHeaders;
  bodyLimit: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as the gateway reads it (README step 2): not UTF-8, not JSON, or the JSON value. */
function readBody(bytes: Buffer): { kind: 'not-utf8' | 'not-json' } | { kind: 'json'; value: unknown } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: 'not-utf8' };
  }
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'not-json' };
  }
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Stored: 2xx, or 400 `unstorable` for what no PostgreSQL column holds (a NUL, nesting past 1,000 levels). */
const stored = (...statuses: number[]): Allowed[] => [
  ...statuses.map((status) => ({ status })),
  { status: 400, error: 'unstorable' },
];

/** What a core route documents for a body it has authenticated and read as JSON. */
function coreAnswer(type: CoreEventType, value: unknown): Allowed[] {
  if (!isObject(value)) return [{ status: 422, error: 'not_an_event' }];
  if (type === 'REPORT') {
    if (value.msg_name !== undefined || (value.body !== undefined && value.id_msg !== undefined))
      return [{ status: 422, error: 'wrong_event' }];
    return stored(200);
  }
  if (value.msg_name !== type) return [{ status: 422, error: 'wrong_event' }];
  // MONEY_IN: accepted (201 external, 200 internal), held (202) or refused by policy (422 with refundReason).
  return type === 'MONEY_IN' ? [...stored(200, 201, 202), { status: 422 }] : stored(200);
}

function cashAnswer(value: unknown): Allowed[] {
  if (!isObject(value)) return [{ status: 422, error: 'not_an_event' }];
  if (typeof value.event !== 'string' || value.event === '') return [{ status: 422, error: 'not_an_event' }];
  return stored(200);
}

/** README step 2: the content type, the size, then the bytes. */
function readDelivery(facts: GatewayRequestFacts, answer: (value: unknown) => Allowed[]): Allowed[] {
  if (!isJsonContentType(facts.contentType.values[0])) return [{ status: 415, error: 'unsupported_media_type' }];
  if (facts.body.length > facts.bodyLimit) return [{ status: 413, error: 'body_too_large' }];
  const read = readBody(facts.body);
  if (read.kind === 'json') return answer(read.value);
  return [{ status: 400, error: read.kind === 'not-utf8' ? 'invalid_utf8' : 'invalid_json' }];
}

/**
 * The answers apps/webhook-gateway/README.md documents for a request; node:http's own refusals
 * (a header over 16 KiB: 431; a control byte in a header or no Host: 400) come before any route.
 */
export function gatewayExpected(facts: GatewayRequestFacts): Allowed[] {
  if (facts.extra.kind === 'huge') return [{ status: 431 }];
  if (facts.extra.kind === 'control-byte' || facts.extra.kind === 'no-host') return [{ status: 400 }];
  const { route } = facts;
  switch (route.kind) {
    case 'core':
      if (!route.noAuth && !facts.credentials.accepted) return [{ status: 401, error: 'unauthorized' }];
      return readDelivery(facts, (value) => coreAnswer(route.type, value));
    case 'cash': {
      const credentials = facts.credentials as CashCredentials;
      if (!credentials.present) return [{ status: 401, error: 'unauthorized' }];
      // The signature is checked after the body is read (it covers the raw bytes).
      const beforeSignature = readDelivery(facts, () => []);
      if (beforeSignature.length > 0 && beforeSignature[0]!.status !== 400) return beforeSignature;
      if (!credentials.accepted) return [{ status: 401, error: 'unauthorized' }];
      return readDelivery(facts, cashAnswer);
    }
    case 'probe':
      return [{ status: 200 }];
    case 'admin':
      if (!facts.credentials.accepted) return [{ status: 401, error: 'unauthorized' }];
      if (route.op === 'list') return [{ status: 200 }, { status: 400, error: 'bad_request' }];
      if (route.op === 'get')
        return [{ status: 200 }, { status: 404, error: 'not_found' }, { status: 400, error: 'bad_request' }];
      return [
        { status: 200 },
        { status: 404, error: 'not_found' },
        { status: 400 },
        { status: 413, error: 'body_too_large' },
        { status: 415, error: 'unsupported_media_type' },
      ];
    case 'unknown':
      return [{ status: 404, error: 'not_found' }];
  }
}

/** Admin API targets: queries and seqs a client may send, odd ones included. */
const adminQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom('source', 'eventType', 'outcome', 'before', 'limit', 'x', 'limit[]', '__proto__'),
      fc.oneof(
        fc.constantFrom(
          'core',
          'cash',
          'MONEY_IN',
          'accepted',
          '1',
          '0',
          '-1',
          '1000',
          '1001',
          '99999999999999999999999',
          '%00',
          '%zz',
          '',
          'NaN',
          '1e3',
          '%E2%82%AC',
        ),
        fc.nat().map(String),
        headerValue.map(encodeURIComponent),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}`));

export const adminSeq: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 50 }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '9223372036854775807',
    '9223372036854775808',
    '99999999999999999999999',
    '%00',
    'abc',
    '%2e%2e',
    '1%20',
    '0x10',
  ),
);

/** `/admin/events` as sent: plainly, or percent-encoded in ways the router decodes to the same route. */
const adminEvents = fc.constantFrom('/admin/events', '/%61dmin/events', '/admin/%65vents', '/adm%69n/ev%65nts');

/** The path of an admin request: the list with a query, or one event (and its replay) by seq. */
export function adminPath(op: 'list' | 'get' | 'replay'): fc.Arbitrary<string> {
  if (op === 'list') return fc.tuple(adminEvents, adminQuery).map(([events, query]) => `${events}${query}`);
  return fc.tuple(adminEvents, adminSeq).map(([events, seq]) => `${events}/${seq}${op === 'replay' ? '/replay' : ''}`);
}

// ---------------------------------------------------------------------------------------------
// The sandbox: every product route and the control API, with each product's error shape.

export type SandboxProductName =
  | 'core'
  | 'direct-debit'
  | 'cash'
  | 'remittance'
  | 'billpay'
  | 'gift-cards'
  | 'lottery'
  | 'control';

/** The credentials a scenario read from the sandbox's seed (never printed). */
export interface SandboxCredentials {
  clientId: string;
  coreApiKey: string;
  coreToken: string;
  directDebitKey: string;
  cash: { apiKey: string; apiSecret: string };
  bearer: Record<'billpay' | 'gift-cards' | 'lottery', string>;
  /** The sandbox clock in Unix seconds (signed cash requests must be within its skew). */
  nowSeconds(): number;
}

export interface SandboxRoute {
  product: SandboxProductName;
  method: string;
  path: string;
  /** A valid body for the route (the base the body families mutate). */
  base: fc.Arbitrary<Json>;
  /** How the route authenticates: the header(s) for right credentials, for wrong ones, or none. */
  auth: 'core-token' | 'core-api-key' | 'dd-key' | 'cash-signed' | 'bearer' | 'none';
}

const empty = fc.constant<Json>({});
const CLIENT = '11111111-1111-4111-8111-111111111111';
const INSTRUMENT = '66666666-6666-4666-8666-000000000001';
const EXTERNAL_INSTRUMENT = '66666666-6666-4666-8666-000000000004';
const transfer = fc.record({
  client_id: fc.constant(CLIENT),
  source_instrument_id: fc.constant(INSTRUMENT),
  destination_instrument_id: fc.constant(EXTERNAL_INSTRUMENT),
  transaction_request: fc.record({
    amount: fc.constantFrom('1.00', '10.50'),
    currency: fc.constant('MXN'),
    description: fc.constant('Fuzz'),
  }),
});

/**
 * Every route of every product (specs/*.yaml and the sandbox's own) and of the control API.
 * Ids in paths are unknown ones: a mutation must not delete or block what the stack relies on.
 */
export function sandboxRoutes(): SandboxRoute[] {
  const client = `/core/v1/clients/${CLIENT}`;
  const unknownId = '9a9a9a9a-9a9a-4a9a-8a9a-000000000000';
  const core = (
    method: string,
    path: string,
    base: fc.Arbitrary<Json> = empty,
    auth: SandboxRoute['auth'] = 'core-token',
  ): SandboxRoute => ({ product: 'core', method, path, base, auth });
  const control = (method: string, path: string, base: fc.Arbitrary<Json> = empty): SandboxRoute => ({
    product: 'control',
    method,
    path: `/_sandbox${path}`,
    base,
    auth: 'none',
  });
  return [
    core('GET', `${client}/credentials`, empty, 'core-api-key'),
    core(
      'POST',
      `${client}/auth/credential-tokens`,
      fc.record({ client_id: fc.constant(CLIENT), client_secret: fc.constant('not-the-secret-000000') }),
      'core-api-key',
    ),
    core(
      'POST',
      `${client}/webhooks`,
      fc.record({
        client_id: fc.constant(CLIENT),
        url: fc.constant('https://hooks.example.com/x'),
        token: fc.constant('t'.repeat(40)),
        webhook_type: fc.constant('CEP'),
        auth_type: fc.constant('AUTH'),
      }),
    ),
    core('GET', `${client}/webhooks`),
    core('GET', `${client}/webhooks/${unknownId}`),
    core('PATCH', `${client}/webhooks/${unknownId}`, fc.record({ webhook_status: fc.constant('INACTIVE') })),
    core('DELETE', `${client}/webhooks/${unknownId}`),
    core(
      'POST',
      '/core/v1/transactions/penny_validation',
      fc.record({
        client_id: fc.constant(CLIENT),
        source_instrument_id: fc.constant(INSTRUMENT),
        destination_instrument_id: fc.constant(EXTERNAL_INSTRUMENT),
      }),
    ),
    core('POST', '/core/v1/transactions/money_out', transfer),
    core('POST', '/core/v1/transactions/internal_transaction', transfer),
    core('PUT', `${client}/accounts/${unknownId}/block`),
    core('PATCH', `${client}/accounts/${unknownId}/activate`),
    core('PUT', `${client}/accounts/${unknownId}/cancel`),
    core('POST', '/core/v1/no/such/route'),
    {
      product: 'direct-debit',
      method: 'POST',
      path: '/direct-debit/customers',
      base: fc.record({
        name: fc.constant('Ana López'),
        document_type: fc.constant('mx_rfc'),
        document_number: fc.constant('LOAA800101ABC'),
      }),
      auth: 'dd-key',
    },
    { product: 'direct-debit', method: 'GET', path: '/direct-debit/instruments?limit=5', base: empty, auth: 'dd-key' },
    // The documentation's own inline charge, so mutations reach the charge itself and not only the body's validation.
    {
      product: 'direct-debit',
      method: 'POST',
      path: '/direct-debit/charges',
      base: fc.constant(documentedInlineCharge()),
      auth: 'dd-key',
    },
    // A loopback port nothing listens on: an activation test that fails at once, never a host outside.
    {
      product: 'cash',
      method: 'POST',
      path: '/cash/api/v1/cash/webhooks',
      base: fc.record({ endpoint_url: fc.constant('http://127.0.0.1:9/cash') }),
      auth: 'cash-signed',
    },
    { product: 'cash', method: 'GET', path: '/cash/api/v1/cash/webhooks/active', base: empty, auth: 'cash-signed' },
    {
      product: 'cash',
      method: 'PATCH',
      path: '/cash/api/v1/cash/webhooks/999999',
      base: fc.record({ endpoint_url: fc.constant('http://127.0.0.1:9/cash') }),
      auth: 'cash-signed',
    },
    {
      product: 'remittance',
      method: 'POST',
      path: '/remittance/v2/remittances/receive',
      base: fc.record({
        partner_transaction_session_id: uuid,
        amount: fc.constant('3200.00'),
        currency: fc.constant('MXN'),
        reference: fc.constant('REM-1'),
      }),
      auth: 'none',
    },
    ...(['billpay', 'gift-cards', 'lottery'] as const).map(
      (product): SandboxRoute => ({
        product,
        method: 'GET',
        path: `/${product}/api/v1/client/account`,
        base: empty,
        auth: 'bearer',
      }),
    ),
    control('GET', '/seed'),
    control('POST', '/seed', empty),
    control('GET', '/clock'),
    control('POST', '/clock/advance', fc.record({ seconds: fc.integer({ min: 1, max: 60 }) })),
    control('POST', '/clock/set', fc.constant({ at: '2000-01-01T00:00:00Z' })),
    control('GET', '/faults'),
    control('GET', '/counters'),
    control('GET', '/deliveries?state=delivered'),
    control(
      'POST',
      '/core/incoming-spei',
      fc.record({ beneficiaryClabe: fc.constant(ACME_CLABE), amount: fc.constantFrom('1.00', '250.00') }),
    ),
    control('POST', `/core/transactions/${unknownId}/cep`, fc.record({ status: fc.constant('COMPLETED') })),
    control('POST', `/core/transactions/${unknownId}/settle`),
    control('POST', `/core/transactions/${unknownId}/reject`, fc.record({ status: fc.constant('REJECTED') })),
    control('POST', `/core/transactions/${unknownId}/reverse`),
    control('POST', '/core/reports', fc.record({ clientId: fc.constant(CLIENT) })),
    control('GET', '/core/reports/NO_SUCH_FILE.csv'),
    control(
      'POST',
      '/cash/operations',
      fc.record({
        type: fc.constantFrom('cash_in', 'cash_out'),
        amount: fc.integer({ min: 1, max: 10_000 }),
        externalUserId: fc.constant('user-1'),
      }),
    ),
    control('POST', '/cash/operations/999999/status', fc.record({ status: fc.constant('paid') })),
    control('DELETE', '/seed'),
    // Outside every product and the control API: the server's own 404.
    { product: 'control', method: 'POST', path: '/no/such/product', base: empty, auth: 'none' },
  ];
}

/** The route's authentication headers: right, wrong or missing credentials. */
export function sandboxAuthHeaders(
  route: SandboxRoute,
  variant: 'valid' | 'wrong' | 'missing',
  body: Buffer,
  creds: SandboxCredentials,
): RawHeader[] {
  if (variant === 'missing' || route.auth === 'none') return [];
  const wrong = variant === 'wrong';
  switch (route.auth) {
    case 'core-token':
      return [['Authorization', `Bearer ${wrong ? `${creds.coreToken.slice(0, -4)}AAAA` : creds.coreToken}`]];
    case 'core-api-key':
      return [['X-Api-Key', wrong ? 'pk_staging_not_a_key_00000000000' : creds.coreApiKey]];
    case 'dd-key':
      return [['X-Api-Key', wrong ? 'dd_not_a_key_000000000000000000' : creds.directDebitKey]];
    case 'bearer':
      return [
        ['Authorization', `Bearer ${wrong ? 'not-a-token-0000000000' : creds.bearer[route.product as 'billpay']}`],
      ];
    case 'cash-signed': {
      const timestamp = String(creds.nowSeconds());
      const signature = hmacSha256Hex(
        wrong ? 'not-the-secret-000000' : creds.cash.apiSecret,
        Buffer.concat([Buffer.from(`${timestamp}.`), body]),
      );
      return [
        ['X-Client-Id', creds.cash.apiKey],
        ['X-Timestamp', timestamp],
        ['X-Signature', signature],
      ];
    }
  }
}

/** The 4xx statuses the sandbox documents across its products (README, "Sandbox choices"). */
export const SANDBOX_4XX = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422, 431]);

/** Whether a 4xx body has the product's documented error shape. */
export function sandboxErrorShape(product: SandboxProductName, json: unknown): boolean {
  if (!isObject(json)) return false;
  switch (product) {
    case 'core':
      return typeof json.code === 'number' && typeof json.message === 'string' && Array.isArray(json.details);
    case 'direct-debit':
      return json.detail !== undefined;
    default:
      return typeof json.error === 'string';
  }
}
