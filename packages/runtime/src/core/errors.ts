// Every error a paykit client throws. One rule above all: no message, cause, toString or JSON of
// any of them contains a secret. Messages are built only from what we know to be safe (status,
// product, operation, the server's own message fields) and are scrubbed of every secret value the
// request carried, in case the server echoed one back.
import type { DriftReport } from './drift.ts';
import type { ProductName } from './environments.ts';
import { redactHeaders, requestSecretsOf, scrubSecrets, scrubValue } from './redact.ts';
import { PaykitError } from '../paykit-error.ts';
import { parseRetryAfter } from '../internal/retry.ts';

export { PaykitError } from '../paykit-error.ts';

/** A client was configured in a way that cannot work (missing baseUrl, bad option). */
export class ConfigurationError extends PaykitError {}

export interface CoreErrorDetail {
  reason: string;
  domain: string;
  metadata: {
    error_code?: unknown;
    http_code?: string;
    error_detail?: unknown;
    module?: unknown;
    method_name?: unknown;
  };
}

export interface ValidationErrorDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface ApiErrorInit {
  status: number;
  /** The response body: parsed JSON when it is JSON, else the text. Stored redacted. */
  body: unknown;
  requestId: string;
  product: ProductName;
  operation?: string;
  /** Response headers (stored redacted). */
  headers?: Headers | Record<string, string>;
  /** Secret values of the request, scrubbed from everything the error keeps. */
  secrets?: readonly string[];
}

/** The platform answered with an HTTP error status. */
export class ApiError extends PaykitError {
  readonly status: number;
  /** The parsed body, with secret fields redacted and secret values scrubbed. */
  readonly body: unknown;
  readonly requestId: string;
  readonly product: ProductName;
  readonly operation?: string;
  /** Response headers, redacted. */
  readonly headers: Record<string, string>;
  /** Core error body: gRPC-derived code. */
  readonly code?: number;
  /** Core error body: reason, domain, metadata.error_code … */
  readonly details?: CoreErrorDetail[];
  /** Core error body: the first detail's reason (FAILED_PRECONDITION…). */
  readonly reason?: string;
  /** Core error body: the first detail's domain (CORE…). */
  readonly domain?: string;
  /** Core error body: the platform's reason in words, `details[0].metadata.error_detail` ("Account is already cancelled"). */
  readonly errorDetail?: string;
  /** Direct debit 422 body: which field failed and why. */
  readonly detail?: ValidationErrorDetail[];

  constructor(message: string, init: ApiErrorInit) {
    const secrets = init.secrets ?? [];
    super(scrubSecrets(message, secrets));
    this.status = init.status;
    this.body = scrubValue(init.body, secrets);
    this.requestId = init.requestId;
    this.product = init.product;
    if (init.operation !== undefined) this.operation = init.operation;
    this.headers = init.headers ? redactHeaders(init.headers) : {};
    const core = asCoreError(this.body);
    if (core) {
      this.code = core.code;
      this.details = core.details;
      const first = core.details[0];
      if (first) {
        this.reason = first.reason;
        this.domain = first.domain;
        const detail = first.metadata.error_detail;
        if (typeof detail === 'string' && detail.trim() !== '') this.errorDetail = detail.trim();
      }
    }
    const detail = asValidationDetail(this.body);
    if (detail) this.detail = detail;
  }

  override toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      product: this.product,
      operation: this.operation,
      requestId: this.requestId,
      code: this.code,
      reason: this.reason,
      domain: this.domain,
      errorDetail: this.errorDetail,
      details: this.details,
      detail: this.detail,
    };
  }
}

/** 400 */
export class BadRequestError extends ApiError {}
/** 401 */
export class UnauthorizedError extends ApiError {}
/** 403 (not in the reference's tables, but a status like any other) */
export class PermissionDeniedError extends ApiError {}
/** 404 */
export class NotFoundError extends ApiError {}
/** 409 */
export class ConflictError extends ApiError {}
/** 422 */
export class UnprocessableError extends ApiError {}
/** 429 */
export class RateLimitedError extends ApiError {
  /** From Retry-After, when the server sent one. */
  readonly retryAfterMs?: number;

  constructor(message: string, init: ApiErrorInit & { retryAfterMs?: number }) {
    super(message, init);
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfterMs: this.retryAfterMs };
  }
}
/** 5xx */
export class InternalServerError extends ApiError {}

