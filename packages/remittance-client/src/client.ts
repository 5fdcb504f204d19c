// The remittance client: receive a remittance into a new private account. The reference declares
// no authentication for it ("not shown"), so the client sends none of its own: pass in `headers`
// whatever your contract with the platform says.
import { createClientContext, createSdkClient, type ClientOptions, invoke, type RequestOptions } from '@paykit/runtime';
import { receiveRemittance } from './generated/sdk.gen.ts';
import type { RemittanceReceiveRequest, RemittanceReceiveResponse } from './generated/types.gen.ts';
import { zReceiveRemittanceResponse } from './generated/zod.gen.ts';

export interface RemittanceClientOptions extends ClientOptions {
  /**
   * Sent with every request. The reference shows no authentication for remittance: put here what
   * your contract needs. Headers the runtime knows as secret (authorization, x-api-key, …) are
   * redacted in logs; name a custom credential header like one of those or keep logging off.
   */
  headers?: Record<string, string>;
}

export interface RemittanceClient {
  /**
   * POST /v2/remittances/receive: opens a private account and receives the remittance into it.
   * `amount` is a decimal string with two decimals ("1500.00"), never a number. The answer says
   * whether it is `ready_for_commit`.
   */
  receive(body: RemittanceReceiveRequest, options?: RequestOptions): Promise<RemittanceReceiveResponse>;
}

export function createRemittanceClient(options: RemittanceClientOptions): RemittanceClient {
  const { baseUrl, transport, ctx, headers } = createClientContext('remittance', options, {
    moduleUrl: import.meta.url,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers: { ...headers, ...options.headers } });
  return {
    receive: (body, requestOptions) =>
      invoke<RemittanceReceiveResponse>(
        ctx,
        'receiveRemittance',
        zReceiveRemittanceResponse,
        (extra) => receiveRemittance({ client: sdk, body, ...extra }),
        requestOptions,
      ),
  };
}
