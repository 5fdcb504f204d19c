// The core flow (reference, "Core flow"): retrieve the credential with x-api-key (unless the
// client_secret was given), check it is ACTIVE and of the configured environment, create the
// token with x-api-key, then send `Authorization: Bearer <token>` on every other call; on 401
// create a new token and retry once, then fail naming what to check.
import {
  ApiError,
  BadRequestError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  invoke,
  abortedByCaller,
  isNone,
  type Client,
  type Environment,
  type InvokeContext,
  type RequestOptions,
  type UserAbortError,
} from '@paykit/runtime';
import { parseMexicoCityLocal, parseOffsetTimestamp } from '@paykit/domain';
import { createCredentialToken, listClientCredentials } from './generated/sdk.gen.ts';
import type { ClientCredential, ClientCredentialList } from './generated/types.gen.ts';
import { zCreateCredentialTokenResponse, zListClientCredentialsResponse } from './generated/zod.gen.ts';
import { AuthenticationError } from './errors.ts';
import type { ResolvedCoreOptions } from './options.ts';
import type { TokenManager } from './token-manager.ts';
import type { StoredToken } from './token-store.ts';

const TOKEN_LIFETIME_MS = 24 * 3600 * 1000;

/** A hey-api `auth` callback that sends only the API key (the two bootstrap calls). */
export const apiKeyAuth = (apiKey: string) => (scheme: { type: string }) =>
  scheme.type === 'apiKey' ? apiKey : undefined;
type BearerAuth = (scheme: { scheme?: string }) => string | undefined;
let lastBearer: { token: string; auth: BearerAuth } | undefined;

/** A hey-api `auth` callback that sends only the bearer token (the same callback for the same token, made once). */
export const bearerAuth = (token: string): BearerAuth => {
  if (lastBearer?.token === token) return lastBearer.auth;
  const auth: BearerAuth = (scheme) => (scheme.scheme === 'bearer' ? token : undefined);
  lastBearer = { token, auth };
  return auth;
};

export interface AuthDeps {
  options: ResolvedCoreOptions;
  sdk: Client;
  ctx: InvokeContext;
  baseUrl: string;
  /** Told the client_secret retrieved with the API key, so that it is scrubbed by value from logs and errors. */
  onClientSecret?: (secret: string) => void;
}

/** What every operation needs: the auth deps and the token lifecycle. */
export interface ClientDeps extends AuthDeps {
  tokens: TokenManager;
}

const where = (options: ResolvedCoreOptions) => `core (${options.environment})`;

/** Environments whose credentials a client of `environment` accepts: the sandbox mirrors both platform environments. */
function acceptedEnvironments(environment: Environment): readonly string[] {
  return environment === 'sandbox' ? ['staging', 'production'] : [environment];
}

/** Credential retrieval (x-api-key), uncached: the response holds client_secret. */
export async function listCredentials(deps: AuthDeps, requestOptions?: RequestOptions): Promise<ClientCredentialList> {
  const { options, sdk, ctx } = deps;
  try {
    return await invoke(
      ctx,
      'listClientCredentials',
      zListClientCredentialsResponse,
      (extra) =>
        listClientCredentials({
          client: sdk,
          path: { clientId: options.clientId },
          auth: apiKeyAuth(options.apiKey),
          ...extra,
        }),
      requestOptions,
    );
  } catch (error) {
    throw bootstrapError(deps, 'listClientCredentials', error, undefined);
  }
}

/** The credential to create tokens with: ACTIVE, not deleted, of the client's environment. */
export function selectCredential(options: ResolvedCoreOptions, list: ClientCredentialList): ClientCredential {
  const base = { environment: options.environment, clientId: options.clientId };
  // deleted_at: null, absent or "None" (the documented answer's form) all mean not deleted.
  const live = (Array.isArray(list.data) ? list.data : []).filter((c) => isNone(c.deleted_at));
  const accepted = acceptedEnvironments(options.environment);
  const ofEnvironment = live.filter((c) => accepted.includes(c.environment));
  if (live.length === 0) {
    throw new AuthenticationError(
      `${where(options)}: credential retrieval returned no credential for client ${options.clientId}. Check the client id and that the API key is the one issued for ${options.environment}; create a credential if the client has none.`,
      { ...base, reason: 'no-active-credential' },
    );
  }
  if (ofEnvironment.length === 0) {
    const others = [...new Set(live.map((c) => c.environment))].join(' and ');
    throw new AuthenticationError(
      `${where(options)}: the API key returned credentials of ${others} (${live.map((c) => c.id).join(', ')}) for client ${options.clientId}, but this client is configured for ${options.environment}. Use the API key issued for ${options.environment}, or set environment to match the key: a credential, token and environment must match.`,
      { ...base, reason: 'credential-environment', credentialId: live[0]?.id },
    );
  }
  const active = ofEnvironment.find((c) => c.status === 'ACTIVE');
  if (!active) {
    throw new AuthenticationError(
      `${where(options)}: no credential of client ${options.clientId} is ACTIVE (${ofEnvironment.map((c) => `${c.id} is ${c.status}`).join(', ')}). Activate a credential or create a new one, then retry.`,
      { ...base, reason: 'credential-inactive', credentialId: ofEnvironment[0]?.id },
    );
  }
  return active;
}

