// The bearer token's lifecycle: cached (in this process, and in the token store for others),
// replaced a margin before it expires, and replaced at most once at a time however many calls
// are waiting for it. A 401 replaces only the token that was refused: calls that saw the same
// refusal share one replacement, and a token someone else already replaced is not replaced again.
import type { StoredToken, TokenStore } from './token-store.ts';

export interface TokenManagerOptions {
  store: TokenStore;
  key: string;
  /** Creates a new token on the platform (credential retrieval and token creation). */
  create: () => Promise<StoredToken>;
  now: () => Date;
  refreshMarginMs: number;
}

export class TokenManager {
  readonly #options: TokenManagerOptions;
  /** This process's copy: most calls read it and never touch the store. */
  #local: StoredToken | undefined;
  /** The one replacement under way, shared by every caller that needs a token meanwhile. */
  #inflight: Promise<StoredToken> | undefined;
  /** The last `expiresAt` read and its time (it is the same string on every call until the token changes). */
  #parsedText: string | undefined;
  #parsedMs = Number.NaN;

  constructor(options: TokenManagerOptions) {
    this.#options = options;
  }

  /** A token that is not within the refresh margin of its expiry (creating one when needed). */
  async current(): Promise<StoredToken> {
    return this.cached() ?? this.#single(() => this.#obtain(undefined));
  }

  /** This process's token when it is not within the refresh margin of its expiry (no store, no promise); else undefined. */
  cached(): StoredToken | undefined {
    const local = this.#local;
    return local && this.#fresh(local) ? local : undefined;
  }

  /**
   * After a 401 with `refused`: a token other than it. Joins a replacement already under way; if
   * that one ends with the same refused token (it came from the store), replaces it once more.
   */
  async renew(refused: string): Promise<StoredToken> {
    const local = this.#local;
    if (local && local.token !== refused && this.#fresh(local)) return local;
    const next = await this.#single(() => this.#obtain(refused));
    if (next.token !== refused) return next;
    return this.#single(() => this.#obtain(refused));
  }

  /** Creates a new token whatever the cache holds (joins a replacement already under way). */
  async refresh(): Promise<StoredToken> {
    const refused = this.#local?.token;
    return this.#single(() => this.#obtain(refused, true));
  }

  /** Forgets the cached token here and in the store. */
  async clear(): Promise<void> {
    this.#local = undefined;
    await this.#options.store.delete(this.#options.key);
  }

  #fresh(token: StoredToken): boolean {
    const text = token.expiresAt;
    if (text !== this.#parsedText) {
      this.#parsedMs = Date.parse(text);
      this.#parsedText = text;
    }
    const expiresAtMs = this.#parsedMs;
    return Number.isFinite(expiresAtMs) && this.#options.now().getTime() < expiresAtMs - this.#options.refreshMarginMs;
  }

  #single(run: () => Promise<StoredToken>): Promise<StoredToken> {
    // Set synchronously (no await before it in the callers), so concurrent callers find it.
    this.#inflight ??= run().finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  async #obtain(refused: string | undefined, force = false): Promise<StoredToken> {
    const { store, key, create } = this.#options;
    if (!force) {
      // Another process may have replaced the token already.
      const shared = await store.get(key);
      if (shared && shared.token !== refused && this.#fresh(shared)) {
        this.#local = shared;
        return shared;
      }
    }
    const created = await create();
    await store.set(key, created);
    this.#local = created;
    return created;
  }
}
