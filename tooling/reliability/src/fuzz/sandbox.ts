// The sandbox as a fuzz target: every product route and the control API with a valid base body,
// each route's credentials (right, wrong, missing) and each product's documented error shape.
import fc from 'fast-check';
import { hmacSha256Hex } from '@paykit/runtime';
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import type { RawHeader } from '../http.ts';
import { ACME_CLABE, uuid } from './events.ts';
import { isObject, type Json } from './json.ts';

export type SandboxProductName =
  | 'core'
  | 'direct-debit'
  | 'cash'
  | 'remittance'
  | 'billpay'
  | 'gift-cards'
  | 'lottery'
  | 'control';

/** The credentials a scenario read from the sandbox's seed (never printed). */
export interface SandboxCredentials {
  clientId: string;
  coreApiKey: string;
  coreToken: string;
  directDebitKey: string;
  cash: { apiKey: string; apiSecret: string };
  bearer: Record<'billpay' | 'gift-cards' | 'lottery', string>;
  /** The sandbox clock in Unix seconds (signed cash requests must be within its skew). */
  nowSeconds(): number;
}

export interface SandboxRoute {
  product: SandboxProductName;
  method: string;
  path: string;
  /** A valid body for the route (the base the body families mutate). */
  base: fc.Arbitrary<Json>;
  /** How the route authenticates: the header(s) for right credentials, for wrong ones, or none. */
  auth: 'core-token' | 'core-api-key' | 'dd-key' | 'cash-signed' | 'bearer' | 'none';
}

const empty = fc.constant<Json>({});
const CLIENT = '11111111-1111-4111-8111-111111111111';
const INSTRUMENT = '66666666-6666-4666-8666-000000000001';
const EXTERNAL_INSTRUMENT = '66666666-6666-4666-8666-000000000004';
const transfer = fc.record({
  client_id: fc.constant(CLIENT),
  source_instrument_id: fc.constant(INSTRUMENT),
  destination_instrument_id: fc.constant(EXTERNAL_INSTRUMENT),
  transaction_request: fc.record({
    amount: fc.constantFrom('1.00', '10.50'),
    currency: fc.constant('MXN'),
    description: fc.constant('Fuzz'),
  }),
});

/** The inline charge of the direct debit charges page (packages/contracts/fixtures/documented). */
function documentedInlineCharge(): Record<string, unknown> {
  return documentedFixture('direct-debit/request.charges.create.inline.json').payload;
}

/**
 * Every route of every product (specs/*.yaml and the sandbox's own) and of the control API.
 * Ids in paths are unknown ones: a mutation must not delete or block what the stack relies on.
 */
