// @paykit/core-client: the generated SDK, request/response types and the API revision.
// The hand-written layer (authentication, retries, idempotency, pagination, signing) is added
// beside this file and exported from here; the generated code under ./generated never imports it.
export * from './generated/index.ts';
export { API_VERSION, API_TITLE, PRODUCT } from './generated/meta.gen.ts';

// The hand-written layer: the client, its token lifecycle and the webhook helpers.
export { createCoreClient, type CoreClient } from './client.ts';
export type { CoreClientOptions, CreatedTransaction, FailedTransaction, TransactionIntent } from './options.ts';
export { MemoryTokenStore, tokenStoreKey, type StoredToken, type TokenStore } from './token-store.ts';
export type { MoneyOutInput, MoneyOutOptions, PennyValidationInput, PennyValidationOptions } from './transactions.ts';
export {
  generateWebhookToken,
  WEBHOOK_TOKEN_BYTES,
  type RegisterWebhookInput,
  type RegisteredWebhook,
  type WebhookPatch,
} from './webhooks.ts';
export type { ReportDownloadAnswer, ReportDownloadInput } from './reports.ts';
export { DEFAULT_REPORT_FILE_MAX_BYTES, ReportFileError, type ReportFileOptions } from './report-file.ts';
export { parseCoreEvent, type CoreEvent, type CoreEventKind } from './events.ts';
export {
  AuthenticationError,
  CoreEventError,
  IdempotencyConflictError,
  TransactionDriftError,
  TransactionIntentError,
  TransactionRecordingError,
  type AuthenticationFailure,
  type IdempotencyConflictCase,
} from './errors.ts';
// From the runtime, so a receiver needs only this package: delivery verification (constant time,
// several tokens during rotation) and the errors every call can throw.
export {
  verifyCoreWebhook,
  WebhookVerificationError,
  PaykitError,
  ConfigurationError,
  ApiError,
  BadRequestError,
  UnauthorizedError,
  NotFoundError,
  ConflictError,
  RateLimitedError,
  InternalServerError,
  ConnectionError,
  TimeoutError,
  UserAbortError,
  UnexpectedResponseError,
  withResponse,
  responseOf,
  type ResponseInfo,
  DriftError,
  RequestValidationError,
  type RequestOptions,
  type DriftReport,
  type Logger,
  type LogEntry,
} from '@paykit/runtime';
export { MoneyError } from '@paykit/domain';
