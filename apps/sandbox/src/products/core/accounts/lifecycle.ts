// The private account state machine. The reference names only ACTIVE; BLOCKED and CANCELLED are
// the sandbox's names. Cancel is permanent: nothing leaves CANCELLED.
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Account } from '../state.ts';

export type AccountAction = 'block' | 'activate' | 'cancel';

const TRANSITIONS: Record<AccountAction, { from: readonly Account['status'][]; to: Account['status']; why: string }> = {
  block: { from: ['ACTIVE'], to: 'BLOCKED', why: 'only an ACTIVE account can be blocked' },
  activate: { from: ['BLOCKED'], to: 'ACTIVE', why: 'activate restores a previously BLOCKED account' },
  cancel: { from: ['ACTIVE', 'BLOCKED'], to: 'CANCELLED', why: 'cancellation is permanent' },
};

/** Applies `action` to the client's account: 404 when it is not the client's, 400 FAILED_PRECONDITION on a wrong transition. */
export function transitionAccount(
  core: CoreService,
  clientId: string,
  accountId: string,
  action: AccountAction,
): Account {
  // sandbox choice: the lifecycle applies to every account of the client, the seeded platform
  // accounts included (not only those openPrivateAccount opens), so blocked and cancelled
  // senders and receivers can be exercised with the default seed.
  const account = core.state.accounts.get(accountId);
  // Another client's account is reported exactly like a missing one: its existence is not revealed.
  if (!account || account.clientId !== clientId) {
    throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `Account ${accountId} not found for this client.`);
  }
  const rule = TRANSITIONS[action];
  if (!rule.from.includes(account.status)) {
    throw new CoreHttpError(
      400,
      'FAILED_PRECONDITION',
      `Cannot ${action} account ${accountId}: it is ${account.status} (${rule.why}).`,
    );
  }
  account.status = rule.to;
  return account;
}
