// The billpay client over real HTTP against the sandbox (a separate process).
import { createBillpayClient } from '@paykit/billpay-client';
import { describeBearerAccount } from '@paykit/testing/bearer-account';

describeBearerAccount({
  product: 'billpay',
  token: 'bp_sandbox_token_acme_000000000001',
  create: createBillpayClient,
  account: { product: 'billpay', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE' },
});
