// The lottery client over real HTTP against the sandbox (a separate process).
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createLotteryClient, UnauthorizedError } from '@paykit/lottery-client';
import type { LogEntry } from '@paykit/runtime';

const TOKEN = 'lt_sandbox_token_acme_000000000001';

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
});

describe('lottery account', () => {
  it('reads the account with the bearer token', async () => {
    const account = await createLotteryClient({ environment: 'sandbox', baseUrl: sandbox.urls['lottery'], token: TOKEN }).account.get();
    expect(account).toEqual({ product: 'lottery', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE', payee_id: 'PAYEE-0001' });
  });

  it('a wrong token is an UnauthorizedError that names neither token, in its message, JSON or logs', async () => {
    const wrong = 'lottery_wrong_token_00000000000000000';
    const log: LogEntry[] = [];
    const error = await createLotteryClient({ environment: 'sandbox', baseUrl: sandbox.urls['lottery'], token: wrong, logger: (entry) => log.push(entry) })
      .account.get()
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).status).toBe(401);
    expect((error as UnauthorizedError).product).toBe('lottery');
    const everything = JSON.stringify([String(error), (error as Error).message, error, (error as Error).cause ?? null, log]);
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(TOKEN);
    expect(log.length).toBeGreaterThan(0);
  });

  it('refuses to start without a token, and outside the sandbox without a baseUrl', () => {
    expect(() => createLotteryClient({ environment: 'sandbox', token: '' })).toThrow(ConfigurationError);
    expect(() => createLotteryClient({ environment: 'production', token: TOKEN })).toThrow(ConfigurationError);
  });

  it('an expired lottery token is an UnauthorizedError', async () => {
    const expiring = 'lt_sandbox_token_expiring_0000000001';
    const clock = await sandbox.control.getClock();
    if (clock.status !== 200) throw new Error('no clock');
    const expiresAt = new Date(Date.parse(clock.body.now) + 60_000).toISOString();
    await sandbox.control.addSeed({ body: { bearer: { billpay: [], 'gift-cards': [], lottery: [{ token: expiring, payeeId: 'PAYEE-0002', expiresAt }] } } });
    const lottery = createLotteryClient({ environment: 'sandbox', baseUrl: sandbox.urls.lottery, token: expiring });
    expect(await lottery.account.get()).toMatchObject({ payee_id: 'PAYEE-0002' });
    await sandbox.control.advanceClock({ body: { seconds: 61 } });
    await expect(lottery.account.get()).rejects.toBeInstanceOf(UnauthorizedError);
  });
});