/** The platform could not be reached (after the retries that were safe). `cause` is sanitized: no headers, no body. */
export class ConnectionError extends PaykitError {
  readonly requestId: string;

  constructor(message: string, init: { requestId: string; cause?: Error }) {
    super(message, init.cause ? { cause: init.cause } : undefined);
    this.requestId = init.requestId;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), requestId: this.requestId };
  }
}

/**
 * No answer within `timeoutMs` (each attempt, or the call's own), after the retries that were safe.
 * `cause`, when there is one, is the DOMException the deadline aborted the attempt with.
 */
export class TimeoutError extends PaykitError {
  readonly requestId: string;
  readonly timeoutMs: number;

  constructor(message: string, init: { requestId: string; timeoutMs: number; cause?: Error }) {
    super(message, init.cause ? { cause: init.cause } : undefined);
    this.requestId = init.requestId;
    this.timeoutMs = init.timeoutMs;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), requestId: this.requestId, timeoutMs: this.timeoutMs };
  }
}

/**
 * Where a call was when the caller's signal aborted it:
 * - `before-sending`: nothing was sent (the signal was already aborted, or aborted before the request left);
 * - `signing-in`: the call waited for a token and was never sent (the sign-in goes on for other calls);
 * - `in-flight`: the request may have reached the platform, its answer was not read;
 * - `between-attempts`: an earlier attempt reached the platform or failed, and the next was not made.
 */
export type AbortStage = 'before-sending' | 'signing-in' | 'in-flight' | 'between-attempts';

/**
 * The caller's AbortSignal aborted the call (openai-node's APIUserAbortError). `cause` is the
 * signal's reason exactly as the caller gave it (`AbortSignal.timeout`'s TimeoutError included:
 * the caller chose that deadline); the client's own deadlines throw TimeoutError instead.
 */
export class UserAbortError extends PaykitError {
  readonly stage: AbortStage;
  /** The request id the call was sent with, or undefined when nothing was sent. */
  readonly requestId: string | undefined;

  constructor(message: string, init: { stage: AbortStage; reason: unknown; requestId?: string }) {
    super(message, init.reason === undefined ? undefined : { cause: init.reason });
    this.stage = init.stage;
    this.requestId = init.requestId;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), stage: this.stage, requestId: this.requestId };
  }
}

const ABORT_CONSEQUENCE: Record<AbortStage, string> = {
  'before-sending': 'nothing was sent; call again when it should be made',
  'signing-in': 'it was not sent; the sign-in goes on and later calls use its token; call again when it should be made',
  'in-flight':
    'the platform may have received it: for a call that changes something (a transfer, a validation), look it up by its Idempotency-Key or reference before repeating it',
  'between-attempts':
    'an earlier attempt may have reached the platform: for a call that changes something, look it up by its Idempotency-Key or reference before repeating it',
};

const ABORT_WHEN: Record<AbortStage, string> = {
  'before-sending': 'before the request was sent',
  'signing-in': 'while the client was signing in',
  'in-flight': 'while the request was in flight',
  'between-attempts': 'while waiting to retry',
};

/**
 * The UserAbortError for `reason` (the signal's), named after the call. The message names the
 * reason's kind only (AbortError, TimeoutError…): its text is the caller's and may say anything.
 */
export function abortedByCaller(where: string, stage: AbortStage, reason: unknown, requestId?: string): UserAbortError {
  const kind =
    reason instanceof Error ? reason.name : reason === undefined ? 'no reason given' : `a ${typeof reason} reason`;
  const id = requestId === undefined ? '' : `, request id ${requestId}`;
  return new UserAbortError(
    `${where}: aborted by the caller's signal ${ABORT_WHEN[stage]} (${kind}${id}) — ${ABORT_CONSEQUENCE[stage]}`,
    requestId === undefined ? { stage, reason } : { stage, reason, requestId },
  );
}

/** Strict mode: a response did not match its schema. */
export class DriftError extends PaykitError {
  readonly reports: DriftReport[];
  /**
   * The answer as received. A strict caller that created something (a transfer) must not lose it
   * because the answer's shape differs: it is here.
   */
  readonly received: unknown;

  constructor(message: string, reports: DriftReport[], received?: unknown) {
    super(message);
    this.reports = reports;
    this.received = received;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), reports: this.reports };
  }
}

