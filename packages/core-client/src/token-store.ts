// Where core bearer tokens are cached. In memory by default; any store that implements TokenStore
// (a PostgreSQL table, Redis, …) lets several processes share one token instead of each creating
// its own. Values are plain JSON so a store can put them in a column as they are.
import type { Environment } from '@paykit/runtime';

/** A bearer token as the client caches it. `token` is a secret: never log a StoredToken. */
export interface StoredToken {
  /** The JWT sent as `Authorization: Bearer <token>`. Secret. */
  token: string;
  /** The token record's id (not secret; named in error messages). */
  id: string;
  clientId: string;
  /** The credential the token was created with (not secret). */
  credentialId: string;
  environment: Environment;
  /** The instant the token expires, ISO 8601 in UTC (the platform's `expires_at` read as UTC-6). */
  expiresAt: string;
}

/** Shared cache of bearer tokens, keyed by `tokenStoreKey(environment, clientId)`. */
export interface TokenStore {
  get(key: string): Promise<StoredToken | undefined>;
  set(key: string, token: StoredToken): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The key a client stores its token under: one token per environment and client. */
export function tokenStoreKey(environment: Environment, clientId: string): string {
  return `core:${environment}:${clientId.toLowerCase()}`;
}

/** The default store: one process, nothing persisted. */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredToken>();

  async get(key: string): Promise<StoredToken | undefined> {
    const token = this.#tokens.get(key);
    return token && { ...token };
  }

  async set(key: string, token: StoredToken): Promise<void> {
    this.#tokens.set(key, { ...token });
  }

  async delete(key: string): Promise<void> {
    this.#tokens.delete(key);
  }
}
