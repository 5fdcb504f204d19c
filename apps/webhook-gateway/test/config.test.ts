import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runNode } from '@paykit/testing/run-node';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { TOKENS, testEnv } from './helpers.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('gateway configuration', () => {
  it('reads the defaults', () => {
    const config = loadConfig({ GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken });
    expect(config).toMatchObject({
      port: 4020,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: '.data',
      bodyLimitBytes: 1024 * 1024,
      commitTimeoutMs: 4000,
      cash: { secretTokens: [], toleranceSeconds: 300 },
      policy: { unknownAccount: 'hold', denyPayers: [], defaultCreditLimitCentavos: null },
      adminToken: undefined,
      metricsToken: undefined,
      logLevel: 'info',
    });
    expect(config.core.CEP).toEqual({ tokens: [TOKENS.coreWebhookToken], noAuth: false });
    expect(config.core.MONEY_IN).toEqual({ tokens: [], noAuth: false });
  });

  it('reads a full test configuration', () => {
    const config = loadConfig(testEnv({ GATEWAY_CREDIT_LIMIT: '2500.50', GATEWAY_DENY_PAYERS: 'cuno800101ab1' }));
    expect(config.core.MONEY_IN.tokens).toHaveLength(2);
    expect(config.core.REPORT).toEqual({ tokens: [], noAuth: true });
    expect(config.policy.defaultCreditLimitCentavos).toBe(250050n);
    expect(config.policy.denyPayers).toEqual(['CUNO800101AB1']);
  });

  it('names every bad value at once, without repeating a secret', () => {
    const found = problems({
      GATEWAY_PORT: '70000',
      GATEWAY_COMMIT_TIMEOUT_MS: '5000',
      GATEWAY_BODY_LIMIT_BYTES: 'lots',
      GATEWAY_UNKNOWN_ACCOUNT: 'maybe',
      GATEWAY_LOG_LEVEL: 'loud',
      GATEWAY_CORE_TOKENS_MONEY_IN: 'short-secret-token',
      GATEWAY_CORE_TOKENS_CEP: `${TOKENS.coreWebhookToken},${TOKENS.previousCoreWebhookToken},${TOKENS.adminToken}`,
      GATEWAY_CORE_NO_AUTH: 'CEP,PAYMENT',
      GATEWAY_CASH_SECRET_TOKENS: 'not-hex-secret',
      GATEWAY_ADMIN_TOKEN: 'tiny-admin',
      METRICS_TOKEN: 'tiny-scrape',
      GATEWAY_DENY_PAYERS: '123',
      GATEWAY_CREDIT_LIMIT: '10.5',
    });
    const text = found.join('\n');
    for (const name of [
      'GATEWAY_PORT',
      'GATEWAY_COMMIT_TIMEOUT_MS',
      'GATEWAY_BODY_LIMIT_BYTES',
      'GATEWAY_UNKNOWN_ACCOUNT',
      'GATEWAY_LOG_LEVEL',
      'GATEWAY_CORE_TOKENS_MONEY_IN',
      'GATEWAY_CORE_TOKENS_CEP',
      'GATEWAY_CORE_NO_AUTH',
      'GATEWAY_CASH_SECRET_TOKENS',
      'GATEWAY_ADMIN_TOKEN',
      'METRICS_TOKEN',
      'GATEWAY_DENY_PAYERS',
      'GATEWAY_CREDIT_LIMIT',
    ]) {
      expect(text, name).toContain(name);
    }
    expect(text).toContain('both in GATEWAY_CORE_NO_AUTH and has tokens');
    for (const secret of [
      'short-secret-token',
      'not-hex-secret',
      'tiny-admin',
      'tiny-scrape',
      ...Object.values(TOKENS),
    ])
      expect(text).not.toContain(secret);
  });

  it('refuses a GATEWAY_LOG_FILE it cannot write, at start, instead of dropping the logs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gateway-log-'));
    try {
      // A path under a regular file: unwritable whoever runs the test (root included).
      const blocker = path.join(dir, 'not-a-dir');
      writeFileSync(blocker, '');
      const unwritable = path.join(blocker, 'gateway.log');
      const found = problems({ GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken, GATEWAY_LOG_FILE: unwritable });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatch(
        /^GATEWAY_LOG_FILE \S+ cannot be written \(E[A-Z]+\): point it at a file in a directory the gateway's user can write, or unset it to log to stdout$/,
      );
      const run = await runNode(path.resolve(import.meta.dirname, '../src/main.ts'), [], {
        name: 'gateway',
        env: {
          PATH: process.env.PATH,
          GATEWAY_PORT: '0',
          GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken,
          GATEWAY_LOG_FILE: unwritable,
          PAYKIT_DATA_DIR: dir,
        },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(found[0]);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      // A writable one (its folder made) is taken, and the file exists before the first line.
      const writable = path.join(dir, 'logs', 'gateway.log');
      expect(loadConfig({ GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken, GATEWAY_LOG_FILE: writable }).logFile).toBe(
        writable,
      );
      expect(readFileSync(writable, 'utf8')).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a configuration that receives nothing', () => {
    expect(problems({}).join('\n')).toMatch(/nothing to receive/);
  });
});

describe('slow-client timeouts in the configuration', () => {
  it('defaults to 10 s for headers and 30 s for the whole request, and refuses a headers timeout longer than the request timeout', () => {
    const config = loadConfig({ GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken });
    expect(config).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    const text = problems({
      GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken,
      GATEWAY_HEADERS_TIMEOUT_MS: '100',
      GATEWAY_REQUEST_TIMEOUT_MS: 'soon',
    }).join('\n');
    expect(text).toContain('GATEWAY_HEADERS_TIMEOUT_MS must be a whole number from 500 to 60000');
    expect(text).toContain('GATEWAY_REQUEST_TIMEOUT_MS must be a whole number from 500 to 300000');
    expect(
      problems({
        GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken,
        GATEWAY_HEADERS_TIMEOUT_MS: '20000',
        GATEWAY_REQUEST_TIMEOUT_MS: '5000',
      }).join('\n'),
    ).toContain('must not exceed GATEWAY_REQUEST_TIMEOUT_MS');
  });
});
