// The lottery client: a bearer token issued out of band, one account call. 401 → UnauthorizedError.
import { ConfigurationError, createTransport, invoke, resolveBaseUrl, type DriftReport, type Environment, type Logger, type RequestOptions } from '@paykit/runtime';
import { createClient } from './generated/client/index.ts';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface LotteryClientOptions {
  /** sandbox → http://127.0.0.1:4010/lottery; staging and production need `baseUrl` (not shown by the reference). */
  environment: Environment;
  baseUrl?: string;
  /** The lottery access token (issued with a payee identifier; it may expire: 401), sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
  timeoutMs?: number;
  maxRetries?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  onDrift?: (report: DriftReport) => void;
  strict?: boolean;
}

export interface LotteryClient {
  /** GET /api/v1/client/account. Its body is not shown by the reference: returned as read. */
  account: { get(options?: RequestOptions): Promise<ClientAccount> };
}

export function createLotteryClient(options: LotteryClientOptions): LotteryClient {
  if (typeof options.token !== 'string' || options.token.trim() === '') {
    throw new ConfigurationError('createLotteryClient: token is missing. Pass the lottery access token issued to you.');
  }
  const { token } = options;
  const retry = options.maxRetries === undefined ? undefined : { maxRetries: options.maxRetries };
  const transport = createTransport({ product: 'lottery', timeoutMs: options.timeoutMs, retry, fetch: options.fetch, logger: options.logger });
  const sdk = createClient({ baseUrl: resolveBaseUrl('lottery', options.environment, options.baseUrl), fetch: transport.fetch, auth: () => token });
  const ctx = { product: 'lottery', transport, drift: { onDrift: options.onDrift, strict: options.strict } } as const;
  return {
    account: {
      get: (requestOptions) => invoke(ctx, 'getClientAccount', zGetClientAccountResponse, (extra) => getClientAccount({ client: sdk, ...extra }), requestOptions),
    },
  };
}
