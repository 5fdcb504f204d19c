// The shared readers: each names its variable and what to set, and a secret is never repeated.
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, databaseConfig, databaseEnv, port, problemsOf, secretToken } from '../src/index.ts';

const APP = { name: 'test app', readme: 'apps/test/README.md' };

describe('the configuration readers', () => {
  const Env = z.object({
    TEST_PORT: port('TEST_PORT', 4000),
    METRICS_TOKEN: secretToken('METRICS_TOKEN'),
    ...databaseEnv({ queryTimeoutMs: 5_000 }),
  });

  it('read defaults when unset', () => {
    const e = Env.parse({});
    expect(e.TEST_PORT).toBe(4000);
    expect(e.METRICS_TOKEN).toBeUndefined();
    expect(databaseConfig(e)).toEqual({
      databaseUrl: undefined,
      dataDir: '.data',
      databaseQueryTimeoutMs: 5_000,
      databaseConnectTimeoutMs: 2_000,
    });
  });

  it('name every bad value at once, never quoting a secret or the database URL', () => {
    const secret = 'short-secret-value';
    const parsed = Env.safeParse({
      TEST_PORT: '70000',
      METRICS_TOKEN: secret,
      DATABASE_URL: 'mysql://root:hunter2@db/paykit',
    });
    expect(parsed.success).toBe(false);
    const error = new ConfigError(APP, problemsOf(parsed.error!));
    expect(error.problems).toEqual([
      'TEST_PORT must be a whole number from 0 to 65535, got "70000"',
      `METRICS_TOKEN is ${secret.length} characters; use a random token of at least 32 (e.g. openssl rand -hex 32)`,
      'DATABASE_URL must start with postgres:// (or be unset for PGlite)',
    ]);
    expect(error.message).toMatch(/^The test app's configuration is not valid:\n {2}- TEST_PORT/);
    expect(error.message).toMatch(/See apps\/test\/README\.md for every variable\.$/);
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain('hunter2');
  });
});
