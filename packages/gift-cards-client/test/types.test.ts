// Compile-time checks (tsc -p packages/gift-cards-client runs them). The reference and the documentation
// show no body for the account call, so its answer is `unknown` (read it with a schema of your
// own); options are exact.
import { describe, expectTypeOf, it } from 'vitest';
import type { GiftCardsClient } from '@paykit/gift-cards-client';
import { createGiftCardsClient } from '@paykit/gift-cards-client';

describe('gift-cards client types', () => {
  it('the account answer is not shown: unknown, never any', () => {
    expectTypeOf<Awaited<ReturnType<GiftCardsClient['account']['get']>>>().toEqualTypeOf<unknown>();
  });

  it('options are exact: typos do not compile', () => {
    const typos = (): void => {
      // @ts-expect-error: `tokn` is not an option
      createGiftCardsClient({ environment: 'sandbox', tokn: 't' });
      // @ts-expect-error: there is no such environment
      createGiftCardsClient({ environment: 'prod', token: 't' });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
