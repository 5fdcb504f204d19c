// A NewEvent checked and turned into column values before it joins a batch: one malformed event
// must be refused on its own, with the field named, instead of failing the commit of its neighbours.
import type { DriftNote, EventSource, NewEvent, Outcome } from './events.ts';
import { StoreInputError } from './errors.ts';
import { isJsonbReady, toJsonbText } from './jsonb-text.ts';

export const SOURCES: readonly EventSource[] = ['core', 'cash'];
export const OUTCOMES: readonly Outcome[] = ['accepted', 'rejected', 'flagged', 'stored'];

/** Column values, in the text forms the batch insert sends. */
export interface PreparedEvent {
  source: EventSource;
  eventType: string;
  dedupeKey: string;
  idMsg: string | null;
  transactionId: string | null;
  operationId: string | null;
  /** rawBody as text when it is UTF-8 without NUL (sent once, as it is), else null. */
  rawText: string | null;
  /** rawBody in hex when it is not such text, else null. */
  rawBodyHex: string | null;
  /** null: the payload is read from rawText by the database. */
  payloadJson: string | null;
  headersJson: string;
  receivedAtIso: string;
  driftJson: string;
  outcome: Outcome;
  reason: string | null;
  answerStatus: number;
  refundReason: string | null;
}

export function prepareEvent(event: NewEvent): PreparedEvent {
  if (typeof event !== 'object' || event === null) throw new StoreInputError('append takes a NewEvent object');
  if (!(event.rawBody instanceof Uint8Array)) throw new StoreInputError('rawBody must be the exact bytes received, as a Uint8Array (a Buffer is one)');
  const raw = event.rawBody;
  const rawText = utf8Text(raw);
  return {
    source: oneOf('source', event.source, SOURCES),
    eventType: text('eventType', event.eventType, { required: true }),
    dedupeKey: dedupeKey(event.dedupeKey),
    idMsg: nullableText('idMsg', event.idMsg),
    transactionId: nullableText('transactionId', event.transactionId),
    operationId: nullableText('operationId', event.operationId),
    rawText,
    rawBodyHex: rawText === null ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('hex') : null,
    payloadJson: 'payload' in event && event.payload !== undefined ? toJsonbText(event.payload, 'payload') : payloadFromRaw(rawText),
    headersJson: toJsonbText(checkHeaders(event.headers), 'headers'),
    receivedAtIso: timestamp('receivedAt', event.receivedAt),
    driftJson: toJsonbText(checkDrift(event.drift, 'drift'), 'drift'),
    outcome: oneOf('outcome', event.outcome, OUTCOMES),
    reason: nullableText('reason', event.reason),
    answerStatus: httpStatus('answerStatus', event.answerStatus),
    refundReason: nullableText('refundReason', event.refundReason),
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, when they are UTF-8 and hold no NUL (which a text value cannot). */
function utf8Text(raw: Uint8Array): string | null {
  try {
    const text = utf8.decode(raw);
    return text.includes('\0') ? null : text;
  } catch {
    return null;
  }
}

/**
 * An omitted payload is JSON.parse(rawBody): null when the database can read the jsonb straight
 * from the text (the usual case), else the jsonb text toJsonbText makes of it.
 */
function payloadFromRaw(rawText: string | null): string | null {
  if (rawText === null) throw new StoreInputError('payload is omitted but rawBody is not UTF-8 text: pass the parsed payload, or null');
  if (rawText.trim() === '') throw new StoreInputError('payload is omitted but rawBody is empty: pass the payload, or null');
  if (isJsonbReady(rawText)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawText);
  } catch {
    throw new StoreInputError('payload is omitted but rawBody is not JSON: omit payload only when it is JSON.parse(rawBody); otherwise pass it, or null');
  }
  return toJsonbText(parsed, 'payload');
}

export function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  const seen = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : describe(value);
  throw new StoreInputError(`${field} must be one of ${allowed.map((item) => `'${item}'`).join(', ')}, got ${seen}`);
}

export function text(field: string, value: unknown, options: { required?: boolean } = {}): string {
  if (typeof value !== 'string') throw new StoreInputError(`${field} must be a string, got ${describe(value)}`);
  if (options.required && value === '') throw new StoreInputError(`${field} must not be empty`);
  // PostgreSQL text cannot hold NUL; refusing it here keeps it from failing a whole batch.
  if (value.includes('\0')) throw new StoreInputError(`${field} contains a NUL character, which PostgreSQL text cannot store: remove it`);
  return value;
}

/** PostgreSQL's unique index holds keys up to about 2,700 bytes; a longer one would fail its whole batch. */
const MAX_KEY_BYTES = 1024;

function dedupeKey(value: unknown): string {
  const key = text('dedupeKey', value, { required: true });
  const bytes = Buffer.byteLength(key);
  if (bytes > MAX_KEY_BYTES) throw new StoreInputError(`dedupeKey is ${bytes} bytes long, more than the ${MAX_KEY_BYTES} the unique index takes: build it from the ids only`);
  return key;
}

export function nullableText(field: string, value: unknown): string | null {
  return value === null ? null : text(field, value);
}

export function httpStatus(field: string, value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599) return value;
  throw new StoreInputError(`${field} must be an HTTP status (a whole number from 100 to 599), got ${describe(value)}`);
}

export function timestamp(field: string, value: unknown): string {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new StoreInputError(`${field} must be a valid Date, got ${value instanceof Date ? 'an Invalid Date' : describe(value)}`);
  }
  // JavaScript dates reach years PostgreSQL cannot read back (toISOString writes "+275760-…").
  const year = value.getUTCFullYear();
  if (year < 1 || year > 9999) throw new StoreInputError(`${field} must fall in the years 1 to 9999, got the year ${year}`);
  return value.toISOString();
}

export function checkDrift(value: unknown, field: string): DriftNote[] {
  if (!Array.isArray(value)) throw new StoreInputError(`${field} must be an array of drift notes ({ path, kind, expected, seen }), got ${describe(value)}`);
  return value.map((note: unknown, index) => {
    if (typeof note !== 'object' || note === null) throw new StoreInputError(`${field}[${index}] must be a { path, kind, expected, seen } object, got ${describe(note)}`);
    const { path, kind, expected, seen } = note as Record<string, unknown>;
    return {
      path: text(`${field}[${index}].path`, path),
      kind: text(`${field}[${index}].kind`, kind),
      expected: text(`${field}[${index}].expected`, expected),
      seen: text(`${field}[${index}].seen`, seen),
    };
  });
}

function checkHeaders(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StoreInputError(`headers must be an object of header name → value, got ${describe(value)}`);
  for (const [name, headerValue] of Object.entries(value)) {
    if (typeof headerValue !== 'string') throw new StoreInputError(`headers["${name}"] must be a string (join repeated headers with ", "), got ${describe(headerValue)}`);
  }
  return value as Record<string, string>;
}

/** Type and shape only: the values themselves may be personal data or secrets. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value === '' ? 'an empty string' : 'a string outside the allowed values';
  if (typeof value === 'number') return Number.isFinite(value) ? `the number ${value}` : String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}
