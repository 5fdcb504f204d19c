import { defineConfig } from 'vitest/config';

// One root config, one project per kind of workspace folder. Workspace packages resolve to their
// TypeScript sources through the `@paykit/source` export condition, so tests need no build.
export default defineConfig({
  resolve: { conditions: ['@paykit/source'] },
  ssr: { resolve: { conditions: ['@paykit/source'] } },
  test: {
    reporters: ['default', '@paykit/testing/summary-reporter'],
    // Opening PGlite and starting the apps as processes takes seconds on two busy cores: the
    // limits leave room for that without letting a hang pass (each behaviour's own deadline is
    // asserted inside its test).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two test files at a time on two cores: most of a file's time is spent waiting on the
    // processes and servers it starts, not on its own CPU.
    maxWorkers: 2,
    // The secret audit: everything tests write, and every failed test's error, is searched for
    // the configured secrets after the run; a secret anywhere fails it (tooling/testing).
    globalSetup: ['@paykit/testing/secret-audit'],
    setupFiles: ['@paykit/testing/secret-audit-setup'],
    projects: [
      { extends: true, test: { name: 'packages', include: ['packages/*/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'tooling', include: ['tooling/*/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'apps', include: ['apps/*/test/**/*.test.ts'] } },
    ],
  },
});
