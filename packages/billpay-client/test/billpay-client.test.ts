// The billpay client over real HTTP against the sandbox (a separate process).
import { createBillpayClient, getClientAccount } from '@paykit/billpay-client';
import { createSdkClient, createTransport } from '@paykit/runtime';
import { describeBearerAccount } from '@paykit/testing/bearer-account';
import { expect, it } from 'vitest';

const token = 'bp_sandbox_token_acme_000000000001';
const account = { product: 'billpay', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE' };

describeBearerAccount({ product: 'billpay', token, create: createBillpayClient, account }, (sandbox) => {
  it("the generated SDK function, given the runtime's client, reads the account (and answers a 401 as { error, response })", async () => {
    const transport = createTransport({ product: 'billpay', retry: { maxRetries: 0 } });
    const baseUrl = sandbox().urls.billpay;
    const read = await getClientAccount({
      client: createSdkClient({ baseUrl, fetch: transport.fetch, auth: () => token }),
    });
    expect(read.error).toBeUndefined();
    expect(read.data).toEqual(account);
    expect(read.response?.status).toBe(200);
    const refused = await getClientAccount({
      client: createSdkClient({ baseUrl, fetch: transport.fetch, auth: () => 'bp_wrong_token' }),
    });
    expect(refused.data).toBeUndefined();
    expect(refused.response?.status).toBe(401);
    expect(refused.error).toBeDefined();
  });
});
