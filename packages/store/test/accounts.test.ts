import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountStore, StoreInputError, StoreUnavailableError } from '../src/index.ts';
import type { AccountStore, Database } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';

/** A test that opens a second database of its kind: PGlite takes seconds to start on a busy machine. */
const OPENS_ANOTHER = 30_000;

const ACTIVE = '646180110400000007';
const BLOCKED = '012180001234567891';
const LIMITED = '072180005555555553';
/** Written by the add test only. */
const ADDED = '646180000000000999';

/** The real database, with every query() counted: proves how many statements the lookups cost. */
function counting(db: Database): { db: Database; queries: string[] } {
  const queries: string[] = [];
  const wrapped: Database = {
    kind: db.kind,
    description: db.description,
    query: (sql, params) => {
      queries.push(sql);
      return db.query(sql, params);
    },
    transaction: (fn) => db.transaction(fn),
    ping: (timeoutMs) => db.ping(timeoutMs),
    close: () => db.close(),
  };
  return { db: wrapped, queries };
}

for (const kind of testDatabases()) {
  describe(`accounts on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let accounts: AccountStore;
    let queries: string[];
    beforeAll(async () => {
      opened = await kind.open();
      const wrapped = counting(opened.db);
      queries = wrapped.queries;
      accounts = createAccountStore(wrapped.db);
      await accounts.upsert({ clabe: ACTIVE, ownerId: 'owner-1', status: 'ACTIVE', creditLimit: null });
      await accounts.upsert({ clabe: BLOCKED, ownerId: null, status: 'BLOCKED', creditLimit: '0.00' });
      await accounts.upsert({
        clabe: LIMITED,
        ownerId: 'owner-2',
        status: 'ACTIVE',
        creditLimit: '9999999999999999.99',
      });
    });
    afterAll(() => opened.drop());

    it('adds an account as ACTIVE, and on a known one sets only the owner and limit given, never its status', async () => {
      const clabe = ADDED;
      const first = await accounts.add({ clabe, ownerId: 'acme-1' });
      expect(first.added).toBe(true);
      expect(first.account).toMatchObject({ clabe, status: 'ACTIVE', ownerId: 'acme-1', creditLimit: null });
      await accounts.setStatus(clabe, 'BLOCKED');
      const again = await accounts.add({ clabe, creditLimit: '50000.00' });
      expect(again.added).toBe(false);
      expect(again.account).toMatchObject({ status: 'BLOCKED', ownerId: 'acme-1', creditLimit: '50000.00' });
      // A block landing between another writer's read and its add is kept: add never writes status.
      await Promise.all([accounts.setStatus(clabe, 'CANCELLED'), accounts.add({ clabe, ownerId: 'acme-2' })]);
      expect(await accounts.get(clabe)).toMatchObject({ status: 'CANCELLED', ownerId: 'acme-2' });
      await expect(accounts.add({ clabe: '12345' })).rejects.toThrow(StoreInputError);
    });

    it('upserts and reads back, money as an exact decimal string', async () => {
      const first = await accounts.get(LIMITED);
      expect(first).toEqual({
        clabe: LIMITED,
        ownerId: 'owner-2',
        status: 'ACTIVE',
        creditLimit: '9999999999999999.99',
        updatedAt: expect.any(Date),
        version: expect.stringMatching(/^\d+$/),
      });
      const replaced = await accounts.upsert({
        clabe: LIMITED,
        ownerId: 'owner-3',
        status: 'ACTIVE',
        creditLimit: '15000.50',
      });
      expect(replaced).toMatchObject({ ownerId: 'owner-3', creditLimit: '15000.50' });
      // Every write gives the row a new version: what an append's account guard compares.
      expect(replaced.version).not.toBe(first!.version);
      expect(await accounts.get(LIMITED)).toEqual(replaced);
      expect(await accounts.get('000000000000000000')).toBeUndefined();
      expect(await accounts.get('not a clabe')).toBeUndefined();
    });

    it('changes the status, and answers undefined for an unknown account', async () => {
      const blocked = await accounts.setStatus(ACTIVE, 'BLOCKED');
      expect(blocked).toMatchObject({ clabe: ACTIVE, status: 'BLOCKED', ownerId: 'owner-1' });
      const active = await accounts.setStatus(ACTIVE, 'ACTIVE');
      expect(active!.updatedAt.getTime()).toBeGreaterThanOrEqual(blocked!.updatedAt.getTime());
      expect(active!.version).not.toBe(blocked!.version);
      expect(await accounts.lookup(ACTIVE)).toEqual(active);
      expect(await accounts.setStatus('111111111111111111', 'CANCELLED')).toBeUndefined();
      await expect(accounts.setStatus(ACTIVE, 'FROZEN' as never)).rejects.toThrow(
        /status must be one of 'ACTIVE', 'BLOCKED', 'CANCELLED', got "FROZEN"/,
      );
    });

    it('answers every lookup made in the same tick with ONE query', async () => {
      const before = queries.length;
      const asked = [ACTIVE, BLOCKED, ACTIVE, '999999999999999999', LIMITED, 'malformed', BLOCKED];
      const found = await Promise.all(asked.map((clabe) => accounts.lookup(clabe)));
      expect(queries.length - before).toBe(1);
      expect(queries.at(-1)).toContain('clabe = ANY($1::text[])');
      expect(found.map((account) => account?.status)).toEqual([
        'ACTIVE',
        'BLOCKED',
        'ACTIVE',
        undefined,
        'ACTIVE',
        undefined,
        'BLOCKED',
      ]);

      // The next tick is a new batch, and sees a status change at once (nothing is cached).
      await accounts.setStatus(BLOCKED, 'CANCELLED');
      const again = await Promise.all([accounts.lookup(BLOCKED), accounts.lookup(ACTIVE)]);
      expect(again.map((account) => account?.status)).toEqual(['CANCELLED', 'ACTIVE']);
      expect(queries.length - before).toBe(3);
    });

    it(
      'rejects every waiting lookup when its query fails',
      async () => {
        const spare = await kind.open();
        const store = createAccountStore(spare.db);
        await spare.db.close();
        const results = await Promise.allSettled([store.lookup(ACTIVE), store.lookup(BLOCKED)]);
        expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
        await spare.drop();
      },
      OPENS_ANOTHER,
    );

    it('rejects a lookup past its deadline with StoreUnavailableError, and answers one within it', async () => {
      await expect(accounts.lookup(ACTIVE, { deadline: performance.now() - 1 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      expect(await accounts.lookup(ACTIVE, { deadline: performance.now() + 5_000 })).toMatchObject({
        status: 'ACTIVE',
      });
    });

    it('lists every account by CLABE', async () => {
      const known = new Set([BLOCKED, LIMITED, ACTIVE, ADDED]);
      const listed = (await accounts.list()).map((account) => account.clabe);
      expect(listed.filter((clabe) => known.has(clabe) && clabe !== ADDED)).toEqual([BLOCKED, LIMITED, ACTIVE].sort());
      expect(listed).toEqual([...listed].sort());
      expect(listed.every((clabe) => known.has(clabe))).toBe(true);
    });

    it('refuses a malformed CLABE without repeating it', async () => {
      const cases: [unknown, RegExp][] = [
        ['6461801104000000', /clabe must be exactly 18 digits, this one has 16 characters$/],
        ['646 180 110 400 000 007', /has 23 characters: remove spaces and dashes/],
        ['64618011040000000A', /characters other than digits/],
        [12180001234, /clabe must be a string of 18 digits, got number \(a number loses leading zeros\)/],
      ];
      for (const [clabe, message] of cases) {
        const error = await accounts
          .upsert({ clabe: clabe as string, ownerId: null, status: 'ACTIVE', creditLimit: null })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreInputError);
        expect((error as Error).message).toMatch(message);
        expect((error as Error).message).not.toContain('6461801104');
      }
    });

    it('refuses money that is not a two-decimal string', async () => {
      const cases: [unknown, RegExp][] = [
        [
          1500.5,
          /creditLimit must be a decimal string .* got the number 1500\.5 \(money is never a float: pass "1500\.50"\)/,
        ],
        ['1500.5', /exactly two decimals .* got "1500\.5"/],
        ['1,500.00', /no commas or currency sign/],
        ['-1.00', /not negative/],
        ['$10.00', /got "\$10\.00"/],
        ['10000000000000000.00', /at most 16 digits before the point/],
        ['01.00', /got "01\.00"/],
      ];
      for (const [creditLimit, message] of cases) {
        await expect(
          accounts.upsert({ clabe: ACTIVE, ownerId: null, status: 'ACTIVE', creditLimit: creditLimit as string }),
        ).rejects.toThrow(message);
      }
      expect((await accounts.get(ACTIVE))!.creditLimit).toBeNull();
    });
  });
}
