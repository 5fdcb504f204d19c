// Redaction: what a log entry, an error or a CLI may show of headers and payloads. Names decide
// first (a secret header or field is redacted whatever it holds, a card number field shows its
// last 4 digits, a card security code is removed); values second (a bearer string or a JWT is
// redacted, a card number is masked, wherever it appears); known values third (the secrets a
// request carried are scrubbed from whatever the server echoed back).
import {
  isCardCodeField,
  isCardNumberDigits,
  isCardNumberField,
  looksLikeCardNumberValue,
  maskCardNumber,
  maskCardNumberValue,
  maskCardNumbersIn,
} from '@paykit/domain';

export const SECRET_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-signature',
  'x-client-id',
  'x-webhook-signature',
  'x-auth-token',
  'x-access-token',
  'cookie',
  'set-cookie',
];

export const SECRET_FIELDS: readonly string[] = [
  'client_secret',
  'token',
  'secret_token',
  'api_secret',
  'api_key',
  'auth_client_secret',
  'password',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
  'authorization',
  'signature',
  'private_key',
];

export const REDACTED = '[redacted]';

/** "client_secret", "clientSecret", "Client-Secret", "CLIENT.SECRET" all normalise to "clientsecret". */
function normalise(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

const SECRET_HEADER_SET = new Set(SECRET_HEADERS.map((h) => h.toLowerCase()));
const SECRET_FIELD_SET = new Set(SECRET_FIELDS.map(normalise));
// Names not in the lists but obviously secret: webhook_token, apiKey, x-secret, auth_password,
// secretKey, access_key, signingKey, credential, clientCredentials, passphrase, passcode, an
// encoded one (secretKeyBase64, signing_key_hex), a one-time code (otp, otp_code)…
const SECRET_NAME_PATTERN =
  /((secret|token|password|passwd|passphrase|passcode|apikey|privatekey|secretkey|accesskey|signingkey|signature|credentials?)(base64|b64|hex)?|(^|onetime)otp(code)?)$/;
// A PIN: pin, PIN, pin_code, pinNumber, card_pin, cardholder_pin, atmPin (not "shipping" or "opinion").
const PIN_PATTERN =
  /(^|card|cardholder|holder|atm|account|user|debit|credit|secret|security|transaction)pin(code|number|block)?$/;

/** Whether a header name carries a credential (case-insensitive). */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADER_SET.has(lower) || SECRET_NAME_PATTERN.test(normalise(lower));
}

/** Whether a JSON field name holds a secret (client_secret, token, apiKey, webhook_token, …). */
export function isSecretField(name: string): boolean {
  const n = normalise(name);
  return SECRET_FIELD_SET.has(n) || SECRET_NAME_PATTERN.test(n) || PIN_PATTERN.test(n);
}

const AUTH_SCHEME = /^(bearer|basic|token|digest|hmac)\s+\S/i;
const JWT = /^eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*$/;

/** Strings that are credentials whatever field they are in. */
function looksLikeCredential(value: string): boolean {
  return AUTH_SCHEME.test(value) || JWT.test(value);
}

function redactHeaderValue(value: string): string {
  const scheme = /^(\w+)\s+\S/.exec(value);
  return scheme && AUTH_SCHEME.test(value) ? `${scheme[1]} ${REDACTED}` : REDACTED;
}

/** Headers as a plain object with lower-case names; secret ones become "[redacted]" ("Bearer [redacted]"). */
export function redactHeaders(headers: Headers | Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const entries: Iterable<[string, string]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [rawName, value] of entries) {
    const name = rawName.toLowerCase();
    if (typeof value !== 'string') continue;
    out[name] =
      isSecretHeader(name) || looksLikeCredential(value) ? redactHeaderValue(value) : maskCardNumbersIn(value);
  }
  return out;
}

/**
 * A deep copy of a JSON-like value: secret fields (and credential-looking strings) replaced by
 * "[redacted]", card numbers (by field name, or by shape in any field: a string, grouped or not,
 * or a JSON number) masked to their last 4 digits, card security codes removed. The one redaction
 * of paykit: the clients' logs and errors, the CLI's output and the console's pages all use it.
 */
