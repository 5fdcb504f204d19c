// The browser tests fail, not skip, where the browser is required: the console's browser suite is
// run (a vitest of its own) with a chromium that does not exist — with CI=true and with
// PAYKIT_REQUIRE_BROWSER=1 it fails naming what to install; without either it is skipped with the
// reason printed.
import path from 'node:path';
import { runNode } from '@paykit/testing/run-node';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
const SUITE = 'apps/console/test/console-browser.test.ts';

const runWithoutChromium = (env: Record<string, string>) =>
  runNode(VITEST, ['run', SUITE], {
    name: 'vitest',
    cwd: ROOT,
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYKIT_CHROMIUM: '/nonexistent/chromium', ...env },
  });

describe('the browser suite without chromium', () => {
  it.each<Record<string, string>>([{ CI: 'true' }, { PAYKIT_REQUIRE_BROWSER: '1' }])(
    'fails where it is required (%o)',
    { timeout: 90_000 },
    async (env) => {
      const run = await runWithoutChromium(env);
      const output = run.stdout + run.stderr;
      expect(run.code, output).toBe(1);
      expect(output).toContain(
        'Chromium is required here (CI or PAYKIT_REQUIRE_BROWSER=1) and /nonexistent/chromium is missing: install it with `bash scripts/chromium.sh`',
      );
      expect(output).toMatch(/tests: 0 passed, 1 failed, 0 skipped/);
    },
  );

  it('is skipped elsewhere, saying why', { timeout: 90_000 }, async () => {
    const run = await runWithoutChromium({ CI: 'false' });
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(0);
    expect(output).toContain('skipped "the console in chromium, behind its login": /nonexistent/chromium is missing');
    expect(output).toMatch(/tests: 0 passed, 0 failed, 6 skipped/);
  });
});
