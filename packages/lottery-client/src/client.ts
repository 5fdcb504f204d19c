// The lottery client: a bearer token issued out of band, one account call. 401 → UnauthorizedError.
import {
  createClientContext,
  createSdkClient,
  type ClientOptions,
  ConfigurationError,
  invoke,
  type RequestOptions,
} from '@paykit/runtime';
import { getClientAccount } from './generated/sdk.gen.ts';
import type { ClientAccount } from './generated/types.gen.ts';
import { zGetClientAccountResponse } from './generated/zod.gen.ts';

export interface LotteryClientOptions extends ClientOptions {
  /** The lottery access token (issued with a payee identifier; it may expire: 401), sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
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
  const { baseUrl, transport, ctx, headers } = createClientContext('lottery', options, {
    secrets: () => [token],
    moduleUrl: import.meta.url,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers, auth: () => token });
  return {
    account: {
      get: (requestOptions) =>
        invoke(
          ctx,
          'getClientAccount',
          zGetClientAccountResponse,
          (extra) => getClientAccount({ client: sdk, ...extra }),
          requestOptions,
        ),
    },
  };
}
