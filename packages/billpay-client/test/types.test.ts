// Compile-time checks (tsc -p packages/billpay-client runs them). The reference and the documentation
// show no body for the account call, so its answer is `unknown` (read it with a schema of your
// own); options are exact.
import { describe, expectTypeOf, it } from 'vitest';
import type { BillpayClient } from '@paykit/billpay-client';
import { createBillpayClient } from '@paykit/billpay-client';

describe('billpay client types', () => {
  it('the account answer is not shown: unknown, never any', () => {
    expectTypeOf<Awaited<ReturnType<BillpayClient['account']['get']>>>().toEqualTypeOf<unknown>();
  });

  it('options are exact: typos do not compile', () => {
    const typos = (): void => {
      // @ts-expect-error: `tokn` is not an option
      createBillpayClient({ environment: 'sandbox', tokn: 't' });
      // @ts-expect-error: there is no such environment
      createBillpayClient({ environment: 'prod', token: 't' });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