export function redactBody(body: unknown): unknown {
  return redactValue(body, new WeakSet(), 0, undefined);
}

function redactValue(value: unknown, seen: WeakSet<object>, depth: number, parent: string | undefined): unknown {
  if (typeof value === 'string') return looksLikeCredential(value) ? REDACTED : maskCardNumbersIn(value);
  if (typeof value === 'number') return maskCardNumberValue(value);
  if (typeof value === 'bigint') return isCardNumberDigits(value.toString()) ? maskCardNumber(value.toString()) : value;
  if (value === null || typeof value !== 'object') return value;
  // A Date, a URL, a Buffer: redacted as the JSON they are written as, not as their own (empty) keys.
  if (!Array.isArray(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function' && depth <= 64)
    return redactValue((value as { toJSON: () => unknown }).toJSON(), seen, depth + 1, parent);
  if (seen.has(value)) return '[circular]';
  if (depth > 64) return '[too deep]';
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    // Items of a list of cards are cards: the list's name is their holder's.
    out = value.map((item) => redactValue(item, seen, depth + 1, parent));
  } else {
    const copy: Record<string, unknown> = {};
    // A validation error item ({ loc: ['body', 'card_number'], input: '4111…' }): its `input` is
    // the value of the field `loc` names, and is redacted as that field would be.
    const echoedField = echoedFieldOf(value);
    for (const [key, item] of Object.entries(value)) {
      const field = key === 'input' && echoedField !== undefined ? echoedField : key;
      if (isCardCodeField(field, parent)) continue;
      // A card number used as a key is masked too (the value is redacted by the key as given).
      copy[maskCardNumbersIn(key)] = redactField(field, item, seen, depth);
    }
    out = copy;
  }
  seen.delete(value);
  return out;
}

function redactField(name: string, item: unknown, seen: WeakSet<object>, depth: number): unknown {
  if (item === null || item === undefined || item === '') return item;
  if (isSecretField(name)) return REDACTED;
  if (isCardNumberField(name) && (typeof item === 'string' || typeof item === 'number')) return maskCardNumber(item);
  return redactValue(item, seen, depth + 1, name);
}

/**
 * The fields of a structured log line (pino's merged object), redacted as a body is: the apps'
 * own logs mask what the clients' logs, their errors and the CLI mask. An Error stays an error
 * of its class, its message and stack scrubbed of card numbers and credentials, its other fields
 * redacted.
 */
export function redactLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (isCardCodeField(key)) continue;
    out[key] = value instanceof Error ? redactError(value) : redactField(key, value, new WeakSet(), 0);
  }
  return out;
}

// A copy of the same class (so a logger still names its type), message and stack scrubbed.
function redactError(error: Error): Error {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  Object.assign(copy, redactBody({ ...error }));
  copy.message = scrubSecrets(error.message);
  if (error.stack !== undefined) copy.stack = scrubSecrets(error.stack);
  return copy;
}

/** The field a validation error item is about (the last name in its `loc`), when it echoes an `input`. */
function echoedFieldOf(value: object): string | undefined {
  if (!('input' in value) || !('loc' in value) || !Array.isArray(value.loc)) return undefined;
  const names = (value.loc as unknown[]).filter((part): part is string => typeof part === 'string');
  return names[names.length - 1];
}

/** "abcd…wxyz": at most 4 characters of each end, and at most a quarter of the secret; "****" when short. */
export function maskSecret(secret: string): string {
  const shown = Math.min(4, Math.floor(secret.length / 8));
  if (shown === 0) return '****';
  return `${secret.slice(0, shown)}…${secret.slice(-shown)}`;
}

