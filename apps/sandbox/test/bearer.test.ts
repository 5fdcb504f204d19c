// Billpay, gift cards and lottery over real HTTP: bearer tokens from the seed, 401s that say what
// to check, and lottery tokens that expire on the sandbox clock.
import { zGetClientAccountResponse as zBillpayAccount } from '@paykit/billpay-client/zod';
import { Seed } from '@paykit/contracts';
import { zGetClientAccountResponse as zGiftCardsAccount } from '@paykit/gift-cards-client/zod';
import { zGetClientAccountResponse as zLotteryAccount } from '@paykit/lottery-client/zod';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_SEED_INPUT, type Sandbox } from '../src/index.ts';
import { call, controlClient, startTestSandbox, T0 } from './helpers.ts';

const TOKENS = {
  billpay: 'bp_sandbox_token_acme_000000000001',
  'gift-cards': 'gc_sandbox_token_acme_000000000001',
  lottery: 'lt_sandbox_token_acme_000000000001',
} as const;
const SCHEMAS = { billpay: zBillpayAccount, 'gift-cards': zGiftCardsAccount, lottery: zLotteryAccount } as const;
const PRODUCTS = ['billpay', 'gift-cards', 'lottery'] as const;

describe('bearer-token products', () => {
  let sandbox: Sandbox;
  const account = (product: (typeof PRODUCTS)[number], authorization?: string) =>
    call(`${sandbox.urls[product]}/api/v1/client/account`, {
      headers: authorization === undefined ? {} : { authorization },
    });

  afterEach(() => sandbox.close());

  it('answers the client account for a seeded token of each product', async () => {
    sandbox = await startTestSandbox();
    for (const product of PRODUCTS) {
      const response = await account(product, `Bearer ${TOKENS[product]}`);
      expect(response.status, product).toBe(200);
      expect(SCHEMAS[product].safeParse(response.body).success).toBe(true);
      expect(response.body, product).toEqual({
        product,
        client_name: 'ACME Pagos SA de CV',
        status: 'ACTIVE',
        ...(product === 'lottery' ? { payee_id: 'PAYEE-0001' } : {}),
      });
    }
  });

  it('accepts the scheme in any case', async () => {
    sandbox = await startTestSandbox();
    expect((await account('billpay', `bearer ${TOKENS.billpay}`)).status).toBe(200);
    expect((await account('gift-cards', `BEARER ${TOKENS['gift-cards']}`)).status).toBe(200);
  });

  it('answers 401 with what to check for a missing header, another scheme or an unknown token', async () => {
    sandbox = await startTestSandbox();
    for (const product of PRODUCTS) {
      const missing = await account(product);
      expect(missing.status, product).toBe(401);
      expect(missing.body.error).toContain('Missing Authorization header');
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');

      const basic = await account(product, `Basic ${Buffer.from('a:b').toString('base64')}`);
      expect(basic.status, product).toBe(401);
      expect(basic.body.error).toContain('Bearer scheme');

      const unknown = await account(product, 'Bearer not_a_token_of_this_sandbox_01');
      expect(unknown.status, product).toBe(401);
      expect(unknown.body.error).toMatch(/^Invalid (API key|access token)/);
      expect(JSON.stringify(unknown.body)).not.toContain('not_a_token');
    }
  });

  it("does not accept one product's token on another", async () => {
    sandbox = await startTestSandbox();
    expect((await account('gift-cards', `Bearer ${TOKENS.billpay}`)).status).toBe(401);
    expect((await account('lottery', `Bearer ${TOKENS['gift-cards']}`)).status).toBe(401);
    expect((await account('billpay', `Bearer ${TOKENS.lottery}`)).status).toBe(401);
  });

  it('expires a lottery token when the sandbox clock passes its expiresAt', async () => {
    const expiring = 'lt_sandbox_token_expiring_0000001';
    const expiresAt = new Date(Date.parse(T0) + 3600_000).toISOString();
    sandbox = await startTestSandbox({
      seed: Seed.parse({
        ...DEFAULT_SEED_INPUT,
        bearer: {
          ...DEFAULT_SEED_INPUT.bearer,
          lottery: [...DEFAULT_SEED_INPUT.bearer!.lottery!, { token: expiring, payeeId: 'PAYEE-0042', expiresAt }],
        },
      }),
    });
    const control = controlClient(sandbox);

    const before = await account('lottery', `Bearer ${expiring}`);
    expect(before.status).toBe(200);
    expect(zLotteryAccount.safeParse(before.body).success).toBe(true);
    expect(before.body.payee_id).toBe('PAYEE-0042');

    await control.advanceClock({ body: { seconds: 3599 } });
    expect((await account('lottery', `Bearer ${expiring}`)).status).toBe(200);

    await control.advanceClock({ body: { seconds: 1 } });
    const after = await account('lottery', `Bearer ${expiring}`);
    expect(after.status).toBe(401);
    expect(after.body.error).toMatch(/^Expired access token/);
    // A token without expiresAt keeps working.
    expect((await account('lottery', `Bearer ${TOKENS.lottery}`)).status).toBe(200);
  });

  it('accepts tokens added through the control API, with their own expiry, and forgets them on reset', async () => {
    sandbox = await startTestSandbox();
    const control = controlClient(sandbox);
    const added = 'lt_sandbox_token_added_000000001';
    expect((await account('lottery', `Bearer ${added}`)).status).toBe(401);
    const expiresAt = new Date(Date.parse(T0) + 60_000).toISOString();
    const seeded = await control.addSeed({
      body: {
        bearer: {
          billpay: [],
          'gift-cards': ['gc_sandbox_token_added_000000001'],
          lottery: [{ token: added, payeeId: 'PAYEE-0077', expiresAt }],
        },
      },
    });
    expect(seeded.status).toBe(200);
    expect((await account('lottery', `Bearer ${added}`)).body).toMatchObject({ payee_id: 'PAYEE-0077' });
    expect((await account('gift-cards', 'Bearer gc_sandbox_token_added_000000001')).status).toBe(200);

    await control.advanceClock({ body: { seconds: 61 } });
    expect((await account('lottery', `Bearer ${added}`)).status).toBe(401);

    await control.reset({ body: {} });
    expect((await account('gift-cards', 'Bearer gc_sandbox_token_added_000000001')).status).toBe(401);
    expect((await account('gift-cards', `Bearer ${TOKENS['gift-cards']}`)).status).toBe(200);
  });

  it('answers an unknown path with 404 and the operation it serves', async () => {
    sandbox = await startTestSandbox();
    const response = await call(`${sandbox.urls.billpay}/api/v1/bills`, {
      headers: { authorization: `Bearer ${TOKENS.billpay}` },
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toContain('GET /api/v1/client/account');
  });
});