/** `expires_at` is Mexico City local time without an offset (UTC-6). Read tolerantly: an offset, if the platform adds one, is honoured; anything unreadable counts as the documented 24 h. */
function expiryOf(expiresAt: unknown, now: Date): Date {
  if (typeof expiresAt === 'string') {
    try {
      return parseMexicoCityLocal(expiresAt);
    } catch {
      try {
        return parseOffsetTimestamp(expiresAt);
      } catch {
        // drift: the tolerant reader has already reported the format
      }
    }
  }
  return new Date(now.getTime() + TOKEN_LIFETIME_MS);
}

/** Retrieves the credential when needed, creates a token and returns it as the store keeps it. */
export async function createToken(deps: AuthDeps): Promise<StoredToken> {
  const { options, sdk, ctx } = deps;
  let clientSecret = options.clientSecret;
  let credentialId: string | undefined;
  if (clientSecret === undefined) {
    const credential = selectCredential(options, await listCredentials(deps));
    clientSecret = credential.client_secret;
    credentialId = credential.id;
    if (typeof clientSecret === 'string') deps.onClientSecret?.(clientSecret);
  }
  let token;
  try {
    token = await invoke(ctx, 'createCredentialToken', zCreateCredentialTokenResponse, (extra) =>
      createCredentialToken({
        client: sdk,
        path: { clientId: options.clientId },
        body: { client_id: options.clientId, client_secret: clientSecret },
        auth: apiKeyAuth(options.apiKey),
        ...extra,
      }),
    );
  } catch (error) {
    throw bootstrapError(deps, 'createCredentialToken', error, credentialId);
  }
  credentialId = token.client_credential_id ?? credentialId;
  if (token.status !== 'ACTIVE') {
    throw new AuthenticationError(
      `${where(options)}: token creation returned a token (id ${token.id}) in status ${String(token.status)}, not ACTIVE. Check that credential ${credentialId} is ACTIVE and of ${options.environment}, then retry.`,
      {
        reason: 'token-inactive',
        environment: options.environment,
        clientId: options.clientId,
        credentialId,
        tokenId: token.id,
      },
    );
  }
  return {
    token: token.token,
    id: token.id,
    clientId: options.clientId,
    credentialId: credentialId ?? 'unknown',
    environment: options.environment,
    expiresAt: expiryOf(token.expires_at, options.now()).toISOString(),
  };
}

/** Turns an API error of a bootstrap call into an AuthenticationError that says what to check. */
function bootstrapError(deps: AuthDeps, operation: string, error: unknown, credentialId: string | undefined): unknown {
  const { options } = deps;
  if (!(error instanceof ApiError)) return error;
  const details = {
    environment: options.environment,
    clientId: options.clientId,
    credentialId,
    operation,
    status: error.status,
    requestId: error.requestId,
  };
  const call = operation === 'listClientCredentials' ? 'credential retrieval' : 'token creation';
  if (error instanceof UnauthorizedError) {
    return new AuthenticationError(
      `${where(options)}: ${call} for client ${options.clientId} answered 401 (request ${error.requestId}). Check that apiKey is the x-api-key issued to this client for ${options.environment} (keys are per environment) and that the client id is right.`,
      { ...details, reason: 'api-key-refused' },
      { cause: error },
    );
  }
  if (operation === 'listClientCredentials' && error instanceof NotFoundError) {
    return new AuthenticationError(
      `${where(options)}: credential retrieval found no ACTIVE credential for client ${options.clientId} (HTTP 404, request ${error.requestId}). Check the client id, that the API key is the one issued for ${options.environment}, and that the client has an ACTIVE credential there.`,
      { ...details, reason: 'no-active-credential' },
      { cause: error },
    );
  }
  if (operation === 'createCredentialToken' && (error instanceof BadRequestError || error instanceof NotFoundError)) {
    return new AuthenticationError(
      `${where(options)}: token creation for client ${options.clientId}${credentialId ? ` with credential ${credentialId}` : ''} was refused (HTTP ${error.status}, request ${error.requestId}): ${error.message}. Check that the client id and client secret belong to one credential, and that it is ACTIVE and of ${options.environment}.`,
      { ...details, reason: 'token-refused' },
      { cause: error },
    );
  }
  return error;
}

