// Amounts at the edge: the platform documents a MONEY_IN amount as a decimal string with two
// decimals, and the amount rule (@paykit/contracts' readAmount, shared with the ledger) says
// which are amounts (test/amount-rule.test.ts runs its whole table). A zero, one with more digits
// than the ledger's numeric(18,2) holds, one padded with spaces, a JSON number or another layout
// is never applied and never refunded: the credit is stored and held (202) with a reason naming what was wrong — whatever the rules say (a credit
// limit, an unknown account the operator refuses), and for both credit kinds.
import { describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, gatewayForSuite, moneyInEnvelope, post } from './helpers.ts';

describe.each(databaseKinds)('MONEY_IN amounts at the edge on $name', (kind) => {
  // Rules that would refuse (422, a refund) if an amount reached them: a limit, unknown accounts refused.
  const gateway = gatewayForSuite(
    kind,
    { GATEWAY_CREDIT_LIMIT: '1000.00', GATEWAY_UNKNOWN_ACCOUNT: 'reject' },
    async (t) => {
      await t.gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
      await t.gateway.accounts.upsert({
        clabe: CLABES.bodega,
        ownerId: null,
        status: 'ACTIVE',
        creditLimit: '9999999999999999.99',
      });
    },
  );

  const send = async (body: Record<string, unknown>) => {
    const t = gateway();
    const answer = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(moneyInEnvelope(body)), bearer());
    return {
      ...answer,
      stored: typeof answer.json.seq === 'string' ? await t.gateway.events.get(answer.json.seq) : undefined,
    };
  };

  it.each([
    { name: 'zero', amount: '0.00', reason: /amount "0.00" is zero: no money moved/ },
    { name: 'zero with leading zeros', amount: '000.00', reason: /is zero/ },
    {
      name: '17 digits before the point',
      amount: '12345678901234567.00',
      reason:
        /has more than 16 digits before the point: the ledger holds at most 9999999999999999.99 \(numeric\(18,2\)\)/,
    },
    {
      name: 'one centavo past numeric(18,2)',
      amount: '10000000000000000.00',
      reason: /has more than 16 digits before the point/,
    },
    { name: 'padded with spaces', amount: ' 100.00 ', reason: /amount " 100.00 " is padded with white space/ },
    { name: 'a trailing newline', amount: '100.00\n', reason: /padded with white space/ },
    { name: 'a JSON number', amount: 100, reason: /the JSON number 100, not a decimal string/ },
    {
      name: 'one decimal',
      amount: '100.5',
      reason: /amount "100.5" has one decimal: an amount has exactly two, such as "100.50"/,
    },
    { name: 'three decimals', amount: '100.005', reason: /has 3 decimals: a centavo is the smallest unit/ },
    { name: 'a negative amount', amount: '-100.00', reason: /amount "-100.00" is negative/ },
    { name: 'thousands separators', amount: '1,500.00', reason: /amount "1,500.00" has a comma/ },
    { name: 'no amount', amount: undefined, reason: /amount is missing/ },
    { name: 'an empty amount', amount: '', reason: /amount is missing/ },
    { name: 'an object', amount: { value: '100.00' }, reason: /a JSON object, not a decimal string/ },
  ])('holds a credit whose amount is $name (202), never applied nor refunded', async ({ amount, reason }) => {
    for (const body of [
      { amount },
      // An internal credit is held the same way.
      { amount, sub_category: 'INT_CREDIT' },
      // An account the operator would refuse: the amount is held before any rule runs.
      { amount, beneficiary_account: CLABES.juan },
    ]) {
      const r = await send(body);
      expect(r.status, JSON.stringify(body)).toBe(202);
      expect(r.json).toMatchObject({ received: true, duplicate: false });
      expect(r.stored).toMatchObject({ outcome: 'stored', answerStatus: 202, refundReason: null });
      expect(r.stored!.reason).toMatch(/^held for review: /);
      expect(r.stored!.reason).toMatch(reason);
    }
  });

  it('bounds what a held reason quotes of a long amount', async () => {
    const r = await send({ amount: `${'9'.repeat(5000)}.00` });
    expect(r.status).toBe(202);
    expect(r.stored!.reason!.length).toBeLessThan(200);
  });

  it('accepts the largest amount numeric(18,2) holds, and judges amounts that fit by the rules', async () => {
    expect((await send({ beneficiary_account: CLABES.bodega, amount: '9999999999999999.99' })).status).toBe(201);
    expect((await send({ amount: '0.01' })).status).toBe(201);
    expect((await send({ amount: '0100.00' })).status).toBe(201);
    const over = await send({ amount: '1000.01' });
    expect(over).toMatchObject({ status: 422, json: { refundReason: 'Amount over the account limit' } });
  });
});
