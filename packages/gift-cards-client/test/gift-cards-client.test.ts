// The gift cards client over real HTTP against the sandbox (a separate process).
import { createGiftCardsClient } from '@paykit/gift-cards-client';
import { describeBearerAccount } from '@paykit/testing/bearer-account';

describeBearerAccount({
  product: 'gift-cards',
  token: 'gc_sandbox_token_acme_000000000001',
  create: createGiftCardsClient,
  account: { product: 'gift-cards', client_name: 'ACME Pagos SA de CV', status: 'ACTIVE' },
});
