// Every error class a paykit client or helper throws, all extending PaykitError: the public entry
// `@paykit/runtime/errors`, which every client re-exports whole. One rule above all: no message,
// cause, toString or JSON of any of them contains a secret. Messages are built only from what we
// know to be safe (status, product, operation, the server's own message fields) and are scrubbed
// of every secret value the request carried, in case the server echoed one back.
import type { DriftReport } from './drift.ts';
import type { ProductName } from './environments.ts';
import { redactHeaders, scrubSecrets, scrubValue } from './redact.ts';
import { PaykitError } from '@paykit/domain';
import { asCoreError, asValidationDetail } from '../internal/error-body.ts';
import { truncate } from '../internal/truncate.ts';

// The base class and the domain helpers' errors live in @paykit/domain (its money, CLABE and time
// errors extend PaykitError, and so do these): one `instanceof PaykitError` covers both, and this
// one entry names every class a caller may catch.
export { PaykitError, MoneyError, ClabeError, TimeFormatError } from '@paykit/domain';

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

export type WebhookVerificationReason = 'missing-header' | 'malformed' | 'mismatch' | 'stale';

/** A webhook delivery failed a check; the message names the check, never a secret or the value expected. */
export class WebhookVerificationError extends PaykitError {
  override readonly name = 'WebhookVerificationError';
  /** Which check failed: a header is absent, malformed, does not match, or is too old or too far ahead. */
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
