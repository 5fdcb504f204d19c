// The worker started alone through pnpm stops whole on a signal to pnpm: no process outlives it
// (a worker left running would keep applying, and hold its PGlite folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stopsWithPnpm } from '@paykit/testing/app-signals';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(path.join(tmpdir(), 'paykit-worker-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('pnpm --filter @paykit/reconciliation-worker start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`stops every process below pnpm within 10 s on ${signal} to pnpm`, async () => {
      const result = await stopsWithPnpm({
        app: '@paykit/reconciliation-worker',
        env: { WORKER_PORT: '0', PAYKIT_DATA_DIR: path.join(dir, signal), DATABASE_URL: '', WORKER_LOG_LEVEL: 'warn' },
        ready: /listening on http/,
        signal,
      });
      expect(result.below.join('\n')).toContain('src/main.ts');
      expect(result.alive, `still running ${result.ms} ms after ${signal}`).toEqual([]);
    }, 180_000);
});
