// Compile-time checks (tsc -p packages/cash-client runs them): answers are the spec's types and
// inputs are exact.
import { describe, expectTypeOf, it } from 'vitest';
import type { CashClient, CashWebhookConfiguration } from '@paykit/cash-client';
import { createCashClient } from '@paykit/cash-client';

describe('cash client types', () => {
  it('answers are typed from the spec', () => {
    expectTypeOf<Awaited<ReturnType<CashClient['webhooks']['create']>>>().toEqualTypeOf<CashWebhookConfiguration>();
    expectTypeOf<CashWebhookConfiguration['secret_token']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CashWebhookConfiguration['id']>().toEqualTypeOf<number | undefined>();
    // The reference shows neither path nor answer of update: returned as read.
    expectTypeOf<Awaited<ReturnType<CashClient['webhooks']['update']>>>().toEqualTypeOf<unknown>();
  });

  it('inputs are exact: typos do not compile', () => {
    const typos = (cash: CashClient): void => {
      // @ts-expect-error: the webhook id is a number
      void cash.webhooks.update('7', 'https://hooks.example.com/cash');
      // @ts-expect-error: `apiSecert` is not an option
      createCashClient({ environment: 'sandbox', apiKey: 'k', apiSecert: 's' });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
