// What a delivery's evaluation decides with: the MONEY_IN rules and the account reads behind them
// (a cache fed by each commit for deliveries; the store itself for replays, which commit nothing).
import type { Account, AccountStore } from '@paykit/store';
import { createAccountCache } from './account-cache.ts';
import type { EvaluationDeps } from './evaluate.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { MoneyInRule } from './policy.ts';

export interface DecisionDeps {
  /** For deliveries: accounts read through the cache. */
  deps: EvaluationDeps;
  /** For the admin API's replays: a replay commits nothing, so nothing would catch an outdated copy; it reads the store itself. */
  replayDeps: EvaluationDeps;
  /** Told by each commit that changed an account, so the cache holds the new state. */
  onAccountChanged(clabe: string, account: Account | undefined): void;
}

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
