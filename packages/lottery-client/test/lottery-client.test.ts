// The lottery client over real HTTP against the sandbox (a separate process).
import { createLotteryClient, UnauthorizedError } from '@paykit/lottery-client';
import { describeBearerAccount } from '@paykit/testing/bearer-account';
import { expect, it } from 'vitest';

describeBearerAccount(
  {
    product: 'lottery',
    token: 'lt_sandbox_token_acme_000000000001',
    create: createLotteryClient,
    account: { product: 'lottery', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE', payee_id: 'PAYEE-0001' },
  },
  (sandboxOf) => {
    it('an expired lottery token is an UnauthorizedError', async () => {
      const sandbox = sandboxOf();
      const expiring = 'lt_sandbox_token_expiring_0000000001';
      const clock = await sandbox.control.getClock();
      if (clock.status !== 200) throw new Error('no clock');
      const expiresAt = new Date(Date.parse(clock.body.now) + 60_000).toISOString();
      await sandbox.control.addSeed({
        body: {
          bearer: { billpay: [], 'gift-cards': [], lottery: [{ token: expiring, payeeId: 'PAYEE-0002', expiresAt }] },
        },
      });
      const lottery = createLotteryClient({ environment: 'sandbox', baseUrl: sandbox.urls.lottery, token: expiring });
      expect(await lottery.account.get()).toMatchObject({ payee_id: 'PAYEE-0002' });
      await sandbox.control.advanceClock({ body: { seconds: 61 } });
      await expect(lottery.account.get()).rejects.toBeInstanceOf(UnauthorizedError);
    });
  },
);
