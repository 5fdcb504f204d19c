// The three ways the store fails, as classes a caller can tell apart: the gateway answers 503 for
// StoreUnavailableError (the platform redelivers), refuses to start on StoreConfigError, and treats
// StoreInputError as its own bug (the event it built cannot be stored as given).
// AccountChangedError tells the caller its decision read an outdated account.
// No message ever carries a password: they name the database by its description.
import type { Account } from './accounts.ts';

/** The store cannot be reached / did not answer in time. The message says which database and what to check. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

/** A bad DATABASE_URL, data directory or pool setting: the message names the problem and what to do. */
export class StoreConfigError extends Error {
  override readonly name = 'StoreConfigError';
}

/** A value the store was asked to write breaks its rules (a malformed CLABE, a NUL character…): the message says which field. */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
}

/**
 * An event with an account guard was not written: the account's row is no longer the version its
 * decision read. `account` is the account as read right after (undefined: there is no such
 * account). Nothing was stored; the caller decides again on `account` and appends again with its
 * version (`account?.version ?? null`). The store takes no decision of its own.
 */
export class AccountChangedError extends Error {
  override readonly name = 'AccountChangedError';
  readonly clabe: string;
  readonly account: Account | undefined;
  constructor(clabe: string, account: Account | undefined) {
    super(`the account ${clabe} changed since the decision read it; nothing was stored: decide again and append again`);
    this.clabe = clabe;
    this.account = account;
  }
}

/** The migration files and the database disagree (a released file was edited, renamed or removed), or one failed to apply. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}
