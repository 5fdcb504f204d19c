// The gift cards client: a bearer token issued out of band, one account call. 401 → UnauthorizedError.
import { ConfigurationError, createTransport, invoke, resolveBaseUrl, type DriftReport, type Environment, type Logger, type RequestOptions } from '@paykit/runtime';
import { createClient } from './generated/client/index.ts';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface GiftCardsClientOptions {
  /** sandbox → http://127.0.0.1:4010/gift-cards; staging and production need `baseUrl` (not shown by the reference). */
  environment: Environment;
  baseUrl?: string;
  /** The gift cards access token, sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  onDrift?: (report: DriftReport) => void;
  strict?: boolean;
}

export interface GiftCardsClient {
  /** GET /api/v1/client/account. Its body is not shown by the reference: returned as read. */
  account: { get(options?: RequestOptions): Promise<ClientAccount> };
}

export function createGiftCardsClient(options: GiftCardsClientOptions): GiftCardsClient {
  if (typeof options.token !== 'string' || options.token.trim() === '') {
    throw new ConfigurationError('createGiftCardsClient: token is missing. Pass the gift cards access token issued to you.');
  }
  const { token } = options;
  const retry = options.maxRetries === undefined ? undefined : { maxRetries: options.maxRetries };
  const transport = createTransport({ product: 'gift-cards', timeoutMs: options.timeoutMs, retry, fetch: options.fetch, logger: options.logger });
  const sdk = createClient({ baseUrl: resolveBaseUrl('gift-cards', options.environment, options.baseUrl), fetch: transport.fetch, auth: () => token });
  const ctx = { product: 'gift-cards', transport, drift: { onDrift: options.onDrift, strict: options.strict } } as const;
  return {
    account: {
      get: (requestOptions) => invoke(ctx, 'getClientAccount', zGetClientAccountResponse, (extra) => getClientAccount({ client: sdk, ...extra }), requestOptions),
    },
  };
}
