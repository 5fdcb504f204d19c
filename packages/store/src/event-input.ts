// A NewEvent checked and turned into column values before it joins a batch: one malformed event
// must be refused on its own, with the field named, instead of failing the commit of its neighbours.
import type { AccountGuard, DriftNote, EventSource, NewEvent, Outcome } from './events.ts';
import { StoreInputError } from './errors.ts';
import { isUtf8 } from 'node:buffer';
import { isJsonbReady, toJsonbText } from './jsonb-text.ts';

export const SOURCES: readonly EventSource[] = ['core', 'cash', 'direct_debit'];
export const OUTCOMES: readonly Outcome[] = ['accepted', 'rejected', 'flagged', 'stored'];

/** Column values, in the forms the batch insert sends (a JSON document and the bodies, see event-batch.ts). */
export interface PreparedEvent {
  source: EventSource;
  eventType: string;
  dedupeKey: string;
  idMsg: string | null;
  transactionId: string | null;
  operationId: string | null;
  /** The exact bytes received (a view of the caller's, not a copy): sent as they are, in binary. */
  rawBody: Buffer;
  /** Where the payload's JSON text starts in rawBody (past a byte order mark) when the database reads the payload from the body; else null. */
  payloadAt: number | null;
  /** The payload as JSON text jsonb takes, when it is not read from the body; else null. */
  payloadJson: string | null;
  /** Checked: names to strings. Sent as a JSON object (the batch document is made jsonb-safe as a whole). */
  headers: Record<string, string>;
  receivedAtIso: string;
  /** Checked: notes of four strings. */
  drift: DriftNote[];
  outcome: Outcome;
  reason: string | null;
  answerStatus: number;
  refundReason: string | null;
  /** The account guard (NewEvent.accountGuard): the CLABE, or null for none. */
  guardClabe: string | null;
  /** The account row's version the decision read; null: there was no such account. */
  guardVersion: string | null;
}

export function prepareEvent(event: NewEvent): PreparedEvent {
  if (typeof event !== 'object' || event === null) throw new StoreInputError('append takes a NewEvent object');
  if (!(event.rawBody instanceof Uint8Array))
    throw new StoreInputError('rawBody must be the exact bytes received, as a Uint8Array (a Buffer is one)');
  const raw = Buffer.from(event.rawBody.buffer, event.rawBody.byteOffset, event.rawBody.byteLength);
  return {
    source: oneOf('source', event.source, SOURCES),
    eventType: text('eventType', event.eventType, { required: true }),
    dedupeKey: dedupeKey(event.dedupeKey),
    idMsg: nullableText('idMsg', event.idMsg),
    transactionId: nullableText('transactionId', event.transactionId),
    operationId: nullableText('operationId', event.operationId),
    rawBody: raw,
    ...('payload' in event && event.payload !== undefined
      ? { payloadAt: null, payloadJson: toJsonbText(event.payload, 'payload') }
      : payloadFromRaw(raw)),
    headers: checkHeaders(event.headers),
    receivedAtIso: timestamp('receivedAt', event.receivedAt),
    drift: checkDrift(event.drift, 'drift'),
    outcome: oneOf('outcome', event.outcome, OUTCOMES),
    reason: nullableText('reason', event.reason),
    answerStatus: httpStatus('answerStatus', event.answerStatus),
    refundReason: nullableText('refundReason', event.refundReason),
    ...accountGuard(event.accountGuard),
  };
}

