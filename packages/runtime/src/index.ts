// @paykit/runtime: the request pipeline, shared by every client.
// Exported by name: what the clients, their generated SDKs and the apps import, and the helpers the
// README documents for callers. Everything else in src/ is internal to the runtime.

// What each client is built from: its context, its SDK client, one call through the pipeline.
export { createClientContext, type ClientOptions } from './client-context.ts';
export { createSdkClient } from './sdk-client.ts';
export type { Client, ClientMeta, Options, RequestResult, TDataShape } from './sdk-types.ts';
export { invoke, type InvokeContext } from './invoke.ts';
export {
  createTransport,
  undiciFetch,
  DEFAULT_TIMEOUT_MS,
  type RequestOptions,
  type Transport,
  type TransportOptions,
} from './transport.ts';
export { PRODUCTS, type Environment, type ProductName } from './environments.ts';
export { RETRY_TABLE, retryRowFor } from './retry-table.ts';
export { withResponse, responseOf, type ResponseInfo } from './response-info.ts';

// Errors: every one extends PaykitError.
export {
  PaykitError,
  ConfigurationError,
  ApiError,
  BadRequestError,
  UnauthorizedError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  UnprocessableError,
  RateLimitedError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  UserAbortError,
  abortedByCaller,
  DriftError,
  UnexpectedResponseError,
  RequestValidationError,
  type AbortStage,
  type CoreErrorDetail,
  type ValidationErrorDetail,
} from './errors.ts';

// Logging and redaction.
export { jsonLineLogger, type LogEntry, type Logger } from './logger.ts';
export { redactBody, redactHeaders, redactLogFields, redactUrl, scrubSecrets, maskSecret } from './redact.ts';

// Reading answers and deliveries tolerantly.
export {
  readTolerantly,
  jsonPointer,
  formatPath,
  describeValue,
  type DriftOptions,
  type DriftReport,
} from './drift.ts';
export { isNone } from './none.ts';
export { webhookJson } from './webhook-body.ts';

// Verifying webhook deliveries.
export {
  WebhookVerificationError,
  hmacSha256Hex,
  constantTimeEqual,
  singleHeader,
  verifyCoreWebhook,
  createCoreWebhookVerifier,
  type WebhookVerificationReason,
  type HeaderSource,
} from './signing.ts';

// Idempotency keys.
export {
  idempotencyKey,
  bodyHashIdempotencyKey,
  canonicalJson,
  uuidV5,
  IDEMPOTENCY_NAMESPACES,
} from './idempotency.ts';

// The domain primitives moved to @paykit/domain (no I/O, no HTTP code): re-exported here so
// existing imports keep working; `paykit-codemod domain-imports` rewrites them.
export {
  /** @deprecated Import it from @paykit/domain. */
  toCentavos,
  /** @deprecated Import it from @paykit/domain. */
  fromCentavos,
  /** @deprecated Import it from @paykit/domain. */
  formatMoney,
  /** @deprecated Import it from @paykit/domain. */
  MoneyError,
  /** @deprecated Import it from @paykit/domain. */
  parseMexicoCityLocal,
  /** @deprecated Import it from @paykit/domain. */
  parseOffsetTimestamp,
  /** @deprecated Import it from @paykit/domain. */
  formatMexicoCity,
  /** @deprecated Import it from @paykit/domain. */
  formatMexicoCityLocal,
  /** @deprecated Import it from @paykit/domain. */
  formatMexicoCityOffset,
  /** @deprecated Import it from @paykit/domain. */
  TimeFormatError,
  /** @deprecated Import it from @paykit/domain. */
  parseClabe,
  /** @deprecated Import it from @paykit/domain. */
  isValidClabe,
  /** @deprecated Import it from @paykit/domain. */
  clabeControlDigit,
  /** @deprecated Import it from @paykit/domain. */
  ClabeError,
  /** @deprecated Import it from @paykit/domain. */
  isValidRfc,
  /** @deprecated Import it from @paykit/domain. */
  isValidCardNumber,
  /** @deprecated Import it from @paykit/domain. */
  maskCardNumber,
  /** @deprecated Import it from @paykit/domain. */
  maskCardNumbersIn,
} from '@paykit/domain';
