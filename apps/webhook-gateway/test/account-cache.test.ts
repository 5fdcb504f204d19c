// The accounts MONEY_IN decisions read are kept in memory, and an account another process changes
// is still never judged as it was: the commit's account guard catches the change, the credit is
// decided again on the account as it is, and that decision is the one stored, answered and counted.
import { openDatabase, createAccountStore, type AccountStore, type Database } from '@paykit/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountCache } from '../src/account-cache.ts';
import {
  CLABES,
  TOKENS,
  bearer,
  databaseKinds,
  moneyInEnvelope,
  post,
  startTestGateway,
  type TestGateway,
} from './helpers.ts';

const FRESH = '646180000000000067';

describe.each(databaseKinds)('accounts kept in memory on $name', (kind) => {
  let t: TestGateway;
  /** Another connection to the gateway's database (PostgreSQL: its own pool, as another process has; PGlite has one connection). */
  let other: Database;
  let otherAccounts: AccountStore;
  beforeAll(async () => {
    t = await startTestGateway(kind);
    other = t.dbUrl === undefined ? t.db : await openDatabase({ databaseUrl: t.dbUrl });
    otherAccounts = createAccountStore(other);
    await otherAccounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterAll(async () => {
    if (other !== undefined && other !== t?.db) await other.close();
    await t?.close();
  });

  const credit = async (body: Record<string, unknown> = {}) => {
    const delivery = moneyInEnvelope(body);
    const answer = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(delivery), bearer());
    return { ...answer, stored: await t.gateway.events.getByDedupeKey(`core:MONEY_IN:${delivery.id_msg as string}`) };
  };
  const metric = async (pattern: RegExp): Promise<number> =>
    Number(pattern.exec(await (await fetch(`${t.url}/metrics`)).text())?.[1] ?? 0);
  const reads = (result: string) =>
    metric(new RegExp(`^gateway_account_reads_total\\{result="${result}"\\} (\\d+)$`, 'm'));

  it('looks an account up once, then answers credits to it from memory', async () => {
    const [hits, misses] = [await reads('hit'), await reads('miss')];
    for (let i = 0; i < 3; i++) expect((await credit()).status).toBe(201);
    expect(await reads('miss')).toBe(misses + 1);
    expect(await reads('hit')).toBe(hits + 2);
  });

  it('refuses the very next credit to an account another process blocked, stored and counted with the new decision', async () => {
    expect((await credit()).status).toBe(201);
    const changed = await reads('changed');
    await otherAccounts.setStatus(CLABES.acme, 'BLOCKED');

    const refused = await credit();
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ refundReason: 'Beneficiary account blocked' });
    expect(refused.stored).toMatchObject({
      outcome: 'rejected',
      answerStatus: 422,
      refundReason: 'Beneficiary account blocked',
    });
    expect(refused.stored!.reason).toMatch(/BLOCKED/);
    expect(await reads('changed')).toBe(changed + 1);
    expect(
      await metric(/^gateway_money_in_decisions_total\{decision="rejected",rule="account-blocked"\} (\d+)$/m),
    ).toBe(1);

    // The copy in memory is the new account now: the next credit needs no second decision.
    expect((await credit()).status).toBe(422);
    expect(await reads('changed')).toBe(changed + 1);
    await otherAccounts.setStatus(CLABES.acme, 'ACTIVE');
    expect((await credit()).status).toBe(201);
  });

  it('accepts at once a credit to an account another process created after a credit to it was held as unknown', async () => {
    const unknown = await credit({ beneficiary_account: FRESH });
    expect(unknown.status).toBe(202);
    expect(unknown.stored).toMatchObject({ outcome: 'stored', answerStatus: 202, refundReason: null });
    expect(unknown.stored!.reason).toMatch(/not among the accounts the store knows/);
    await otherAccounts.upsert({ clabe: FRESH, ownerId: null, status: 'ACTIVE', creditLimit: '100.00' });
    const accepted = await credit({ beneficiary_account: FRESH, amount: '99.99' });
    expect(accepted.status).toBe(201);
    expect(accepted.stored).toMatchObject({ outcome: 'accepted' });
    // A new limit applies at once as well.
    await otherAccounts.upsert({ clabe: FRESH, ownerId: null, status: 'ACTIVE', creditLimit: '50.00' });
    expect((await credit({ beneficiary_account: FRESH, amount: '99.99' })).json).toMatchObject({
      refundReason: 'Amount over the account limit',
    });
  });

  it('replays a stored credit on the account as it is in the store, not as kept in memory', async () => {
    const accepted = await credit();
    expect(accepted.status).toBe(201);
    await otherAccounts.setStatus(CLABES.acme, 'CANCELLED');
    const replay = await fetch(`${t.url}/admin/events/${accepted.stored!.seq}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.adminToken}` },
    });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({
      outcome: 'rejected',
      refundReason: 'Beneficiary account cancelled',
      sameAsStored: false,
    });
    await otherAccounts.setStatus(CLABES.acme, 'ACTIVE');
  });
});

