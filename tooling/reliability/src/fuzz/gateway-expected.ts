// The gateway's documented answer to each hostile request (apps/webhook-gateway/README.md, "Every
// delivery, in order"), so a scenario checks the exact 4xx rather than only "not 5xx".
import type { CoreEventType } from '@paykit/contracts';
import type { GatewayRoute } from './gateway-routes.ts';
import {
  isJsonContentType,
  type CashCredentials,
  type ContentTypeCase,
  type Credentials,
  type ExtraHeaders,
} from './headers.ts';
import { isObject } from './json.ts';

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
