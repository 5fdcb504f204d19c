// MONEY_IN decisions over HTTP: each rule refuses an external credit with 422 and refundReason
// (here the operator refuses credits to unknown accounts, GATEWAY_UNKNOWN_ACCOUNT=reject), an
// internal credit is never refused (stored flagged, 200), what cannot be judged is held (202),
// and a repeat of a refused credit is refused again with the same reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, moneyInEnvelope, post, startTestGateway, type TestGateway } from './helpers.ts';

const PAYER_RFC = 'DENY800101AB1';

describe.each(databaseKinds)('MONEY_IN decisions on $name', (kind) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(kind, {
      env: {
        GATEWAY_UNKNOWN_ACCOUNT: 'reject',
        GATEWAY_DENY_PAYERS: `${CLABES.banortePayer},${PAYER_RFC}`,
        GATEWAY_CREDIT_LIMIT: '100000.00',
      },
    });
    const accounts = t.gateway.accounts;
    await accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: '5000.00' });
    await accounts.upsert({ clabe: CLABES.bodega, ownerId: null, status: 'BLOCKED', creditLimit: null });
    await accounts.upsert({ clabe: CLABES.juan, ownerId: null, status: 'CANCELLED', creditLimit: null });
  });
  afterAll(async () => {
    await t?.close();
  });

  const send = async (body: Record<string, unknown>) => {
    const delivery = moneyInEnvelope(body);
    const answer = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(delivery), bearer());
    const stored = await t.gateway.events.getByDedupeKey(`core:MONEY_IN:${delivery.id_msg as string}`);
    return { ...answer, stored, delivery };
  };

  it('accepts a credit to a known active account within its limit with 201', async () => {
    const r = await send({ amount: '4999.99' });
    expect(r.status).toBe(201);
    expect(r.stored).toMatchObject({ outcome: 'accepted', answerStatus: 201, reason: null, refundReason: null });
  });

  it.each([
    {
      name: 'unknown account',
      body: { beneficiary_account: '646180000000000041' },
      refundReason: 'Beneficiary account unknown',
      reason: /not among the accounts/,
    },
    {
      name: 'blocked account',
      body: { beneficiary_account: CLABES.bodega },
      refundReason: 'Beneficiary account blocked',
      reason: /BLOCKED/,
    },
    {
      name: 'cancelled account',
      body: { beneficiary_account: CLABES.juan },
      refundReason: 'Beneficiary account cancelled',
      reason: /CANCELLED/,
    },
    {
      name: 'over the account limit',
      body: { amount: '5000.01' },
      refundReason: 'Amount over the account limit',
      reason: /account's credit limit/,
    },
    {
      name: 'denied payer CLABE',
      body: { payer_account: CLABES.banortePayer },
      refundReason: 'Payer not accepted',
      reason: /deny list/,
    },
    {
      name: 'denied payer RFC',
      body: { payer_rfc: PAYER_RFC.toLowerCase() },
      refundReason: 'Payer not accepted',
      reason: /deny list/,
    },
  ])(
    'refuses an external credit for $name with 422 and refundReason, stored with its reason',
    async ({ body, refundReason, reason }) => {
      const r = await send(body);
      expect(r.status).toBe(422);
      expect(r.json).toEqual({ refundReason, message: expect.any(String) });
      expect(r.stored).toMatchObject({ outcome: 'rejected', answerStatus: 422, refundReason });
      expect(r.stored!.reason).toMatch(reason);
      // The platform may deliver it again: the same refusal, stored once.
      const again = await post(`${t.url}/webhooks/core/money-in`, JSON.stringify(r.delivery), bearer());
      expect(again).toEqual({ status: r.status, json: r.json });
    },
  );

  it('applies the default limit to accounts without their own', async () => {
    await t.gateway.accounts.upsert({
      clabe: '646180000000000054',
      ownerId: null,
      status: 'ACTIVE',
      creditLimit: null,
    });
    expect((await send({ beneficiary_account: '646180000000000054', amount: '100000.00' })).status).toBe(201);
    const over = await send({ beneficiary_account: '646180000000000054', amount: '100000.01' });
    expect(over.status).toBe(422);
    expect(over.stored!.reason).toMatch(/GATEWAY_CREDIT_LIMIT/);
  });

  it('never refuses an internal credit: a refusal is stored flagged and answered 200', async () => {
    const r = await send({
      sub_category: 'INT_CREDIT',
      beneficiary_account: CLABES.bodega,
      payer_institution: '90646',
    });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ received: true });
    expect(r.stored).toMatchObject({ outcome: 'flagged', answerStatus: 200, refundReason: null });
    expect(r.stored!.reason).toMatch(/BLOCKED.*nothing is refunded/);
    const ok = await send({ sub_category: 'INT_CREDIT' });
    expect(ok.status).toBe(200);
    expect(ok.stored!.outcome).toBe('accepted');
  });

  it('holds a credit it cannot judge (drifted amount, unknown sub_category, no beneficiary) with 202 instead of refusing it', async () => {
    for (const body of [
      { amount: 1500 },
      { amount: '1,500.00' },
      { sub_category: 'SPEI_CREDIT_V2' },
      { beneficiary_account: undefined },
    ]) {
      const r = await send(body);
      expect(r.status, JSON.stringify(body)).toBe(202);
      expect(r.stored).toMatchObject({ outcome: 'stored', answerStatus: 202 });
      expect(r.stored!.reason).toMatch(/^held for review/);
    }
  });

  it('counts decisions by rule in the metrics', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    expect(text).toMatch(/gateway_money_in_decisions_total\{decision="rejected",rule="account-blocked"\} 1/);
    expect(text).toMatch(/gateway_money_in_decisions_total\{decision="flagged",rule="account-blocked"\} 1/);
    expect(text).toMatch(/gateway_money_in_decisions_total\{decision="stored",rule="review"\} 4/);
  });
});
