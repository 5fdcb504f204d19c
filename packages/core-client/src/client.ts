// createCoreClient: the core banking service behind one object, with the token lifecycle,
// retries, timeouts, redacted logging and drift reporting of @paykit/runtime.
import { createClientContext, createSdkClient, type RequestOptions } from '@paykit/runtime';
import { accountOperations } from './accounts.ts';
import { createToken, listCredentials, type ClientDeps } from './auth.ts';
import type { ClientCredentialList, CoreTransaction, MoneyOutTransaction } from './generated/types.gen.ts';
import { resolveCoreOptions, type CoreClientOptions } from './options.ts';
import { TokenManager } from './token-manager.ts';
import { reportOperations } from './reports.ts';
import { MemoryTokenStore, tokenStoreKey, type StoredToken } from './token-store.ts';
import {
  internalTransaction,
  moneyOut,
  pennyValidation,
  type MoneyOutInput,
  type MoneyOutOptions,
  type PennyValidationInput,
  type PennyValidationOptions,
} from './transactions.ts';
import { webhookOperations } from './webhooks.ts';

export interface CoreClient {
  readonly environment: CoreClientOptions['environment'];
  readonly clientId: string;
  readonly baseUrl: string;
  credentials: {
    /** Credential retrieval with the API key. The answer holds client_secret: keep it server-side, never log it. */
    list(requestOptions?: RequestOptions): Promise<ClientCredentialList>;
  };
  tokens: {
    /** The cached bearer token, or a new one when it is missing or within the refresh margin of expiry. */
    current(): Promise<StoredToken>;
    /** Creates a new token now, whatever the cache holds. */
    refresh(): Promise<StoredToken>;
    /** Forgets the cached token (here and in the token store). */
    clear(): Promise<void>;
  };
  webhooks: ReturnType<typeof webhookOperations>;
  transactions: {
    /** 0.01 MXN to the destination and a CEP lookup; the Idempotency-Key is derived from the request unless given. 409 → IdempotencyConflictError. */
    pennyValidation(body: PennyValidationInput, options?: PennyValidationOptions): Promise<CoreTransaction>;
    /**
     * Every outbound transfer; the destination decides INT_DEBIT or SPEI_DEBIT. The Idempotency-Key
     * is derived from the request unless given; a lost answer is retried with it. 409 →
     * IdempotencyConflictError.
     */
    moneyOut(body: MoneyOutInput, options?: MoneyOutOptions): Promise<MoneyOutTransaction>;
    /**
     * @deprecated Since 2026-05-07: use `moneyOut` with the same body (it routes internal
     * transfers itself). Still fully functional; warns once per process.
     */
    internalTransaction(body: MoneyOutInput, requestOptions?: RequestOptions): Promise<MoneyOutTransaction>;
  };
  accounts: ReturnType<typeof accountOperations>;
  /** The download address of a report file (`download`) and the file itself (`fetchFile`). */
  reports: ReturnType<typeof reportOperations>;
}

/**
 * The core banking client.
 *
 * ```ts
 * const core = createCoreClient({ environment: 'staging', baseUrl, clientId, apiKey });
 * const { webhook, token } = await core.webhooks.register({ webhookType: 'CEP', url });
 * const tx = await core.transactions.moneyOut({
 *   source_instrument_id,
 *   destination_instrument_id,
 *   transaction_request: { amount: '150.00', currency: 'MXN', description: 'Payout', external_reference: '1234567' },
 * });
 * ```
 */
export function createCoreClient(input: CoreClientOptions): CoreClient {
  const options = resolveCoreOptions(input);
  // The client's own secrets, scrubbed by value from its log entries and errors: a client_secret
  // retrieved with the API key is remembered once read.
  let retrievedSecret: string | undefined;
  const secrets = (): (string | undefined)[] => [
    options.apiKey,
    options.clientSecret,
    retrievedSecret,
    tokens.cached()?.token,
  ];
  const { baseUrl, transport, ctx, headers } = createClientContext('core', options, {
    secrets,
    moduleUrl: import.meta.url,
  });
  const sdk = createSdkClient({ baseUrl, fetch: transport.fetch, headers });
  const auth = {
    options,
    sdk,
    ctx,
    baseUrl,
    onClientSecret: (secret: string) => {
      retrievedSecret = secret;
    },
  };
  const tokens = new TokenManager({
    store: options.tokenStore ?? new MemoryTokenStore(),
    key: tokenStoreKey(options.environment, options.clientId),
    create: () => createToken(auth),
    now: options.now,
    refreshMarginMs: options.refreshMarginSeconds * 1000,
  });
  const deps: ClientDeps = { ...auth, tokens };

  return {
    environment: options.environment,
    clientId: options.clientId,
    baseUrl,
    credentials: { list: (requestOptions) => listCredentials(auth, requestOptions) },
    tokens: {
      current: async () => ({ ...(await tokens.current()) }),
      refresh: async () => ({ ...(await tokens.refresh()) }),
      clear: () => tokens.clear(),
    },
    webhooks: webhookOperations(deps),
    transactions: {
      pennyValidation: (body, pennyOptions) => pennyValidation(deps, body, pennyOptions),
      moneyOut: (body, moneyOutOptions) => moneyOut(deps, body, moneyOutOptions),
      internalTransaction: (body, requestOptions) => internalTransaction(deps, body, requestOptions),
    },
    accounts: accountOperations(deps),
    reports: reportOperations(deps),
  };
}
