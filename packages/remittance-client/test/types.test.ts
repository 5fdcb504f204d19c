// Compile-time checks (tsc -p packages/remittance-client runs them): answers are the spec's types
// and inputs are exact.
import { describe, expectTypeOf, it } from 'vitest';
import type { RemittanceClient, RemittanceReceiveResponse } from '@paykit/remittance-client';

describe('remittance client types', () => {
  it('answers are typed from the spec', () => {
    expectTypeOf<Awaited<ReturnType<RemittanceClient['receive']>>>().toEqualTypeOf<RemittanceReceiveResponse>();
    expectTypeOf<RemittanceReceiveResponse['ready_for_commit']>().toEqualTypeOf<boolean | undefined>();
  });

  it('inputs are exact: typos do not compile', () => {
    const typos = (remittance: RemittanceClient): void => {
      // @ts-expect-error: `ammount` is not a field of a remittance
      void remittance.receive({ partner_transaction_session_id: 'pts-1', ammount: '3200.00' });
      // @ts-expect-error: amounts are decimal strings, never numbers
      void remittance.receive({ amount: 3200 });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
