// Deterministic Idempotency-Keys: the same request gives the same key, so a retry (ours, or a
// user's second click after a crash) is recognised by the platform instead of moving money twice.
// key = UUID v5 (SHA-1, RFC 4122 §4.3) of canonicalJson([clientId, operation, body]) in a
// namespace per environment, so a sandbox request can never collide with a production one.
import { createHash } from 'node:crypto';

/**
 * Fixed namespaces, one per environment, generated once at random (Python's uuid.uuid4()) when this
 * module was written. They must never change: every key computed before would change with them, and
 * a retry after an upgrade would no longer be recognised as the same request.
 */
export const IDEMPOTENCY_NAMESPACES: Readonly<Record<'sandbox' | 'staging' | 'production', string>> = Object.freeze({
  sandbox: '7ec403da-ac46-4e7b-9c8a-e396ba2d02ce',
  staging: '22fb5527-66c6-4407-a1d2-8674716795fd',
  production: '8b4a32fe-98a8-4655-9338-04386b35772a',
});

/** Lowercase 8-4-4-4-12 hex with version 5 and the RFC 4122 variant. */
export const UUID_V5_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * JSON with object keys sorted (recursively, by UTF-16 code units, as Array#sort does) and no
 * whitespace. Otherwise it writes what JSON.stringify would send: `undefined` object members are
 * dropped (and become null inside arrays), toJSON is honoured (so a Date is its ISO string).
 * Throws instead of silently changing the payload: bigint, functions, symbols, NaN/Infinity,
 * Map/Set (JSON.stringify would write {}), and cycles.
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, '$', new Set());
  if (out === undefined)
    throw new TypeError(
      'canonicalJson: the value itself is undefined (or a function or symbol), which has no JSON form',
    );
  return out;
}

function write(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value))
        throw new TypeError(
          `canonicalJson: ${path} is ${value}, which JSON cannot represent (it would silently become null)`,
        );
      return JSON.stringify(value);
    case 'bigint':
      throw new TypeError(
        `canonicalJson: ${path} is a bigint, which JSON cannot represent: send amounts as decimal strings (fromCentavos)`,
      );
    case 'function':
    case 'symbol':
      throw new TypeError(`canonicalJson: ${path} is a ${typeof value}, which is not JSON data`);
  }
  const object = value as object;
  if ('toJSON' in object && typeof object.toJSON === 'function') {
    return write((object.toJSON as (key: string) => unknown).call(object, ''), path, ancestors);
  }
  if (object instanceof Map || object instanceof Set || object instanceof WeakMap || object instanceof WeakSet) {
    throw new TypeError(
      `canonicalJson: ${path} is a ${object.constructor.name}, which JSON.stringify would write as {}: convert it to an object or array first`,
    );
  }
  if (ancestors.has(object))
    throw new TypeError(
      `canonicalJson: ${path} refers back to one of its parents (a cycle), which JSON cannot represent`,
    );
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      return `[${object.map((item, index) => write(item, `${path}[${index}]`, ancestors) ?? 'null').join(',')}]`;
    }
    const members: string[] = [];
    for (const key of Object.keys(object).sort()) {
      const member = write((object as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
}

/** RFC 4122 §4.3 name-based UUID with SHA-1 (version 5), lowercase. The name is hashed as UTF-8. */
export function uuidV5(name: string, namespace: string): string {
  if (typeof name !== 'string') throw new TypeError(`uuidV5: the name is a string, got ${typeof name}`);
  if (typeof namespace !== 'string' || !UUID_PATTERN.test(namespace)) {
    throw new TypeError(
      'uuidV5: the namespace must be a UUID like "6ba7b810-9dad-11d1-80b4-00c04fd430c8" (for keys, use IDEMPOTENCY_NAMESPACES[environment])',
    );
  }
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50; // version 5
  hash[8] = (hash[8]! & 0x3f) | 0x80; // variant 10xx
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The Idempotency-Key of one request: uuidV5(canonicalJson([clientId, operation, body]), namespace).
 * The same client, operation and body (whatever its key order) always give the same key.
 */
export function idempotencyKey(
  input: { clientId: string; operation: string; body: unknown },
  namespace: string,
): string {
  if (typeof input.clientId !== 'string' || input.clientId === '')
    throw new TypeError('idempotencyKey: clientId must be the non-empty id of the client the request is made for');
  if (typeof input.operation !== 'string' || input.operation === '')
    throw new TypeError('idempotencyKey: operation must name the operation, such as "createPennyValidation"');
  return uuidV5(canonicalJson([input.clientId, input.operation, input.body]), namespace);
}

/**
 * The Idempotency-Key money_out's documentation describes: a UUID v5 of
 * `client_id + method + SHA-256(body)` (the body canonicalised with keys sorted at every level,
 * hashed as UTF-8, written as lowercase hex), under an environment-specific namespace the platform
 * does not publish (so it is configurable). `method` names the operation ("money_out"). The same
 * client, operation and body, whatever its key order, always give the same key.
 */
export function bodyHashIdempotencyKey(
  input: { clientId: string; method: string; body: unknown },
  namespace: string,
): string {
  if (typeof input.clientId !== 'string' || input.clientId === '')
    throw new TypeError(
      'bodyHashIdempotencyKey: clientId must be the non-empty id of the client the request is made for',
    );
  if (typeof input.method !== 'string' || input.method === '')
    throw new TypeError('bodyHashIdempotencyKey: method must name the operation, such as "money_out"');
  const bodyHash = createHash('sha256').update(canonicalJson(input.body), 'utf8').digest('hex');
  return uuidV5(`${input.clientId}${input.method}${bodyHash}`, namespace);
}
