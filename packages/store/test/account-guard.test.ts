// Appends whose decision read an account (NewEvent.accountGuard), on a real database: committed
// as decided while the account is as read, decided again on the account as it is now when another
// connection changed it in between, and never stored with a decision older than its commit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountStore, createEventStore, openDatabase, StoreInputError } from '../src/index.ts';
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

    /** An event decided on `account` as read, guarded by its version; `seen` collects every redecision. */
    const guarded = (
      account: Account | undefined,
      seen: (Account | undefined)[],
      overrides: Partial<NewEvent> = {},
    ): NewEvent =>
      newEvent({
        ...decide(account),
        accountGuard: {
          clabe: account?.clabe ?? CLABE,
          version: account?.version ?? null,
          redecide: (now) => {
            seen.push(now);
            return decide(now);
          },
        },
        ...overrides,
      });

    it('commits the decision as taken while the account is as it was read', async () => {
      const account = await accounts.upsert({ clabe: CLABE, ownerId: null, status: 'ACTIVE', creditLimit: null });
      const seen: (Account | undefined)[] = [];
      const result = await store.append(guarded(account, seen));
      expect(result).toMatchObject({ inserted: true, ...ACCEPTED });
      expect(seen).toEqual([]);
    });

    it('decides again when another connection changed the account after it was read, and stores only the new decision', async () => {
      const read = (await accounts.get(CLABE))!;
      const blocked = (await otherAccounts.setStatus(CLABE, 'BLOCKED'))!;
      const seen: (Account | undefined)[] = [];
      const event = guarded(read, seen);
      const result = await store.append(event);
      expect(seen).toEqual([blocked]);
      expect(result).toMatchObject({ inserted: true, ...REFUSED });
      expect(await store.getByDedupeKey(event.dedupeKey)).toMatchObject({ ...REFUSED, deliveries: 1 });
      await otherAccounts.setStatus(CLABE, 'ACTIVE');
    });

    it('sees an account created after a decision read it as unknown, and one deleted after it was read', async () => {
      const created: (Account | undefined)[] = [];
      const upserted = await otherAccounts.upsert({ clabe: OTHER, ownerId: null, status: 'ACTIVE', creditLimit: null });
      expect(
        await store.append(
          guarded(undefined, created, {
            accountGuard: { clabe: OTHER, version: null, redecide: (now) => (created.push(now), decide(now)) },
          }),
        ),
      ).toMatchObject(ACCEPTED);
      expect(created).toEqual([upserted]);

      const deleted: (Account | undefined)[] = [];
      await other.query('DELETE FROM accounts WHERE clabe = $1', [OTHER]);
      expect(await store.append(guarded(upserted, deleted))).toMatchObject(REFUSED);
      expect(deleted).toEqual([undefined]);
    });

    it('decides again only the event whose account changed, in a batch with others', async () => {
      const read = (await accounts.get(CLABE))!;
      await otherAccounts.setStatus(CLABE, 'CANCELLED');
      const seen: (Account | undefined)[] = [];
      const current = (await accounts.get(CLABE))!;
      const [fresh, stale, plain] = await Promise.all([
        store.append(guarded(current, [])),
        store.append(guarded(read, seen)),
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
      const first = guarded(read, []);
      expect(await store.append(first)).toMatchObject({ inserted: true, ...ACCEPTED });
      await otherAccounts.setStatus(CLABE, 'BLOCKED');
      const seen: (Account | undefined)[] = [];
      const repeat = await store.append({ ...guarded(read, seen), dedupeKey: first.dedupeKey, idMsg: first.idMsg });
      expect(seen).toHaveLength(1);
      expect(repeat).toMatchObject({ inserted: false, deliveries: 2, ...ACCEPTED });
      await otherAccounts.setStatus(CLABE, 'ACTIVE');
    });

    it('refuses a malformed guard with StoreInputError, before anything is written', async () => {
      const cases: [unknown, RegExp][] = [
        [{ clabe: CLABE, version: '12' }, /accountGuard\.redecide must be a function/],
        [
          { clabe: CLABE, version: 'v1', redecide: decide },
          /accountGuard\.version must be the account's version as read/,
        ],
        [{ clabe: 7, version: null, redecide: decide }, /accountGuard\.clabe must be a string/],
        ['yes', /accountGuard must be \{ clabe, version, redecide \}/],
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
