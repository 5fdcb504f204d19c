// @paykit/cash-client: the generated SDK, request/response types and the API revision.
// The hand-written layer (authentication, retries, idempotency, pagination, signing) is added
// beside this file and exported from here; the generated code under ./generated never imports it.
export * from './generated/index.ts';
export { API_VERSION, API_TITLE, PRODUCT } from './generated/meta.gen.ts';

// The hand-written layer.
export { createCashClient, type CashClient, type CashClientOptions, type CashOperationPaths } from './client.ts';
export { cashSigningFetch, type CashSigningOptions } from './signing-fetch.ts';
export {
  parseCashEvent,
  constructCashEvent,
  CashEventError,
  CASH_EVENT_NAMES,
  type CashEvent,
  type CashEventName,
  type CashActivation,
  type CashPaidEvent,
  type CashExpiredEvent,
  type CashReversedEvent,
} from './events.ts';
export { signCashRequest, verifyCashWebhook } from './signing.ts';
export { pesosToCentavos, centavosToPesos } from './amounts.ts';
// Every paykit error class, re-exported whole: a new one reaches this package with no edit here.
export * from '@paykit/runtime/errors';
export { withResponse, responseOf, type ResponseInfo, type RequestOptions } from '@paykit/runtime';
