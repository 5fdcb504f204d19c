// One test passes, one fails quoting a configured secret, one is skipped (test/summary-reporter.test.ts).
import { describe, expect, it } from 'vitest';
import { TEST_SECRETS } from '../../src/secret-audit.ts';

describe('a suite', () => {
  it('passes', () => expect(1).toBe(1));
  it('fails', () => {
    throw new Error(`the console refused ${TEST_SECRETS.consolePassword}\nsecond line`);
  });
  it.skip('is skipped', () => undefined);
});
