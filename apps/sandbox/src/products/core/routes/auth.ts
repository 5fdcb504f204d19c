// The two bootstrap calls of the core flow, authenticated by x-api-key: credential retrieval and
// token creation. The API key decides the environment; a credential, token and environment must
// match, so only that environment's credentials are listed or accepted.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  zCreateCredentialTokenBody,
  zCreateCredentialTokenPath,
  zListClientCredentialsPath,
} from '@paykit/core-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireApiKey } from '../auth/caller.ts';
import { parseBody, parsePath } from './parse.ts';
import { signToken } from '../auth/token.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Ok, Schema } from '../spec.ts';
import type { CoreState, Credential, Environment, Token } from '../state.ts';
import { isoMexicoCity, mexicoCityLocal, mexicoCityWithOffset } from '../time.ts';

interface ClientParams {
  clientId: string;
}

/** Constant-time comparison of two secrets of any length (digests have equal length). */
function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * The key's environment for the client in the path. An unknown client is a 404 only for a caller
 * that holds a valid key (of another client): without one, the answer stays 401 and reveals nothing.
 */
function environmentOf(state: CoreState, request: FastifyRequest, clientId: string): Environment {
  if (!state.clients.has(clientId)) {
    const key = request.headers['x-api-key'];
    const valid =
      typeof key === 'string' &&
      [...state.clients.values()].some((c) => c.apiKeys.staging === key || c.apiKeys.production === key);
    if (valid)
      throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', 'Client not found: check the client id issued at onboarding.');
  }
  return requireApiKey(state, request, clientId);
}

function renderCredential(credential: Credential, apiKey: string): Schema<'ClientCredential'> {
  return {
    id: credential.id,
    client_id: credential.clientId,
    client_secret: credential.clientSecret,
    environment: credential.environment,
    status: credential.status,
    created_at: isoMexicoCity(credential.createdAtMs),
    updated_at: isoMexicoCity(credential.updatedAtMs),
    // A live credential answers the string "None", as the platform's quickstart shows it.
    deleted_at: credential.deletedAtMs === null ? 'None' : isoMexicoCity(credential.deletedAtMs),
    // sandbox choice: the environment always returns api_key (the reference: "present when the
    // environment returns it"), the key of the environment the caller authenticated for.
    api_key: apiKey,
  };
}

function renderToken(token: Token): Schema<'AuthenticationToken'> {
  return {
    id: token.id,
    client_id: token.clientId,
    client_credential_id: token.credentialId,
    token: token.token,
    status: token.status,
    // Mexico City local time WITHOUT an offset, as the reference shows it (parse as UTC-6).
    expires_at: mexicoCityLocal(token.expiresAtMs),
    created_at: mexicoCityWithOffset(token.createdAtMs),
    updated_at: mexicoCityWithOffset(token.createdAtMs),
    // As the platform's quickstart shows a live token.
    deleted_at: 'None',
  };
}

export function registerAuthRoutes(app: FastifyInstance, core: CoreService): void {
  app.get<{ Params: ClientParams }>('/v1/clients/:clientId/credentials', async (request) => {
    const { clientId } = parsePath(zListClientCredentialsPath, request.params);
    const state = core.state;
    const environment = environmentOf(state, request, clientId);
    const client = state.clients.get(clientId)!;
    // sandbox choice: deleted credentials are not listed; INACTIVE ones are (with their status).
    const credentials = [...state.credentials.values()].filter(
      (c) => c.clientId === clientId && c.environment === environment && c.deletedAtMs === null,
    );
    if (!credentials.some((c) => c.status === 'ACTIVE')) {
      throw new CoreHttpError(
        404,
        'RESOURCE_NOT_FOUND',
        `No ACTIVE credential for this client in ${environment}: check the client id and that the API key is for the right environment.`,
      );
    }
    return {
      data: credentials.map((c) => renderCredential(c, client.apiKeys[environment])),
    } satisfies Ok<'listClientCredentials'>;
  });

  app.post<{ Params: ClientParams }>('/v1/clients/:clientId/auth/credential-tokens', async (request) => {
    const { clientId } = parsePath(zCreateCredentialTokenPath, request.params);
    const state = core.state;
    const environment = requireApiKey(state, request, clientId);
    const body = parseBody(zCreateCredentialTokenBody, request.body, 'Token creation');
    if (body.client_id !== clientId) {
      throw new CoreHttpError(400, 'DATA_ERROR', 'client_id in the body must be the client id in the path.');
    }
    const credential = [...state.credentials.values()].find(
      (c) => c.clientId === clientId && sameSecret(c.clientSecret, body.client_secret),
    );
    if (!credential) {
      throw new CoreHttpError(
        400,
        'DATA_ERROR',
        'client_secret does not match a credential of this client: retrieve the credentials again.',
      );
    }
    if (credential.deletedAtMs !== null) {
      throw new CoreHttpError(
        400,
        'FAILED_PRECONDITION',
        `Credential ${credential.id} is deleted: retrieve the credentials again.`,
      );
    }
    if (credential.environment !== environment) {
      throw new CoreHttpError(
        400,
        'FAILED_PRECONDITION',
        `Credential ${credential.id} belongs to ${credential.environment} but the API key is for ${environment}: a credential, token and environment must match.`,
      );
    }
    if (credential.status !== 'ACTIVE') {
      throw new CoreHttpError(
        400,
        'FAILED_PRECONDITION',
        `Credential ${credential.id} is INACTIVE: use an ACTIVE credential.`,
      );
    }

    const nowMs = core.runtime.clock.nowMs();
    const expiresAtMs = nowMs + core.runtime.settings.core.tokenTtlSeconds * 1000;
    const id = core.runtime.random.uuid();
    const jwt = signToken(core, {
      sub: clientId,
      env: environment,
      cred: credential.id,
      iat: Math.floor(nowMs / 1000),
      exp: Math.floor(expiresAtMs / 1000),
      jti: id,
    });
    // sandbox choice: creating a token leaves earlier tokens valid until they expire.
    const token: Token = {
      id,
      clientId,
      credentialId: credential.id,
      environment,
      token: jwt,
      status: 'ACTIVE',
      createdAtMs: nowMs,
      expiresAtMs,
    };
    state.tokens.set(jwt, token);
    core.runtime.counters.tokenCreations++;
    return renderToken(token) satisfies Ok<'createCredentialToken'>;
  });
}