/** The guard's columns; StoreInputError for one that is not { clabe, version }. */
function accountGuard(guard: AccountGuard | undefined): Pick<PreparedEvent, 'guardClabe' | 'guardVersion'> {
  if (guard === undefined) return { guardClabe: null, guardVersion: null };
  if (typeof guard !== 'object' || guard === null)
    throw new StoreInputError('accountGuard must be { clabe, version } (or left out)');
  // xmin as text: a whole number. Anything else could never match, and the event would be decided again forever.
  if (guard.version !== null && (typeof guard.version !== 'string' || !/^\d{1,10}$/.test(guard.version))) {
    throw new StoreInputError(
      "accountGuard.version must be the account's version as read (Account.version), or null when there was no such account",
    );
  }
  return { guardClabe: text('accountGuard.clabe', guard.clabe), guardVersion: guard.version };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * An omitted payload is JSON.parse(rawBody). Usually the database reads it straight from the bytes
 * (payloadAt) at the append and at every read, checked here without decoding them: UTF-8, no NUL
 * (which text cannot hold), no escape jsonb refuses, not nested too deep. Otherwise it is the jsonb
 * text toJsonbText makes of it, stored beside the body.
 * A byte order mark is no part of the JSON (RFC 8259 lets a parser ignore it; the raw body keeps it).
 */
function payloadFromRaw(raw: Buffer): Pick<PreparedEvent, 'payloadAt' | 'payloadJson'> {
  if (!isUtf8(raw) || raw.includes(0))
    throw new StoreInputError('payload is omitted but rawBody is not UTF-8 text: pass the parsed payload, or null');
  const at = raw.subarray(0, BOM.length).equals(BOM) ? BOM.length : 0;
  const json = raw.subarray(at);
  if (isBlank(json)) throw new StoreInputError('payload is omitted but rawBody is empty: pass the payload, or null');
  if (isJsonbReady(json)) return { payloadAt: at, payloadJson: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString('utf8'));
  } catch {
    throw new StoreInputError(
      'payload is omitted but rawBody is not JSON: omit payload only when it is JSON.parse(rawBody); otherwise pass it, or null',
    );
  }
  return { payloadAt: null, payloadJson: toJsonbText(parsed, 'payload') };
}

/** Nothing but JSON whitespace. */
function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d);
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
  if (value.includes('\0'))
    throw new StoreInputError(`${field} contains a NUL character, which PostgreSQL text cannot store: remove it`);
  // A lone surrogate (JSON.parse makes one of "\ud800") has no UTF-8 form: the database would store
  // U+FFFD in its place. Mending it here keeps the value we hold equal to the one stored, so the
  // batch finds its own dedupe key among the rows it wrote.
  return value.toWellFormed();
}

/** PostgreSQL's unique index holds keys up to about 2,700 bytes; a longer one would fail its whole batch. */
const MAX_KEY_BYTES = 1024;

function dedupeKey(value: unknown): string {
  const key = text('dedupeKey', value, { required: true });
  const bytes = Buffer.byteLength(key);
  if (bytes > MAX_KEY_BYTES)
    throw new StoreInputError(
      `dedupeKey is ${bytes} bytes long, more than the ${MAX_KEY_BYTES} the unique index takes: build it from the ids only`,
    );
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
    throw new StoreInputError(
      `${field} must be a valid Date, got ${value instanceof Date ? 'an Invalid Date' : describe(value)}`,
    );
  }
  // JavaScript dates reach years PostgreSQL cannot read back (toISOString writes "+275760-…").
  const year = value.getUTCFullYear();
  if (year < 1 || year > 9999)
    throw new StoreInputError(`${field} must fall in the years 1 to 9999, got the year ${year}`);
  return value.toISOString();
}

export function checkDrift(value: unknown, field: string): DriftNote[] {
  if (!Array.isArray(value))
    throw new StoreInputError(
      `${field} must be an array of drift notes ({ path, kind, expected, seen }), got ${describe(value)}`,
    );
  return value.map((note: unknown, index) => {
    if (typeof note !== 'object' || note === null)
      throw new StoreInputError(
        `${field}[${index}] must be a { path, kind, expected, seen } object, got ${describe(note)}`,
      );
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
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoreInputError(`headers must be an object of header name → value, got ${describe(value)}`);
  for (const [name, headerValue] of Object.entries(value)) {
    if (typeof headerValue !== 'string')
      throw new StoreInputError(
        `headers["${name}"] must be a string (join repeated headers with ", "), got ${describe(headerValue)}`,
      );
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
