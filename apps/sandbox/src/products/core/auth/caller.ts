// Who is calling the core service: the two bootstrap calls authenticate with x-api-key, every
// other call with the bearer token. Every failure is a 401 with the core error body, and the
// message says which of key, token, environment or credential to check.
import type { FastifyRequest } from 'fastify';
import type { SandboxClock } from '../../../clock.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreState, Environment, Token } from '../state.ts';

export interface Caller {
  clientId: string;
  environment: Environment;
  token: Token;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The environment an x-api-key belongs to, for the client in the path. */
export function requireApiKey(state: CoreState, request: FastifyRequest, clientId: string): Environment {
  const key = header(request, 'x-api-key');
  if (!key)
    throw new CoreHttpError(
      401,
      'UNAUTHORIZED',
      'Missing x-api-key header: send the API key issued at onboarding for this environment.',
    );
  for (const client of state.clients.values()) {
    for (const environment of ['staging', 'production'] as const) {
      if (client.apiKeys[environment] !== key) continue;
      if (client.clientId !== clientId)
        throw new CoreHttpError(
          401,
          'UNAUTHORIZED',
          'The x-api-key does not belong to the client in the path: check the client id.',
        );
      return environment;
    }
  }
  throw new CoreHttpError(
    401,
    'UNAUTHORIZED',
    'Invalid x-api-key: check the key and that it belongs to this environment.',
  );
}

/** The caller behind `Authorization: Bearer <token>`: missing, unknown, expired or INACTIVE → 401. */
export function requireBearer(state: CoreState, clock: SandboxClock, request: FastifyRequest): Caller {
  const authorization = header(request, 'authorization');
  const match = authorization?.match(/^Bearer\s+(\S+)$/i);
  if (!match)
    throw new CoreHttpError(
      401,
      'UNAUTHORIZED',
      'Missing bearer token: send Authorization: Bearer <ACCESS_TOKEN> from token creation.',
    );
  const token = state.tokens.get(match[1]!);
  if (!token)
    throw new CoreHttpError(401, 'UNAUTHORIZED', 'Invalid bearer token: create a new token for this environment.');
  if (token.status !== 'ACTIVE')
    throw new CoreHttpError(401, 'UNAUTHORIZED', 'The bearer token is INACTIVE: create a new token.');
  if (clock.nowMs() >= token.expiresAtMs)
    throw new CoreHttpError(
      401,
      'UNAUTHORIZED',
      'The bearer token has expired: create a new token (tokens are valid 24 hours).',
    );
  const credential = state.credentials.get(token.credentialId);
  if (!credential || credential.status !== 'ACTIVE' || credential.deletedAtMs !== null) {
    throw new CoreHttpError(
      401,
      'UNAUTHORIZED',
      'The credential behind this token is no longer active: check the credential and create a new token.',
    );
  }
  return { clientId: token.clientId, environment: token.environment, token };
}

/** A path's clientId must be the caller's own; another client's resources do not exist for it. */
export function requireOwnClient(caller: Caller, clientId: string): void {
  if (caller.clientId !== clientId) {
    throw new CoreHttpError(
      401,
      'UNAUTHORIZED',
      'The bearer token belongs to another client than the one in the path: check the client id, credential and token.',
    );
  }
}
