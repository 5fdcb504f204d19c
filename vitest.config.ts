import { defineConfig } from 'vitest/config';

// One root config, one project per kind of workspace folder. Workspace packages resolve to their
// TypeScript sources through the `@paykit/source` export condition, so tests need no build.
export default defineConfig({
  resolve: { conditions: ['@paykit/source'] },
  ssr: { resolve: { conditions: ['@paykit/source'] } },
  test: {
    reporters: ['default', '@paykit/testing/summary-reporter'],
    projects: [
      { extends: true, test: { name: 'packages', include: ['packages/*/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'tooling', include: ['tooling/*/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'apps', include: ['apps/*/test/**/*.test.ts'] } },
    ],
  },
});