describe('createAccountCache over the store on PGlite', () => {
  const CLABE_1 = CLABES.acme;
  const CLABE_2 = CLABES.bodega;
  const CLABE_3 = CLABES.juan;
  let db: Database;
  let drop: () => Promise<void>;
  let accounts: AccountStore;
  beforeAll(async () => {
    ({ db, drop } = await databaseKinds[0]!.open());
    accounts = createAccountStore(db);
    for (const clabe of [CLABE_1, CLABE_2])
      await accounts.upsert({ clabe, ownerId: null, status: 'ACTIVE', creditLimit: null });
  });
  afterAll(() => drop?.());

  const counters = () => {
    const seen = { hit: 0, miss: 0 };
    return { seen, hit: () => seen.hit++, miss: () => seen.miss++ };
  };

  it('keeps known and unknown accounts, and what a commit found replaces what it kept', async () => {
    const count = counters();
    const cache = createAccountCache(accounts, count);
    expect(await cache.read(CLABE_1)).toMatchObject({ status: 'ACTIVE' });
    expect(await cache.read(CLABE_1)).toMatchObject({ status: 'ACTIVE' });
    expect(await cache.read(CLABE_3)).toBeUndefined();
    expect(await cache.read(CLABE_3)).toBeUndefined();
    expect(count.seen).toEqual({ hit: 2, miss: 2 });
    const blocked = (await accounts.setStatus(CLABE_1, 'BLOCKED'))!;
    // Nothing tells the cache: it answers what it kept until a commit finds otherwise.
    expect(await cache.read(CLABE_1)).toMatchObject({ status: 'ACTIVE' });
    cache.remember(CLABE_1, blocked);
    expect(await cache.read(CLABE_1)).toEqual(blocked);
    expect(count.seen).toEqual({ hit: 4, miss: 2 });
    await accounts.setStatus(CLABE_1, 'ACTIVE');
  });

  it('holds at most maxEntries accounts, dropping the oldest first', async () => {
    const count = counters();
    const cache = createAccountCache(accounts, count, 2);
    for (const clabe of [CLABE_1, CLABE_2, CLABE_3]) await cache.read(clabe);
    expect(cache.size).toBe(2);
    for (const clabe of [CLABE_3, CLABE_2, CLABE_1]) await cache.read(clabe);
    expect(count.seen).toEqual({ hit: 2, miss: 4 });
  });

  it('keeps nothing when a lookup fails, so the next read asks again', async () => {
    const spare = await databaseKinds[0]!.open();
    const cache = createAccountCache(createAccountStore(spare.db), counters());
    await spare.drop();
    await expect(cache.read(CLABE_1)).rejects.toThrow(/closed/);
    expect(cache.size).toBe(0);
  });
});
