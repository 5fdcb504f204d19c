// Credits whose beneficiary account is not an account number at all — a NUL, a lone surrogate,
// text far longer than any account, a card-number-like value — are stored and held (202) with a
// reason, never refused, never answered 5xx (which would have the platform redeliver forever), and
// no reason or log repeats a card number. A sub_category in another letter case is judged as the
// documented value: case is a format.
import { describe, expect, it } from 'vitest';
import { CLABES, bearer, databaseKinds, gatewayForSuite, moneyInEnvelope, post } from './helpers.ts';

describe.each(databaseKinds)('hostile and drifted credits on $name', (kind) => {
  const gateway = gatewayForSuite(kind, { GATEWAY_UNKNOWN_ACCOUNT: 'reject' });

  const send = async (raw: string) => {
    const t = gateway();
    const answer = await post(`${t.url}/webhooks/core/money-in`, raw, bearer());
    return {
      ...answer,
      stored: typeof answer.json.seq === 'string' ? await t.gateway.events.get(answer.json.seq) : undefined,
    };
  };
  const credit = (account: string) => JSON.stringify(moneyInEnvelope({ beneficiary_account: account }));

  it.each([
    { name: 'a NUL', raw: credit('64618000000000\u00000012') },
    {
      name: 'a lone surrogate',
      raw: credit('646180000000000012').replace('646180000000000012', '6461800000\\ud800000012'),
    },
    { name: 'control characters', raw: credit('646180\t000000000012') },
    { name: 'an emoji', raw: credit('646180000000💸0012') },
    { name: '10,000 characters', raw: credit('6'.repeat(10_000)) },
  ])('holds a credit to an account with $name (202), refusing nothing', async ({ raw }) => {
    const r = await send(raw);
    expect(r.status, JSON.stringify(r.json)).toBe(202);
    expect(r.stored).toMatchObject({ outcome: 'stored', answerStatus: 202, refundReason: null });
    expect(r.stored!.reason).toMatch(/^held for review: beneficiary_account /);
  });

  it('judges a sub_category in another letter case as the documented one (case is a format)', async () => {
    await gateway().gateway.accounts.upsert({
      clabe: CLABES.bodega,
      ownerId: null,
      status: 'BLOCKED',
      creditLimit: null,
    });
    const internal = await send(
      JSON.stringify(moneyInEnvelope({ beneficiary_account: CLABES.bodega, sub_category: 'int_credit' })),
    );
    expect(internal.status).toBe(200);
    expect(internal.stored).toMatchObject({ outcome: 'flagged', refundReason: null });
    const external = await send(
      JSON.stringify(moneyInEnvelope({ beneficiary_account: CLABES.bodega, sub_category: 'Spei_Credit' })),
    );
    expect(external).toMatchObject({ status: 422, json: { refundReason: 'Beneficiary account blocked' } });
  });

  it('holds a credit to a card number as unknown, naming only its last four digits', async () => {
    const card = '4111111111111111';
    const r = await send(credit(card));
    expect(r.status).toBe(202);
    expect(r.stored!.reason).toMatch(/beneficiary account of 16 characters ending in "1111"/);
    expect(r.stored!.reason).not.toContain(card);
    expect(JSON.stringify(r.stored!.drift)).not.toContain(card);
    expect(gateway().logs.join('')).not.toContain(card);
  });
});
