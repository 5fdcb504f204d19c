// Compile-time checks (tsc -p packages/lottery-client runs them). The reference and the documentation
// show no body for the account call, so its answer is `unknown` (read it with a schema of your
// own); options are exact.
import { describe, expectTypeOf, it } from 'vitest';
import type { LotteryClient } from '@paykit/lottery-client';
import { createLotteryClient } from '@paykit/lottery-client';

describe('lottery client types', () => {
  it('the account answer is not shown: unknown, never any', () => {
    expectTypeOf<Awaited<ReturnType<LotteryClient['account']['get']>>>().toEqualTypeOf<unknown>();
  });

  it('options are exact: typos do not compile', () => {
    const typos = (): void => {
      // @ts-expect-error: `tokn` is not an option
      createLotteryClient({ environment: 'sandbox', tokn: 't' });
      // @ts-expect-error: there is no such environment
      createLotteryClient({ environment: 'prod', token: 't' });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
