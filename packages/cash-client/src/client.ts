// The cash client: every request signed over the exact bytes sent (see signing-fetch.ts), and
// the webhook lifecycle: create (→ activation test), get the active one, change its endpoint.
import {
  createClientContext,
  createSdkClient,
  type ClientOptions,
  ConfigurationError,
  invoke,
  type RequestOptions,
} from '@paykit/runtime';
import * as z from 'zod';
import { createCashWebhook } from './generated/sdk.gen.ts';
import type { CashWebhookConfiguration } from './generated/types.gen.ts';
import { zCashEndpointUrl, zCashWebhookConfiguration, zCreateCashWebhookResponse } from './generated/zod.gen.ts';
import { cashSigningFetch } from './signing-fetch.ts';

/** The cash api_key is 32 characters (reference, Limits). */
const API_KEY_LENGTH = 32;

/**
 * Where the two cash operations the reference lists without a path live. Defaults: the
 * sandbox's choice (`GET /api/v1/cash/webhooks/active`, `PATCH /api/v1/cash/webhooks/{id}`);
 * set them to the platform's once it tells you.
 */
export interface CashOperationPaths {
  /** Path of get-active (GET). Default `/api/v1/cash/webhooks/active`. */
  getActiveWebhook?: string;
  /** Path of update, with `{id}` for the webhook id. Default `/api/v1/cash/webhooks/{id}`. */
  updateWebhook?: string;
  /** Method of update ("PATCH or equivalent" in the reference). Default PATCH. */
  updateWebhookMethod?: 'PATCH' | 'PUT' | 'POST';
}

export interface CashClientOptions extends ClientOptions {
  /** The cash api_key (32 characters), sent as X-Client-Id. */
  apiKey: string;
  /** The api_secret that keys X-Signature. Never sent, logged or put in an error. */
  apiSecret: string;
  /** See CashOperationPaths: get-active and update are "not shown" by the reference. */
  paths?: CashOperationPaths;
  /** The clock of X-Timestamp (Unix seconds, taken per attempt); default the system clock. */
  now?: () => Date;
}

export interface CashClient {
  webhooks: {
    /**
     * Registers `endpointUrl` (http or https) as the cash webhook. The platform then sends a
     * `webhook.activation` request there; the webhook becomes active only when the endpoint
     * answers 2xx, and the previously active one is deactivated then. The answer carries
     * `secret_token` (64 hex), returned only here: store it, it verifies every delivery.
     */
    create(endpointUrl: string, options?: RequestOptions): Promise<CashWebhookConfiguration>;
    /**
     * The active cash webhook; NotFoundError (404) when none is active. Path and method are not
     * shown by the reference: `paths.getActiveWebhook`, default the sandbox's
     * `GET /api/v1/cash/webhooks/active`. Read as the cash webhook configuration (the sandbox
     * leaves out `secret_token`).
     */
    getActive(options?: RequestOptions): Promise<CashWebhookConfiguration>;
    /**
     * Changes the endpoint: the webhook is deactivated and re-tested, active again only when the
     * new endpoint answers the activation 2xx. Path and method are not shown by the reference:
     * `paths.updateWebhook` / `paths.updateWebhookMethod`, default the sandbox's
     * `PATCH /api/v1/cash/webhooks/{id}`. Its answer is not shown either: returned as read.
     */
    update(id: number, endpointUrl: string, options?: RequestOptions): Promise<unknown>;
  };
}

function required(value: unknown, name: string, what: string): void {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ConfigurationError(`createCashClient: ${name} is missing. Pass ${what}.`);
}

export function createCashClient(options: CashClientOptions): CashClient {
  const { apiKey, apiSecret } = options;
  required(apiKey, 'apiKey', 'the cash api_key (32 characters), sent as X-Client-Id');
  required(apiSecret, 'apiSecret', 'the cash api_secret that signs requests');
  if (apiKey.length !== API_KEY_LENGTH) {
    throw new ConfigurationError(
      `createCashClient: apiKey has ${apiKey.length} characters; the cash api_key has ${API_KEY_LENGTH}. Check that apiKey and apiSecret are not swapped.`,
    );
  }
  const paths = {
    getActiveWebhook: options.paths?.getActiveWebhook ?? '/api/v1/cash/webhooks/active',
    updateWebhook: options.paths?.updateWebhook ?? '/api/v1/cash/webhooks/{id}',
    updateWebhookMethod: options.paths?.updateWebhookMethod ?? 'PATCH',
  };
  if (!paths.updateWebhook.includes('{id}')) {
    throw new ConfigurationError(
      `createCashClient: paths.updateWebhook "${paths.updateWebhook}" has no {id}; write where the webhook id goes, e.g. /api/v1/cash/webhooks/{id}.`,
    );
  }

  // Signing sits inside the transport: each attempt is signed with its own timestamp.
  const { baseUrl, transport, ctx, headers } = createClientContext('cash', options, {
    fetch: cashSigningFetch({ apiKey, apiSecret, now: options.now, fetch: options.fetch }),
    secrets: () => [apiKey, apiSecret],
    moduleUrl: import.meta.url,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers });

  return {
    webhooks: {
      create: (endpointUrl, requestOptions) =>
        invoke<CashWebhookConfiguration>(
          ctx,
          'createCashWebhook',
          zCreateCashWebhookResponse,
          (extra) => createCashWebhook({ client: sdk, body: { endpoint_url: endpointUrl }, ...extra }),
          requestOptions,
        ),

      getActive: (requestOptions) =>
        invoke<CashWebhookConfiguration>(
          ctx,
          'getActiveCashWebhook',
          zCashWebhookConfiguration,
          (extra) => sdk.get({ url: paths.getActiveWebhook, ...extra }),
          requestOptions,
        ),

      update: (id, endpointUrl, requestOptions) =>
        invoke(
          ctx,
          'updateCashWebhook',
          z.unknown(),
          (extra) =>
            sdk.request({
              method: paths.updateWebhookMethod,
              url: paths.updateWebhook,
              path: { id },
              body: { endpoint_url: endpointUrl },
              headers: { 'Content-Type': 'application/json' },
              // The spec's request schema of update (x-operations-not-shown), checked before signing.
              requestValidator: async (data) => {
                await z
                  .object({
                    path: z.object({ id: z.int().nonnegative() }),
                    body: z.object({ endpoint_url: zCashEndpointUrl }),
                  })
                  .parseAsync(data);
              },
              ...extra,
            }),
          requestOptions,
        ),
    },
  };
}
