// A product team's code, written against @paykit/core-client 0.3.0: money_out with the flat body
// that release typed. The upgrade test installs it from the previous release, moves it to the
// current one with the codemod the CHANGELOG names, type-checks it and runs it against a sandbox.
// stdout is one JSON line of the routes the platform chose.
import { createCoreClient } from '@paykit/core-client';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const core = createCoreClient({
  environment: 'staging',
  baseUrl: env('SANDBOX_CORE_URL'),
  clientId: env('CORE_CLIENT_ID'),
  apiKey: env('CORE_API_KEY'),
});
const [source = '', internal = '', external = ''] = env('CORE_INSTRUMENTS').split(',');

const rent = await core.transactions.moneyOut({
  source_instrument_id: source,
  destination_instrument_id: internal,
  amount: '1500.00',
  currency: 'MXN',
  description: 'Rent November',
  external_reference: '1234567',
});
const supplier = await core.transactions.moneyOut({
  source_instrument_id: source,
  destination_instrument_id: external,
  amount: '230.50',
  currency: 'MXN',
});

console.log(JSON.stringify({ routes: [rent.subCategory, supplier.subCategory] }));
