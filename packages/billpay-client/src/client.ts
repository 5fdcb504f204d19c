// The billpay client: a bearer token issued out of band, one account call, built by
// the runtime's createBearerClient from this product's names and generated account call.
import { createBearerClient, type BearerClient, type BearerClientOptions } from '@paykit/runtime';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface BillpayClientOptions extends BearerClientOptions {
  /** The billpay API key (the reference: "Authorization: Bearer <API_KEY>"), sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
}

export type BillpayClient = BearerClient<ClientAccount>;

export function createBillpayClient(options: BillpayClientOptions): BillpayClient {
  return createBearerClient(options, {
    product: 'billpay',
    factory: 'createBillpayClient',
    missingToken: 'Pass the billpay API key issued to you (sent as the bearer token).',
    moduleUrl: import.meta.url,
    getClientAccount,
    accountSchema: zGetClientAccountResponse,
  });
}
