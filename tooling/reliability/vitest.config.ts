import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `pnpm test:reliability` (src/cli.ts) runs this: the scenarios one file at a time (each starts
// its own processes and measures answer times, which a second scenario on the same two cores
// would distort), with the secret audit over everything they and their processes write.
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  resolve: { conditions: ['@paykit/source'] },
  ssr: { resolve: { conditions: ['@paykit/source'] } },
  test: {
    name: 'reliability',
    include: ['tooling/reliability/scenarios/**/*.scenario.ts'],
    reporters: ['default', '@paykit/testing/summary-reporter'],
    globalSetup: ['@paykit/testing/secret-audit'],
    setupFiles: ['@paykit/testing/secret-audit-setup'],
    fileParallelism: false,
    testTimeout: 15 * 60_000,
    hookTimeout: 2 * 60_000,
  },
});
