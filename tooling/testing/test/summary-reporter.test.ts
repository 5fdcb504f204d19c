import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../src/secret-audit.ts';

const fixture = fileURLToPath(new URL('./reporter-fixture/', import.meta.url));
const vitestBin = path.join(path.dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

describe('the summary reporter', () => {
  it('names each failed test with its first error line, never a secret, then the closing line', async () => {
    // The run's own audit folder stays the outer run's: the inner run has none.
    const env: NodeJS.ProcessEnv = { ...process.env, CI: '1', PAYKIT_SECRET_AUDIT_DIR: undefined };
    const { stdout, code } = await new Promise<{ stdout: string; code: number }>((resolve) => {
      execFile(
        process.execPath,
        [vitestBin, 'run', '--root', fixture, '--config', path.join(fixture, 'vitest.config.ts')],
        { env, cwd: fixture, timeout: 120_000 },
        (error, out) => resolve({ stdout: out, code: error ? Number(error.code ?? 1) : 0 }),
      );
    });
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('tests: 1 passed, 1 failed, 1 skipped');
    expect(lines.filter((line) => line.startsWith('failed: '))).toEqual([
      'failed: run.fixture.ts > a suite > fails: the console refused <secret>',
    ]);
    expect(stdout).not.toContain(TEST_SECRETS.consolePassword);
  }, 150_000);
});
