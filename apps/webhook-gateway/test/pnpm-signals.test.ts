// The gateway started alone through pnpm stops whole on a signal to pnpm: no process outlives it
// (a gateway left running would keep its port and its PGlite folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopsWithPnpm } from '@paykit/testing/app-signals';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'paykit-gateway-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pnpm --filter @paykit/webhook-gateway start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`stops every process below pnpm within 10 s on ${signal} to pnpm`, async () => {
      const result = await stopsWithPnpm({
        app: '@paykit/webhook-gateway',
        env: {
          GATEWAY_PORT: '0',
          PAYKIT_DATA_DIR: path.join(dir, signal),
          DATABASE_URL: '',
          GATEWAY_LOG_LEVEL: 'warn',
          GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken,
        },
        ready: /listening on http/,
        signal,
      });
      expect(result.below.join('\n')).toContain('src/main.ts');
      expect(result.alive, `still running ${result.ms} ms after ${signal}`).toEqual([]);
    }, 180_000);
});
