// The suite every bearer-token product client (billpay, gift cards, lottery) passes over real
// HTTP against the sandbox process: the account read with the token, a wrong token as an
// UnauthorizedError that names neither token anywhere, and the configuration checks.
import { ConfigurationError, UnauthorizedError, type Environment, type LogEntry, type Logger } from '@paykit/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.ts';

export interface BearerAccountSpec {
  product: 'billpay' | 'gift-cards' | 'lottery';
  /** The product's token in the sandbox's default seed. */
  token: string;
  create(options: { environment: Environment; baseUrl?: string; token: string; logger?: Logger }): {
    account: { get(): Promise<unknown> };
  };
  /** The account the sandbox answers for `token`. */
  account: Record<string, unknown>;
}

/** Defines the suite; `more` adds the product's own tests, given the running sandbox. */
export function describeBearerAccount(spec: BearerAccountSpec, more?: (sandbox: () => SandboxProcess) => void): void {
  const { product, token, create } = spec;
  let sandbox: SandboxProcess;
  beforeAll(async () => {
    sandbox = await startSandboxProcess();
  }, 30_000);
  afterAll(async () => {
    await sandbox?.close();
  });

  describe(`${product} account`, () => {
    it('reads the account with the bearer token', async () => {
      const account = await create({ environment: 'sandbox', baseUrl: sandbox.urls[product], token }).account.get();
      expect(account).toEqual(spec.account);
    });

    it('a wrong token is an UnauthorizedError that names neither token, in its message, JSON or logs', async () => {
      const wrong = `${product}_wrong_token_00000000000000000`;
      const log: LogEntry[] = [];
      const error = await create({
        environment: 'sandbox',
        baseUrl: sandbox.urls[product],
        token: wrong,
        logger: (entry) => log.push(entry),
      })
        .account.get()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(UnauthorizedError);
      expect((error as UnauthorizedError).status).toBe(401);
      expect((error as UnauthorizedError).product).toBe(product);
      const everything = JSON.stringify([
        String(error),
        (error as Error).message,
        error,
        (error as Error).cause ?? null,
        log,
      ]);
      expect(everything).not.toContain(wrong);
      expect(everything).not.toContain(token);
      expect(log.length).toBeGreaterThan(0);
    });

    it('refuses to start without a token, and outside the sandbox without a baseUrl', () => {
      expect(() => create({ environment: 'sandbox', token: '' })).toThrow(ConfigurationError);
      expect(() => create({ environment: 'production', token })).toThrow(ConfigurationError);
    });

    more?.(() => sandbox);
  });
}