export function sandboxRoutes(): SandboxRoute[] {
  const client = `/core/v1/clients/${CLIENT}`;
  const unknownId = '9a9a9a9a-9a9a-4a9a-8a9a-000000000000';
  const core = (
    method: string,
    path: string,
    base: fc.Arbitrary<Json> = empty,
    auth: SandboxRoute['auth'] = 'core-token',
  ): SandboxRoute => ({ product: 'core', method, path, base, auth });
  const control = (method: string, path: string, base: fc.Arbitrary<Json> = empty): SandboxRoute => ({
    product: 'control',
    method,
    path: `/_sandbox${path}`,
    base,
    auth: 'none',
  });
  return [
    core('GET', `${client}/credentials`, empty, 'core-api-key'),
    core(
      'POST',
      `${client}/auth/credential-tokens`,
      fc.record({ client_id: fc.constant(CLIENT), client_secret: fc.constant('not-the-secret-000000') }),
      'core-api-key',
    ),
    core(
      'POST',
      `${client}/webhooks`,
      fc.record({
        client_id: fc.constant(CLIENT),
        url: fc.constant('https://hooks.example.com/x'),
        token: fc.constant('t'.repeat(40)),
        webhook_type: fc.constant('CEP'),
        auth_type: fc.constant('AUTH'),
      }),
    ),
    core('GET', `${client}/webhooks`),
    core('GET', `${client}/webhooks/${unknownId}`),
    core('PATCH', `${client}/webhooks/${unknownId}`, fc.record({ webhook_status: fc.constant('INACTIVE') })),
    core('DELETE', `${client}/webhooks/${unknownId}`),
    core(
      'POST',
      '/core/v1/transactions/penny_validation',
      fc.record({
        client_id: fc.constant(CLIENT),
        source_instrument_id: fc.constant(INSTRUMENT),
        destination_instrument_id: fc.constant(EXTERNAL_INSTRUMENT),
      }),
    ),
    core('POST', '/core/v1/transactions/money_out', transfer),
    core('POST', '/core/v1/transactions/internal_transaction', transfer),
    core('PUT', `${client}/accounts/${unknownId}/block`),
    core('PATCH', `${client}/accounts/${unknownId}/activate`),
    core('PUT', `${client}/accounts/${unknownId}/cancel`),
    core('POST', '/core/v1/no/such/route'),
    {
      product: 'direct-debit',
      method: 'POST',
      path: '/direct-debit/customers',
      base: fc.record({
        name: fc.constant('Ana López'),
        document_type: fc.constant('mx_rfc'),
        document_number: fc.constant('LOAA800101ABC'),
      }),
      auth: 'dd-key',
    },
    { product: 'direct-debit', method: 'GET', path: '/direct-debit/instruments?limit=5', base: empty, auth: 'dd-key' },
    // The documentation's own inline charge, so mutations reach the charge itself and not only the body's validation.
    {
      product: 'direct-debit',
      method: 'POST',
      path: '/direct-debit/charges',
      base: fc.constant(documentedInlineCharge()),
      auth: 'dd-key',
    },
    // A loopback port nothing listens on: an activation test that fails at once, never a host outside.
    {
      product: 'cash',
      method: 'POST',
      path: '/cash/api/v1/cash/webhooks',
      base: fc.record({ endpoint_url: fc.constant('http://127.0.0.1:9/cash') }),
      auth: 'cash-signed',
    },
    { product: 'cash', method: 'GET', path: '/cash/api/v1/cash/webhooks/active', base: empty, auth: 'cash-signed' },
    {
      product: 'cash',
      method: 'PATCH',
      path: '/cash/api/v1/cash/webhooks/999999',
      base: fc.record({ endpoint_url: fc.constant('http://127.0.0.1:9/cash') }),
      auth: 'cash-signed',
    },
    {
      product: 'remittance',
      method: 'POST',
      path: '/remittance/v2/remittances/receive',
      base: fc.record({
        partner_transaction_session_id: uuid,
        amount: fc.constant('3200.00'),
        currency: fc.constant('MXN'),
        reference: fc.constant('REM-1'),
      }),
      auth: 'none',
    },
    ...(['billpay', 'gift-cards', 'lottery'] as const).map(
      (product): SandboxRoute => ({
        product,
        method: 'GET',
        path: `/${product}/api/v1/client/account`,
        base: empty,
        auth: 'bearer',
      }),
    ),
    control('GET', '/seed'),
    control('POST', '/seed', empty),
    control('GET', '/clock'),
    control('POST', '/clock/advance', fc.record({ seconds: fc.integer({ min: 1, max: 60 }) })),
    control('POST', '/clock/set', fc.constant({ at: '2000-01-01T00:00:00Z' })),
    control('GET', '/faults'),
    control('GET', '/counters'),
    control('GET', '/deliveries?state=delivered'),
    control(
      'POST',
      '/core/incoming-spei',
      fc.record({ beneficiaryClabe: fc.constant(ACME_CLABE), amount: fc.constantFrom('1.00', '250.00') }),
    ),
    control('POST', `/core/transactions/${unknownId}/cep`, fc.record({ status: fc.constant('COMPLETED') })),
    control('POST', `/core/transactions/${unknownId}/settle`),
    control('POST', `/core/transactions/${unknownId}/reject`, fc.record({ status: fc.constant('REJECTED') })),
    control('POST', `/core/transactions/${unknownId}/reverse`),
    control('POST', '/core/reports', fc.record({ clientId: fc.constant(CLIENT) })),
    control('GET', '/core/reports/NO_SUCH_FILE.csv'),
    control(
      'POST',
      '/cash/operations',
      fc.record({
        type: fc.constantFrom('cash_in', 'cash_out'),
        amount: fc.integer({ min: 1, max: 10_000 }),
        externalUserId: fc.constant('user-1'),
      }),
    ),
    control('POST', '/cash/operations/999999/status', fc.record({ status: fc.constant('paid') })),
    control('DELETE', '/seed'),
    // Outside every product and the control API: the server's own 404.
    { product: 'control', method: 'POST', path: '/no/such/product', base: empty, auth: 'none' },
  ];
}

/** The route's authentication headers: right, wrong or missing credentials. */
export function sandboxAuthHeaders(
  route: SandboxRoute,
  variant: 'valid' | 'wrong' | 'missing',
  body: Buffer,
  creds: SandboxCredentials,
): RawHeader[] {
  if (variant === 'missing' || route.auth === 'none') return [];
  const wrong = variant === 'wrong';
  switch (route.auth) {
    case 'core-token':
      return [['Authorization', `Bearer ${wrong ? `${creds.coreToken.slice(0, -4)}AAAA` : creds.coreToken}`]];
    case 'core-api-key':
      return [['X-Api-Key', wrong ? 'pk_staging_not_a_key_00000000000' : creds.coreApiKey]];
    case 'dd-key':
      return [['X-Api-Key', wrong ? 'dd_not_a_key_000000000000000000' : creds.directDebitKey]];
    case 'bearer':
      return [
        ['Authorization', `Bearer ${wrong ? 'not-a-token-0000000000' : creds.bearer[route.product as 'billpay']}`],
      ];
    case 'cash-signed': {
      const timestamp = String(creds.nowSeconds());
      const signature = hmacSha256Hex(
        wrong ? 'not-the-secret-000000' : creds.cash.apiSecret,
        Buffer.concat([Buffer.from(`${timestamp}.`), body]),
      );
      return [
        ['X-Client-Id', creds.cash.apiKey],
        ['X-Timestamp', timestamp],
        ['X-Signature', signature],
      ];
    }
  }
}

/** The 4xx statuses the sandbox documents across its products (README, "Sandbox choices"). */
export const SANDBOX_4XX = new Set([400, 401, 403, 404, 405, 409, 413, 415, 422, 431]);

/** Whether a 4xx body has the product's documented error shape. */
export function sandboxErrorShape(product: SandboxProductName, json: unknown): boolean {
  if (!isObject(json)) return false;
  switch (product) {
    case 'core':
      return typeof json.code === 'number' && typeof json.message === 'string' && Array.isArray(json.details);
    case 'direct-debit':
      return json.detail !== undefined;
    default:
      return typeof json.error === 'string';
  }
}
