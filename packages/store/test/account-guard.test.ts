// Appends whose decision read an account (NewEvent.accountGuard), on a real database: committed
// as decided while the account is as read; refused with AccountChangedError, nothing written and
// the account as it is now in hand, when another connection changed it in between, so the caller
// decides again; never stored with a decision older than its commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountChangedError,
  createAccountStore,
  createEventStore,
  openDatabase,
  StoreInputError,
} from '../src/index.ts';
import type { Account, AccountStore, Database, EventStore, NewEvent } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

const CLABE = '646180110400000007';
const OTHER = '646180110400000010';

const ACCEPTED = { outcome: 'accepted', reason: null, answerStatus: 201, refundReason: null } as const;
const REFUSED = {
  outcome: 'rejected',
  reason: 'account not active',
  answerStatus: 422,
  refundReason: 'Beneficiary account blocked',
} as const;

/** A rule in miniature: accepted while the account exists and is active. */
const decide = (account: Account | undefined) => (account?.status === 'ACTIVE' ? ACCEPTED : REFUSED);

for (const kind of testDatabases()) {
  describe(`account guards on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let store: EventStore;
    let accounts: AccountStore;
    /** Another connection (PostgreSQL: another pool, as another process would have); PGlite has only one. */
    let other: Database;
    let otherAccounts: AccountStore;
    beforeAll(async () => {
      opened = await kind.open();
      store = createEventStore(opened.db);
      accounts = createAccountStore(opened.db);
      other = opened.url === undefined ? opened.db : await openDatabase({ databaseUrl: opened.url });
      otherAccounts = createAccountStore(other);
    });
    afterAll(async () => {
      await store?.close();
      if (other !== opened.db) await other?.close();
      await opened?.drop();
    });

    /** An event decided on `account` as read, guarded by its version. */
    const guarded = (account: Account | undefined, overrides: Partial<NewEvent> = {}, clabe = CLABE): NewEvent =>
      newEvent({
        ...decide(account),
        accountGuard: { clabe: account?.clabe ?? clabe, version: account?.version ?? null },
        ...overrides,
      });

    /**
     * What a caller does (the gateway's intake): appends the event decided on `read`; while the store
     * answers AccountChangedError, decides again on the account it carries and appends again.
     * `seen` collects the accounts decided again on.
     */
    const appendDecided = async (
      read: Account | undefined,
      seen: (Account | undefined)[],
      overrides: Partial<NewEvent> = {},
      clabe = CLABE,
    ) => {
      let event = guarded(read, overrides, clabe);
      for (;;) {
        try {
          return await store.append(event);
        } catch (error) {
          if (!(error instanceof AccountChangedError)) throw error;
          expect(error.clabe).toBe(clabe);
          seen.push(error.account);
          event = {
            ...event,
            ...guarded(error.account, overrides, clabe),
            dedupeKey: event.dedupeKey,
            idMsg: event.idMsg,
          };
        }
      }
    };

    it('commits the decision as taken while the account is as it was read', async () => {
      const account = await accounts.upsert({ clabe: CLABE, ownerId: null, status: 'ACTIVE', creditLimit: null });
      const seen: (Account | undefined)[] = [];
      const result = await appendDecided(account, seen);
      expect(result).toMatchObject({ inserted: true, ...ACCEPTED });
      expect(seen).toEqual([]);
    });

    it('refuses the event with the account as it is now when another connection changed it after it was read, writing nothing', async () => {
      const read = (await accounts.get(CLABE))!;
      const blocked = (await otherAccounts.setStatus(CLABE, 'BLOCKED'))!;
      const event = guarded(read);
      const refused = await store.append(event).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AccountChangedError);
      expect(refused).toMatchObject({ clabe: CLABE, account: blocked });
      expect(await store.getByDedupeKey(event.dedupeKey)).toBeUndefined();

      const seen: (Account | undefined)[] = [];
      const result = await appendDecided(read, seen, { dedupeKey: event.dedupeKey, idMsg: event.idMsg });
      expect(seen).toEqual([blocked]);
      expect(result).toMatchObject({ inserted: true, ...REFUSED });
      expect(await store.getByDedupeKey(event.dedupeKey)).toMatchObject({ ...REFUSED, deliveries: 1 });
      await otherAccounts.setStatus(CLABE, 'ACTIVE');
    });

    it('sees an account created after a decision read it as unknown, and one deleted after it was read', async () => {
      const created: (Account | undefined)[] = [];
      const upserted = await otherAccounts.upsert({ clabe: OTHER, ownerId: null, status: 'ACTIVE', creditLimit: null });
      expect(await appendDecided(undefined, created, {}, OTHER)).toMatchObject(ACCEPTED);
      expect(created).toEqual([upserted]);

      const deleted: (Account | undefined)[] = [];
      await other.query('DELETE FROM accounts WHERE clabe = $1', [OTHER]);
      expect(await appendDecided(upserted, deleted, {}, OTHER)).toMatchObject(REFUSED);
      expect(deleted).toEqual([undefined]);
    });

    it('decides again only the event whose account changed, in a batch with others', async () => {
      const read = (await accounts.get(CLABE))!;
      await otherAccounts.setStatus(CLABE, 'CANCELLED');
      const seen: (Account | undefined)[] = [];
      const current = (await accounts.get(CLABE))!;
      const [fresh, stale, plain] = await Promise.all([
        appendDecided(current, []),
        appendDecided(read, seen),
        store.append(newEvent()),
      ]);
      expect(fresh).toMatchObject({ inserted: true, ...REFUSED });
      expect(stale).toMatchObject({ inserted: true, ...REFUSED });
      expect(plain).toMatchObject({ inserted: true, ...ACCEPTED });
      expect(seen.map((account) => account?.status)).toEqual(['CANCELLED']);
      // The redecided event was stored after the others: its seq was drawn by the statement that wrote it.
      expect(BigInt(stale.seq)).toBeGreaterThan(BigInt(plain.seq));
      await otherAccounts.setStatus(CLABE, 'ACTIVE');
    });

    it('answers a repeat of a stored event with its first decision, even when decided again on a changed account', async () => {
      const read = (await accounts.get(CLABE))!;
      const first = guarded(read);
      expect(await store.append(first)).toMatchObject({ inserted: true, ...ACCEPTED });
      await otherAccounts.setStatus(CLABE, 'BLOCKED');
      const seen: (Account | undefined)[] = [];
      const repeat = await appendDecided(read, seen, { dedupeKey: first.dedupeKey, idMsg: first.idMsg });
      expect(seen).toHaveLength(1);
      expect(repeat).toMatchObject({ inserted: false, deliveries: 2, ...ACCEPTED });
      await otherAccounts.setStatus(CLABE, 'ACTIVE');
    });

    it('refuses a malformed guard with StoreInputError, before anything is written', async () => {
      const cases: [unknown, RegExp][] = [
        [{ clabe: CLABE, version: 'v1' }, /accountGuard\.version must be the account's version as read/],
        [{ clabe: 7, version: null }, /accountGuard\.clabe must be a string/],
        ['yes', /accountGuard must be \{ clabe, version \}/],
      ];
      for (const [accountGuard, message] of cases) {
        const event = newEvent({ accountGuard: accountGuard as never });
        await expect(store.append(event)).rejects.toThrow(message);
        await expect(store.append(event)).rejects.toBeInstanceOf(StoreInputError);
        expect(await store.getByDedupeKey(event.dedupeKey)).toBeUndefined();
      }
    });
  });
}