/**
 * Runs a bearer-authenticated call with the current token; on 401, replaces that token (once,
 * shared with concurrent callers) and runs it once more; a second 401 is an AuthenticationError.
 * The caller's signal and timeoutMs are one deadline for all of it: waiting for a token (a sign-in
 * shared with other calls goes on for them) and every request after it (`run` gets the options
 * with the call's start, so the transport counts timeoutMs from there).
 */
export async function withToken<T>(
  deps: AuthDeps,
  tokens: TokenManager,
  operation: string,
  run: (token: string, requestOptions: RequestOptions | undefined) => Promise<T>,
  requestOptions?: RequestOptions,
): Promise<T> {
  const call =
    requestOptions?.timeoutMs !== undefined && requestOptions.startedAt === undefined
      ? { ...requestOptions, startedAt: performance.now() }
      : requestOptions;
  // An already aborted call starts no sign-in: nobody would wait for it.
  if (call?.signal?.aborted)
    throw abortedByCaller(`${where(deps.options)} ${operation}`, 'before-sending', call.signal.reason);
  // The cached token needs no promise; only a replacement is awaited.
  const first = tokens.cached() ?? (await withinCall(deps, operation, tokens.current(), call));
  try {
    return await run(first.token, call);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const second = await withinCall(deps, operation, tokens.renew(first.token), call);
  try {
    return await run(second.token, call);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    const { options, baseUrl } = deps;
    throw new AuthenticationError(
      `${where(options)}: ${operation} was refused with 401 twice, with the cached token and again with a new one (token ${second.id}, request ${error.requestId}). ` +
        `Check that the environment (${options.environment}, ${baseUrl}), the client (${options.clientId}), the credential (${second.credentialId}) and the token belong together: a credential, token and environment must match.`,
      {
        reason: 'unauthorized-after-refresh',
        environment: options.environment,
        clientId: options.clientId,
        credentialId: second.credentialId,
        tokenId: second.id,
        operation,
        status: 401,
        requestId: error.requestId,
      },
      { cause: error },
    );
  }
}

/**
 * A token wait bounded by the call's signal and timeoutMs. The sign-in itself is not aborted: other
 * calls may be waiting for the same one, and it has its own per-attempt timeout.
 */
function withinCall(
  deps: AuthDeps,
  operation: string,
  pending: Promise<StoredToken>,
  call: RequestOptions | undefined,
): Promise<StoredToken> {
  const signal = call?.signal;
  const timeoutMs = call?.timeoutMs;
  if (signal === undefined && timeoutMs === undefined) return pending;
  // The shared sign-in may fail after this caller has given up on it: that failure is the other waiters' (or nobody's) to see.
  pending.catch(() => {});
  const aborted = (): UserAbortError =>
    abortedByCaller(`${where(deps.options)} ${operation}`, 'signing-in', signal?.reason);
  if (signal?.aborted) return Promise.reject(aborted());
  return new Promise<StoredToken>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      done();
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (timeoutMs !== undefined) {
      const leftMs = (call?.startedAt ?? performance.now()) + timeoutMs - performance.now();
      timer = setTimeout(
        () => {
          done();
          const { options } = deps;
          reject(
            new TimeoutError(
              `${where(options)}: ${operation} was not sent: signing in (credential retrieval and token creation for client ${options.clientId}) took longer than the call's timeoutMs of ${timeoutMs} ms — raise timeoutMs, or check that ${deps.baseUrl} is up; the sign-in goes on and later calls use its token`,
              { requestId: 'none (not sent)', timeoutMs },
            ),
          );
        },
        Math.max(0, leftMs),
      );
    }
    pending.then(
      (token) => {
        done();
        resolve(token);
      },
      (error: unknown) => {
        done();
        reject(error as Error);
      },
    );
  });
}