/**
 * A 2xx answer that is not the operation's JSON (an HTML page from a proxy, a load balancer or a
 * captive portal). Nothing in it is returned as data. For a money-moving call the platform may or
 * may not have acted: look the operation up (by its Idempotency-Key or external reference) before
 * sending it again.
 */
export class UnexpectedResponseError extends PaykitError {
  readonly status: number;
  readonly requestId: string;
  readonly product: ProductName;
  readonly operation: string;
  /** The answer's Content-Type ("text/html; charset=utf-8"), or null when it had none. */
  readonly contentType: string | null;

  constructor(
    product: ProductName,
    operation: string,
    init: { status: number; requestId: string; contentType: string | null; reason: string },
  ) {
    const type =
      init.contentType === null
        ? 'no Content-Type'
        : `Content-Type ${truncate(init.contentType.replace(/[^\x20-\x7e]/g, '?'), 80)}`;
    super(
      `${product} ${operation}: HTTP ${init.status} with ${init.reason} (${type}, request id ${init.requestId}) — ` +
        'something between this client and the platform (a proxy, a load balancer) answered in its place: check baseUrl and the network path; ' +
        'if the call moves money, look it up before repeating it',
    );
    this.status = init.status;
    this.requestId = init.requestId;
    this.product = product;
    this.operation = operation;
    this.contentType = init.contentType;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      status: this.status,
      product: this.product,
      operation: this.operation,
      requestId: this.requestId,
      contentType: this.contentType,
    };
  }
}

/** The request failed the spec's schema before being sent. Issues name paths and rules, never values. */
export class RequestValidationError extends PaykitError {
  readonly issues: { path: (string | number)[]; message: string }[];

  constructor(message: string, issues: { path: (string | number)[]; message: string }[]) {
    super(message);
    this.issues = issues;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), issues: this.issues };
  }
}

// ---------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asCoreError(body: unknown): { code: number; details: CoreErrorDetail[] } | undefined {
  if (!isRecord(body) || typeof body.code !== 'number' || !Array.isArray(body.details)) return undefined;
  const details: CoreErrorDetail[] = [];
  for (const item of body.details) {
    if (!isRecord(item)) continue;
    details.push({
      ...item,
      reason: typeof item.reason === 'string' ? item.reason : String(item.reason),
      domain: typeof item.domain === 'string' ? item.domain : String(item.domain),
      metadata: isRecord(item.metadata) ? (item.metadata as CoreErrorDetail['metadata']) : {},
    });
  }
  return { code: body.code, details };
}

function asValidationDetail(body: unknown): ValidationErrorDetail[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.detail)) return undefined;
  const out: ValidationErrorDetail[] = [];
  for (const item of body.detail) {
    if (!isRecord(item)) continue;
    out.push({
      ...item,
      loc: Array.isArray(item.loc)
        ? item.loc.filter((l): l is string | number => typeof l === 'string' || typeof l === 'number')
        : [],
      msg: typeof item.msg === 'string' ? item.msg : '',
      type: typeof item.type === 'string' ? item.type : '',
    });
  }
  return out;
}

const MAX_SERVER_TEXT = 300;

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The server's own words: core `details[].metadata.error_detail` (its `message` is a generic
 * "API Error"), direct debit `detail[].msg`, or `message`/`error`/`reason`/`detail` strings.
 */
