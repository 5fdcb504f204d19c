// Compile-time checks (tsc -p packages/core-client runs them) of the generated SDK as it is typed
// against @paykit/runtime's Client, Options and RequestResult: each operation's spec types reach
// the caller, and its inputs are exact.
import { describe, expectTypeOf, it } from 'vitest';
import { createSdkClient, type Client } from '@paykit/runtime';
import {
  createMoneyOut,
  getWebhook,
  type CreateMoneyOutError,
  type CreateMoneyOutResponse,
  type GetWebhookError,
  type GetWebhookResponse,
  type MoneyOutRequest,
} from '@paykit/core-client';

const body: MoneyOutRequest = {
  client_id: 'c',
  source_instrument_id: 's',
  destination_instrument_id: 'd',
  transaction_request: { amount: '10.00', currency: 'MXN' },
};

describe('the generated SDK, typed by @paykit/runtime', () => {
  it('createSdkClient answers the Client every SDK function takes', () => {
    expectTypeOf(createSdkClient({ baseUrl: 'http://127.0.0.1:1' })).toEqualTypeOf<Client>();
  });

  it("an operation answers its spec's data or its spec's error, never any", () => {
    type Answer = Awaited<ReturnType<typeof createMoneyOut<false>>>;
    expectTypeOf<Answer['data']>().toEqualTypeOf<CreateMoneyOutResponse | undefined>();
    expectTypeOf<Answer['error']>().toEqualTypeOf<CreateMoneyOutError | undefined>();
    expectTypeOf<Answer['response']>().toEqualTypeOf<Response | undefined>();
    type Read = Awaited<ReturnType<typeof getWebhook<false>>>;
    expectTypeOf<Read['data']>().toEqualTypeOf<GetWebhookResponse | undefined>();
    expectTypeOf<Read['error']>().toEqualTypeOf<GetWebhookError | undefined>();
    // With throwOnError: true a non-2xx throws, so the data is there.
    type Thrown = Awaited<ReturnType<typeof createMoneyOut<true>>>;
    expectTypeOf<Thrown['data']>().toEqualTypeOf<CreateMoneyOutResponse>();
    expectTypeOf<Thrown['response']>().toEqualTypeOf<Response>();
  });

  it('a checked answer narrows to the data', () => {
    const read = async (client: Client): Promise<string | undefined> => {
      const answer = await createMoneyOut({ client, body });
      if (answer.error !== undefined) return undefined;
      expectTypeOf(answer.data).toEqualTypeOf<CreateMoneyOutResponse>();
      return answer.data.id;
    };
    expectTypeOf(read).toBeFunction();
  });

  it('inputs are exact: the client, the body, the path and the headers are checked', () => {
    const typos = (client: Client): void => {
      // @ts-expect-error: every call is given a client (there is no default one)
      void createMoneyOut({ body });
      // @ts-expect-error: `amout` is not a field of the transfer
      void createMoneyOut({ client, body: { ...body, transaction_request: { amout: '10.00', currency: 'MXN' } } });
      // @ts-expect-error: only MXN
      void createMoneyOut({ client, body: { ...body, transaction_request: { amount: '10.00', currency: 'USD' } } });
      // @ts-expect-error: the webhook's path needs both ids
      void getWebhook({ client, path: { clientId: 'c' } });
      // @ts-expect-error: the key is a string
      void createMoneyOut({ client, body, headers: { 'Idempotency-Key': 5 } });
      // @ts-expect-error: not an option of the SDK client
      void createMoneyOut({ client, body, retries: 3 });
    };
    expectTypeOf(typos).toBeFunction();
  });
});
