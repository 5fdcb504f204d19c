// @paykit/runtime: the request pipeline, shared by every client. What the clients, their
// generated SDKs and the apps import, and the helpers the README documents for callers; the
// pipeline's public surface is core/, and internal/ is the runtime's own (a boundary rule keeps
// this entry from exporting it).

// What each client is built from: its context, its SDK client, one call through the pipeline.
export { createClientContext, type ClientOptions } from './core/client-context.ts';
export { createSdkClient } from './core/sdk-client.ts';
export type { Client, ClientMeta, Options, RequestResult, TDataShape } from './core/sdk-types.ts';
export { invoke, type InvokeContext } from './core/invoke.ts';
export {
  createBearerClient,
  type BearerClient,
  type BearerClientOptions,
  type BearerProduct,
} from './core/bearer-client.ts';
export {
  createTransport,
  undiciFetch,
  DEFAULT_TIMEOUT_MS,
  type RequestOptions,
  type Transport,
  type TransportOptions,
} from './core/transport.ts';
export { PRODUCTS, type Environment, type ProductName } from './core/environments.ts';
export { RETRY_TABLE, retryRowFor } from './core/retry-table.ts';
export { withResponse, responseOf, type ResponseInfo } from './core/response-info.ts';

// Errors: every one extends PaykitError (also the entry `@paykit/runtime/errors`, which the clients
// re-export whole), and the one a caller's abort becomes.
export * from './core/errors.ts';
export { abortedByCaller } from './core/aborted-by-caller.ts';

// Logging and redaction.
export { jsonLineLogger, type LogEntry, type Logger } from './core/logger.ts';
export { redactBody, redactHeaders, redactLogFields, redactUrl, scrubSecrets, maskSecret } from './core/redact.ts';

// Reading answers and deliveries tolerantly.
export {
  readTolerantly,
  jsonPointer,
  formatPath,
  describeValue,
  type DriftOptions,
  type DriftReport,
} from './core/drift.ts';
export { isNone } from './core/none.ts';
export { webhookJson } from './core/webhook-body.ts';

// Verifying webhook deliveries (WebhookVerificationError is with the errors above).
export {
  hmacSha256Hex,
  constantTimeEqual,
  singleHeader,
  verifyCoreWebhook,
  createCoreWebhookVerifier,
  type HeaderSource,
} from './core/signing.ts';

// Idempotency keys.
export {
  idempotencyKey,
  bodyHashIdempotencyKey,
  canonicalJson,
  uuidV5,
  IDEMPOTENCY_NAMESPACES,
} from './core/idempotency.ts';

// The domain primitives moved to @paykit/domain (no I/O, no HTTP code): re-exported here so
// existing imports keep working; `paykit-codemod domain-imports` rewrites them. Their error
// classes are not deprecated here: they come with the errors above, as every class a caller may catch.
export {
  /** @deprecated Import it from @paykit/domain. */
  toCentavos,
  /** @deprecated Import it from @paykit/domain. */
  fromCentavos,
  /** @deprecated Import it from @paykit/domain. */
  formatMoney,
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
  parseClabe,
  /** @deprecated Import it from @paykit/domain. */
  isValidClabe,
  /** @deprecated Import it from @paykit/domain. */
  clabeControlDigit,
  /** @deprecated Import it from @paykit/domain. */
  isValidRfc,
  /** @deprecated Import it from @paykit/domain. */
  isValidCardNumber,
  /** @deprecated Import it from @paykit/domain. */
  maskCardNumber,
  /** @deprecated Import it from @paykit/domain. */
  maskCardNumbersIn,
} from '@paykit/domain';
