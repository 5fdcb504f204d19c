// The run test/summary-reporter.test.ts starts: the fixture's tests alone, with the summary reporter.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['*.fixture.ts'],
    reporters: [fileURLToPath(new URL('../../src/summary-reporter.ts', import.meta.url))],
  },
});
