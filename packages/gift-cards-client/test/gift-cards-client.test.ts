// The gift-cards client over real HTTP against the sandbox (a separate process).
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createGiftCardsClient, UnauthorizedError } from '@paykit/gift-cards-client';
import type { LogEntry } from '@paykit/runtime';

const TOKEN = 'gc_sandbox_token_acme_000000000001';

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
});

describe('gift-cards account', () => {
  it('reads the account with the bearer token', async () => {
    const account = await createGiftCardsClient({ environment: 'sandbox', baseUrl: sandbox.urls['gift-cards'], token: TOKEN }).account.get();
    expect(account).toEqual({ product: 'gift-cards', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE' });
  });

  it('a wrong token is an UnauthorizedError that names neither token, in its message, JSON or logs', async () => {
    const wrong = 'gift-cards_wrong_token_00000000000000000';
    const log: LogEntry[] = [];
    const error = await createGiftCardsClient({ environment: 'sandbox', baseUrl: sandbox.urls['gift-cards'], token: wrong, logger: (entry) => log.push(entry) })
      .account.get()
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).status).toBe(401);
    expect((error as UnauthorizedError).product).toBe('gift-cards');
    const everything = JSON.stringify([String(error), (error as Error).message, error, (error as Error).cause ?? null, log]);
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(TOKEN);
    expect(log.length).toBeGreaterThan(0);
  });

  it('refuses to start without a token, and outside the sandbox without a baseUrl', () => {
    expect(() => createGiftCardsClient({ environment: 'sandbox', token: '' })).toThrow(ConfigurationError);
    expect(() => createGiftCardsClient({ environment: 'production', token: TOKEN })).toThrow(ConfigurationError);
  });
});
