// The client of a product whose whole API is a bearer token issued out of band and one account
// call (billpay, gift cards, lottery): one factory, so each of those clients is a call to it with
// its product's names and cannot drift from the others. 401 → UnauthorizedError.
import type { ZodType } from 'zod';
import { createClientContext, type ClientOptions } from './client-context.ts';
import type { ProductName } from './environments.ts';
import { ConfigurationError } from './errors.ts';
import { invoke, type SdkExtra, type SdkResult } from './invoke.ts';
import { createSdkClient } from './sdk-client.ts';
import type { Client } from './sdk-types.ts';
import type { RequestOptions } from './transport.ts';

export interface BearerClientOptions extends ClientOptions {
  /** Sent as `Authorization: Bearer <token>`. Never logged or put in an error. */
  token: string;
}

export interface BearerClient<Account> {
  /** GET /api/v1/client/account. Its body is not shown by the reference: returned as read. */
  account: { get(options?: RequestOptions): Promise<Account> };
}

/** What tells one bearer-token product from another. */
export interface BearerProduct<Account> {
  product: ProductName;
  /** The product's factory, named in its errors: "createBillpayClient". */
  factory: string;
  /** What the error for a missing token asks for: "Pass the lottery access token issued to you." */
  missingToken: string;
  /** The client module's `import.meta.url`: the version in its package.json goes into the User-Agent. */
  moduleUrl: string;
  /** The product's generated SDK function for the account call, and the schema its answer is read with. */
  getClientAccount: (options: { client: Client } & SdkExtra) => Promise<SdkResult>;
  accountSchema: ZodType<Account>;
}

export function createBearerClient<Account>(
  options: BearerClientOptions,
  product: BearerProduct<Account>,
): BearerClient<Account> {
  if (typeof options.token !== 'string' || options.token.trim() === '') {
    throw new ConfigurationError(`${product.factory}: token is missing. ${product.missingToken}`);
  }
  const { token } = options;
  const { baseUrl, transport, ctx, headers } = createClientContext(product.product, options, {
    secrets: () => [token],
    moduleUrl: product.moduleUrl,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers, auth: () => token });
  return {
    account: {
      get: (requestOptions) =>
        invoke(
          ctx,
          'getClientAccount',
          product.accountSchema,
          (extra) => product.getClientAccount({ client: sdk, ...extra }),
          requestOptions,
        ),
    },
  };
}
