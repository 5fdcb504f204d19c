import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// One root config, one project per workspace package with tests, named after the package:
// `pnpm test` at the root runs them all in one vitest; a package's own `test` script (the turbo
// task) runs its project alone (`vitest run --root ../.. --project <name>`). Workspace packages
// resolve to their TypeScript sources through the `@paykit/source` export condition, so tests
// need no build.
const root = import.meta.dirname;
// (examples/ is a workspace package of its own at the root, beside the three groups.)
const packagesWithTests = [
  ...['packages', 'apps', 'tooling'].flatMap((group) =>
    readdirSync(path.join(root, group)).map((name) => `${group}/${name}`),
  ),
  'examples',
].filter((dir) => existsSync(path.join(root, dir, 'test')) && existsSync(path.join(root, dir, 'package.json')));

export default defineConfig({
  resolve: { conditions: ['@paykit/source'] },
  ssr: { resolve: { conditions: ['@paykit/source'] } },
  test: {
    reporters: ['default', '@paykit/testing/summary-reporter'],
    // Opening PGlite and starting the apps as processes takes seconds on two busy cores, and
    // several times that when `pnpm check` runs four packages' tests at once (a test that takes
    // 20 s alone takes 50–80 s there): the limits leave room for that without letting a hang pass
    // (each behaviour's own deadline is asserted inside its test).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Two test files at a time on two cores: most of a file's time is spent waiting on the
    // processes and servers it starts, not on its own CPU.
    maxWorkers: 2,
    // The secret audit: everything tests write, and every failed test's error, is searched for
    // the configured secrets after the run; a secret anywhere fails it (tooling/testing).
    globalSetup: ['@paykit/testing/secret-audit'],
    setupFiles: ['@paykit/testing/secret-audit-setup'],
    projects: packagesWithTests.map((dir) => ({
      extends: true,
      test: {
        name: (JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name: string }).name,
        include: [`${dir}/test/**/*.test.ts`],
      },
    })),
  },
});