function serverText(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const core = asCoreError(body);
  if (core) {
    const words = core.details
      .map((d) => (typeof d.metadata.error_detail === 'string' ? d.metadata.error_detail.trim() : ''))
      .filter((w) => w !== '');
    if (words.length > 0) return [...new Set(words)].join('; ');
  }
  const validation = asValidationDetail(body);
  if (validation && validation.length > 0) {
    const shown = validation.slice(0, 3).map((d) => (d.loc.length > 0 ? `${d.loc.join('.')}: ${d.msg}` : d.msg));
    const more = validation.length > 3 ? ` (+${validation.length - 3} more)` : '';
    return shown.join('; ') + more;
  }
  for (const key of ['message', 'error', 'reason', 'detail', 'error_description'] as const) {
    const value = body[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** A machine-readable code for the message: core details[0].reason, or an UPPER_SNAKE `code`/`error`. */
function errorToken(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const core = asCoreError(body);
  const first = core?.details[0];
  const reason = first?.reason;
  if (reason && /^[A-Za-z][A-Za-z0-9_]{1,63}$/.test(reason)) {
    const domain = first?.domain;
    return domain && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(domain) ? `${reason} (domain ${domain})` : reason;
  }
  for (const key of ['code', 'error_code'] as const) {
    const value = body[key];
    if (typeof value === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(value)) return value;
  }
  return undefined;
}

/** What to do about each kind of failure. */
function hintFor(status: number, retryAfterMs: number | undefined): string {
  if (status === 400)
    return 'fix the request: the fields named above do not meet the spec or the platform rejected them';
  if (status === 401)
    return 'check that the environment, client, credential and token (or API key / signature) belong together and have not expired';
  if (status === 403) return 'these credentials may not perform this operation';
  if (status === 404) return 'check the ids in the request: they must exist for this client in this environment';
  if (status === 409)
    return 'the resource is in a conflicting state, or an Idempotency-Key was reused with another payload or while its first request is in progress: retry later with the same payload, or use a new key';
  if (status === 422) return 'fix the fields listed in detail';
  if (status === 429)
    return retryAfterMs !== undefined
      ? `too many requests: wait ${Math.ceil(retryAfterMs / 1000)} s before retrying`
      : 'too many requests: slow down and retry later';
  if (status >= 500)
    return 'a server-side failure: retry later, and only repeat an operation that is safe to repeat (a read, or a POST with an Idempotency-Key)';
  return 'see status and body';
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const text = body.trim();
  if (text === '') return undefined;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return body;
    }
  }
  return body;
}

/**
 * Builds the right subclass from an error response. `body` is what was read from it (JSON text,
 * parsed JSON, or plain text). Message: "<product> <operation>: HTTP 404 RESOURCE_NOT_FOUND:
 * <server message> — <what to do>". Every secret value of the request (known to the transport,
 * plus `ctx.secrets`) is scrubbed from the message, the body and the details.
 */
export function apiErrorFrom(
  response: Response,
  body: unknown,
  ctx: { product: ProductName; operation?: string; requestId: string; secrets?: readonly string[] },
): ApiError {
  const status = response.status;
  const parsed = parseBody(body);
  const secrets = [...requestSecretsOf(response), ...(ctx.secrets ?? [])];
  const retryAfterMs = status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
  const token = errorToken(parsed);
  const text = serverText(parsed);
  const where = ctx.operation ? `${ctx.product} ${ctx.operation}` : ctx.product;
  const message =
    `${where}: HTTP ${status}` +
    (token ? ` ${token}` : '') +
    (text ? `: ${truncate(scrubSecrets(text, secrets), MAX_SERVER_TEXT)}` : '') +
    ` — ${hintFor(status, retryAfterMs)}`;
  const init: ApiErrorInit = {
    status,
    body: parsed,
    requestId: ctx.requestId,
    product: ctx.product,
    headers: response.headers,
    secrets,
  };
  if (ctx.operation !== undefined) init.operation = ctx.operation;
  switch (true) {
    case status === 400:
      return new BadRequestError(message, init);
    case status === 401:
      return new UnauthorizedError(message, init);
    case status === 403:
      return new PermissionDeniedError(message, init);
    case status === 404:
      return new NotFoundError(message, init);
    case status === 409:
      return new ConflictError(message, init);
    case status === 422:
      return new UnprocessableError(message, init);
    case status === 429:
      return new RateLimitedError(message, retryAfterMs !== undefined ? { ...init, retryAfterMs } : init);
    case status >= 500:
      return new InternalServerError(message, init);
    default:
      return new ApiError(message, init);
  }
}

/** An Error safe to keep as a `cause`: name, message (scrubbed) and a `code` (ECONNREFUSED…), nothing else. */
export function sanitizeCause(error: unknown, secrets: readonly string[] = []): Error {
  const parts: string[] = [];
  let code: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      parts.push(`${current.name}: ${current.message}`);
      const c = (current as { code?: unknown }).code;
      if (code === undefined && typeof c === 'string') code = c;
      current = current.cause;
    } else {
      if (typeof current === 'string') parts.push(current);
      break;
    }
  }
  const text = (parts.join(' ← ') || 'unknown failure')
    // undici quotes the offending value ("<value>" is an invalid header value): it may be a credential.
    .replace(/"[^"]*" is an invalid header (value|name)/g, '"[redacted]" is an invalid header $1');
  const sanitized = new Error(truncate(scrubSecrets(text, secrets), 500));
  sanitized.name = 'SanitizedCause';
  if (code !== undefined) Object.assign(sanitized, { code });
  return sanitized;
}
