// The accounts MONEY_IN decisions read, kept in memory: a credit to an account seen before costs
// no round trip to the store (the lookup was one statement for every few deliveries, and a
// statement costs more CPU here than everything else a delivery does). A copy here may be
// outdated — another process blocked the account — and that is safe: every decision taken on it
// is committed with the account's row version (NewEvent.accountGuard), the store refuses to write
// it if the account changed, and intake.ts decides again on the account as the commit saw it
// (which then replaces the copy here). So no decision is stored on an outdated account, and
// nothing needs to tell this process that an account changed.
// decisionDeps, below, is what an evaluation decides with: the rules and these reads.
import type { Account, AccountStore } from '@paykit/store';
import type { EvaluationDeps } from './evaluate.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { MoneyInRule } from './policy.ts';

export interface AccountCache {
  /** The account as last known here, else looked up (batched with the lookups of the same tick); undefined: unknown. */
  read(clabe: string, deadline?: number): Promise<Account | undefined>;
  /** What a commit found the account to be (undefined: gone): the next read answers it. */
  remember(clabe: string, account: Account | undefined): void;
  readonly size: number;
}

export interface AccountCacheCounters {
  /** A read answered from memory. */
  hit(): void;
  /** A read that went to the store. */
  miss(): void;
}

/** Enough for every account of a large company; past it, the oldest entry makes room (a miss costs one lookup, nothing else). */
export const DEFAULT_MAX_ACCOUNTS = 100_000;

export function createAccountCache(
  store: Pick<AccountStore, 'lookup'>,
  counters: AccountCacheCounters,
  maxEntries = DEFAULT_MAX_ACCOUNTS,
): AccountCache {
  // Unknown accounts are kept too (undefined): a credit to one is judged without a lookup each time.
  // A copy that says "unknown" after another process created the account is caught like any other
  // outdated copy: the commit's guard (version null) sees the row and the credit is decided again.
  const known = new Map<string, Account | undefined>();

  const remember = (clabe: string, account: Account | undefined): void => {
    known.delete(clabe);
    if (known.size >= maxEntries) known.delete(known.keys().next().value!);
    known.set(clabe, account);
  };

  return {
    read(clabe, deadline) {
      if (known.has(clabe)) {
        counters.hit();
        return Promise.resolve(known.get(clabe));
      }
      counters.miss();
      return store.lookup(clabe, { deadline }).then((account) => {
        remember(clabe, account);
        return account;
      });
    },
    remember,
    get size() {
      return known.size;
    },
  };
}

export interface DecisionDeps {
  /** For deliveries: accounts read through the cache. */
  deps: EvaluationDeps;
  /** For the admin API's replays: a replay commits nothing, so nothing would catch an outdated copy; it reads the store itself. */
  replayDeps: EvaluationDeps;
  /** Told by each commit that changed an account, so the cache holds the new state. */
  onAccountChanged(clabe: string, account: Account | undefined): void;
}

/** What a delivery's evaluation decides with: the MONEY_IN rules and the account reads behind them (this cache for deliveries; the store itself for replays, which commit nothing). */
export function decisionDeps(
  accounts: AccountStore,
  rules: readonly MoneyInRule[],
  metrics: GatewayMetrics,
): DecisionDeps {
  const accountCache = createAccountCache(accounts, {
    hit: () => metrics.accountReads.inc({ result: 'hit' }),
    miss: () => metrics.accountReads.inc({ result: 'miss' }),
  });
  return {
    deps: { readAccount: (clabe, deadline) => accountCache.read(clabe, deadline), rules },
    replayDeps: { readAccount: (clabe, deadline) => accounts.lookup(clabe, { deadline }), rules },
    onAccountChanged: (clabe, account) => {
      metrics.accountReads.inc({ result: 'changed' });
      accountCache.remember(clabe, account);
    },
  };
}
