// The gift cards client: a bearer token issued out of band, one account call, built by
// the runtime's createBearerClient from this product's names and generated account call.
import { createBearerClient, type BearerClient, type BearerClientOptions } from '@paykit/runtime';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface GiftCardsClientOptions extends BearerClientOptions {
  /** The gift cards access token, sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
}

export type GiftCardsClient = BearerClient<ClientAccount>;

export function createGiftCardsClient(options: GiftCardsClientOptions): GiftCardsClient {
  return createBearerClient(options, {
    product: 'gift-cards',
    factory: 'createGiftCardsClient',
    missingToken: 'Pass the gift cards access token issued to you.',
    moduleUrl: import.meta.url,
    getClientAccount,
    accountSchema: zGetClientAccountResponse,
  });
}