/** A URL for logs: query parameters with secret-looking names are redacted; user info is dropped. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  parsed.username = '';
  parsed.password = '';
  let changed = false;
  for (const name of [...parsed.searchParams.keys()]) {
    if (isCardCodeField(name)) {
      parsed.searchParams.delete(name);
      changed = true;
    } else if (isSecretField(name)) {
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    } else if (isCardNumberField(name)) {
      parsed.searchParams.set(name, maskCardNumber(parsed.searchParams.get(name) ?? ''));
      changed = true;
    }
  }
  const text = changed ? parsed.toString().replace(/%5Bredacted%5D/g, REDACTED) : parsed.toString();
  return maskCardNumbersIn(text);
}

/**
 * Secret values present in a request: values of secret headers (and the credential after its
 * scheme, "Bearer <this>"), and string values of secret fields of a JSON body. Error messages
 * are scrubbed of these, whatever the server echoed back.
 */
export function collectSecrets(headers: Headers | Record<string, string> | undefined, jsonBody?: unknown): string[] {
  const out = new Set<string>();
  if (headers) {
    const entries: Iterable<[string, string]> =
      headers instanceof Headers ? headers.entries() : Object.entries(headers);
    for (const [name, value] of entries) {
      if (typeof value !== 'string' || value === '') continue;
      if (!isSecretHeader(name) && !looksLikeCredential(value)) continue;
      // "Bearer <token>": the token is the secret (so a scrubbed text still says "Bearer [redacted]").
      const scheme = AUTH_SCHEME.test(value) ? /^\w+\s+(\S.*)$/.exec(value) : null;
      out.add(scheme?.[1] ?? value);
    }
  }
  if (jsonBody !== undefined) collectSecretFields(jsonBody, out, 0);
  return [...out].filter((s) => s.length >= MIN_SCRUB_LENGTH);
}

// Shorter values ("1", "ok") would scrub ordinary words out of messages; secrets are longer.
const MIN_SCRUB_LENGTH = 6;

function collectSecretFields(value: unknown, out: Set<string>, depth: number): void {
  if (value === null || typeof value !== 'object' || depth > 32) return;
  if (Array.isArray(value)) {
    for (const item of value) collectSecretFields(item, out, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (isSecretField(key) && typeof item === 'string' && item !== '') out.add(item);
    else if (isCardNumberField(key) && (typeof item === 'string' || typeof item === 'number') && item !== '')
      out.add(String(item));
    else collectSecretFields(item, out, depth + 1);
  }
}

/**
 * `text` with every occurrence of a known secret, and anything credential-shaped, replaced by
 * "[redacted]", and every card number (a known one, or any Luhn-valid one) masked to its last 4 digits.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  // Longest first: a secret that contains another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length < MIN_SCRUB_LENGTH || !out.includes(secret)) continue;
    out = out.split(secret).join(looksLikeCardNumberValue(secret) ? maskCardNumber(secret) : REDACTED);
  }
  return maskCardNumbersIn(
    out
      .replace(/\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]{16,}=*/gi, `$1 ${REDACTED}`)
      .replace(/eyJ[\w-]{4,}\.[\w-]{4,}\.[\w-]*/g, REDACTED),
  );
}

/** A deep copy of a JSON-like value: secret fields redacted, and every string scrubbed of known secrets. */
export function scrubValue(value: unknown, secrets: readonly string[] = []): unknown {
  const redacted = redactBody(value);
  if (secrets.length === 0) return redacted;
  return mapStrings(redacted, (s) => scrubSecrets(s, secrets));
}

function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[fn(key)] = mapStrings(item, fn);
  return out;
}

// Secrets each transport response was answered to, for the errors built from it later. Computed
// lazily: a successful response never needs them.
const secretsByResponse = new WeakMap<Response, () => string[]>();

/** Records, for a response, how to obtain the secret values of the request it answers. */
export function rememberRequestSecrets(response: Response, secrets: () => string[]): void {
  let cached: string[] | undefined;
  secretsByResponse.set(response, () => (cached ??= secrets()));
}

/** The secret values of the request a transport response answers ([] when unknown). */
export function requestSecretsOf(response: Response): string[] {
  return secretsByResponse.get(response)?.() ?? [];
}
