// The lottery client: a bearer token issued out of band, one account call, built by
// the runtime's createBearerClient from this product's names and generated account call.
import { createBearerClient, type BearerClient, type BearerClientOptions } from '@paykit/runtime';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface LotteryClientOptions extends BearerClientOptions {
  /** The lottery access token (issued with a payee identifier; it may expire: 401), sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
}

export type LotteryClient = BearerClient<ClientAccount>;

export function createLotteryClient(options: LotteryClientOptions): LotteryClient {
  return createBearerClient(options, {
    product: 'lottery',
    factory: 'createLotteryClient',
    missingToken: 'Pass the lottery access token issued to you.',
    moduleUrl: import.meta.url,
    getClientAccount,
    accountSchema: zGetClientAccountResponse,
  });
}
