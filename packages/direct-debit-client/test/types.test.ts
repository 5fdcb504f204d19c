// Compile-time checks (tsc -p packages/direct-debit-client runs them): answers are the spec's
// types and inputs are exact, so a misspelt field is a type error.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  Charge,
  Customer,
  DirectDebitClient,
  DirectDebitInstrument,
  InstrumentPage,
} from '@paykit/direct-debit-client';

type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

describe('direct debit client types', () => {
  it('answers are typed from the spec', () => {
    expectTypeOf<Answer<DirectDebitClient['customers']['create']>>().toEqualTypeOf<Customer>();
    expectTypeOf<Answer<DirectDebitClient['customers']['create']>['id']>().toEqualTypeOf<string>();
    expectTypeOf<Answer<DirectDebitClient['instruments']['page']>>().toEqualTypeOf<InstrumentPage>();
    expectTypeOf<ReturnType<DirectDebitClient['instruments']['list']>>().toEqualTypeOf<
      AsyncIterable<DirectDebitInstrument>
    >();
    // The reference and the documentation show neither the charge request nor its answer: open objects.
    expectTypeOf<Answer<DirectDebitClient['charges']['create']>>().toEqualTypeOf<Charge>();
  });

  it('inputs are exact: typos do not compile', () => {
    const typos = (dd: DirectDebitClient): void => {
      // @ts-expect-error: `documet_number` is not a field of a customer
      void dd.customers.create({ name: 'Ana', document_type: 'mx_rfc', documet_number: 'X' });
      // @ts-expect-error: `limt` is not a list parameter
      void dd.instruments.page({ limt: 5 });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
