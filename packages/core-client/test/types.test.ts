// Compile-time checks (tsc -p packages/core-client runs them): answers are the spec's types and
// inputs are exact, so a misspelt field is a type error. The `it` only keeps vitest content.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AccountLifecycleAccount,
  CoreClient,
  CoreTransaction,
  MoneyOutTransaction,
  PrivateAccountStatus,
  ResponseInfo,
} from '@paykit/core-client';
import type { withResponse } from '@paykit/core-client';

type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

describe('core client types', () => {
  it('answers are typed from the spec', () => {
    expectTypeOf<Answer<CoreClient['transactions']['moneyOut']>>().toEqualTypeOf<MoneyOutTransaction>();
    expectTypeOf<Answer<CoreClient['transactions']['moneyOut']>['id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Answer<CoreClient['transactions']['pennyValidation']>>().toEqualTypeOf<CoreTransaction>();
    expectTypeOf<Answer<CoreClient['accounts']['cancel']>>().toEqualTypeOf<AccountLifecycleAccount>();
    expectTypeOf<Answer<CoreClient['accounts']['block']>['account_status']>().toEqualTypeOf<
      PrivateAccountStatus | undefined
    >();
    expectTypeOf<Awaited<ReturnType<typeof withResponse<MoneyOutTransaction>>>>().toEqualTypeOf<{
      data: MoneyOutTransaction;
      response: ResponseInfo;
    }>();
  });

  it('inputs are exact: typos do not compile', () => {
    // Never called: these lines exist for the type checker.
    const typos = (core: CoreClient): void => {
      void core.transactions.moneyOut({
        source_instrument_id: 'a',
        destination_instrument_id: 'b',
        // @ts-expect-error: `amout` is not a field of transaction_request
        transaction_request: { amout: '1.00', currency: 'MXN' },
      });
      void core.transactions.moneyOut({
        source_instrument_id: 'a',
        // @ts-expect-error: `destination_instrument` is not a field of a money-out body
        destination_instrument: 'b',
        transaction_request: { amount: '1.00', currency: 'MXN' },
      });
      void core.transactions.moneyOut({
        source_instrument_id: 'a',
        destination_instrument_id: 'b',
        // @ts-expect-error: amounts are decimal strings, never numbers
        transaction_request: { amount: 1, currency: 'MXN' },
      });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
