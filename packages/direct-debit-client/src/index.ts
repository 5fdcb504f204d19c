// @paykit/direct-debit-client: the generated SDK, request/response types and the API revision.
// The hand-written layer (authentication, retries, idempotency, pagination, signing) is added
// beside this file and exported from here; the generated code under ./generated never imports it.
export * from './generated/index.ts';
export { API_VERSION, API_TITLE, PRODUCT } from './generated/meta.gen.ts';

// The hand-written layer.
export {
  createDirectDebitClient,
  type DirectDebitClient,
  type DirectDebitClientOptions,
  type InstrumentListParams,
  type InstrumentPageParams,
} from './client.ts';
export {
  CHARGE_OUTCOMES,
  DirectDebitEventError,
  createDirectDebitWebhookVerifier,
  isChargeResult,
  parseDirectDebitEvent,
  type ChargeOutcome,
  type ChargeResult,
  type DirectDebitEvent,
  type OtherDirectDebitEvent,
} from './events.ts';
export { checkChargeBody } from './charge-input.ts';
export { ChargeRecordingError, type CreatedCharge, type OnChargeCreated } from './charge-recording.ts';
// Every paykit error class, re-exported whole: a new one reaches this package with no edit here.
export * from '@paykit/runtime/errors';
export { withResponse, responseOf, type ResponseInfo, type RequestOptions } from '@paykit/runtime';
