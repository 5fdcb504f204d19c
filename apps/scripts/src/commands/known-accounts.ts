// The accounts the gateway knows (the store's `accounts` table): the CLABEs of ours that a MONEY_IN
// may credit. A credit to an account not listed here is held (GATEWAY_UNKNOWN_ACCOUNT=hold), one to
// a blocked or cancelled account refused or held by the gateway's rules. The gateway reads every
// change at its next decision (its copies in memory never decide a credit on an outdated account).
import type { Account, AccountStatus } from '@paykit/store';
import * as z from 'zod';
import type { Context } from '../cli/context.ts';
import { UsageError } from '../cli/errors.ts';
import { Amount, Clabe, flag, optionalFlag } from '../cli/input.ts';
import { withDatabase } from './ledger.ts';

const OwnerId = z.string().regex(/^[\w.:@-]{1,200}$/, 'is an owner id: letters, digits and . : @ _ -, up to 200');

const shown = (account: Account) => ({
  clabe: account.clabe,
  status: account.status,
  owner: account.ownerId,
  creditLimit: account.creditLimit,
  updatedAt: account.updatedAt.toISOString(),
});

/** `paykit known-accounts list`: every known account, by CLABE. */
export async function knownAccountsList(ctx: Context): Promise<void> {
  await withDatabase(ctx, async (db, store) => {
    const accounts = await store.createAccountStore(db).list();
    if (accounts.length === 0)
      ctx.out.note('No known accounts: every credit is held until its account is added (`paykit known-accounts add`).');
    ctx.out.result(ctx.out.json ? accounts : accounts.map(shown));
  });
}

/**
 * `paykit known-accounts add <clabe>`: a new account is ACTIVE; an account already known keeps its
 * status and takes the owner and credit limit given (the ones not given stay as they are).
 */
export async function knownAccountsAdd(
  ctx: Context,
  clabe: string,
  options: { owner?: string; creditLimit?: string },
): Promise<void> {
  flag(Clabe, 'CLABE', clabe);
  optionalFlag(OwnerId, '--owner', options.owner);
  optionalFlag(Amount, '--credit-limit', options.creditLimit);
  await withDatabase(ctx, async (db, store) => {
    const { account, added } = await store.createAccountStore(db).add({
      clabe,
      ...(options.owner === undefined ? {} : { ownerId: options.owner }),
      ...(options.creditLimit === undefined ? {} : { creditLimit: options.creditLimit }),
    });
    ctx.out.result(ctx.out.json ? account : shown(account));
    ctx.out.note(
      added
        ? 'Added. Credits held because it was unknown stay held until released: `paykit held list`, then `paykit held release <seq>`.'
        : `Updated: it stays ${account.status}.`,
    );
  });
}

/** `paykit known-accounts block|activate|cancel <clabe>`. */
export function knownAccountsSetStatus(status: AccountStatus) {
  return async (ctx: Context, clabe: string): Promise<void> => {
    flag(Clabe, 'CLABE', clabe);
    await withDatabase(ctx, async (db, store) => {
      const account = await store.createAccountStore(db).setStatus(clabe, status);
      if (account === undefined)
        throw new UsageError(
          'That CLABE is not a known account: `paykit known-accounts list` shows them, `paykit known-accounts add <clabe>` adds one.',
        );
      ctx.out.result(ctx.out.json ? account : shown(account));
    });
  };
}
