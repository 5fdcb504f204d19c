// Runs in the consumer project against the packed core client: money_out on both routes and the
// deprecated internal_transaction against a sandbox. Credentials come from the environment and
// are never printed; stdout is one JSON line of what the platform answered.
import { API_VERSION, createCoreClient } from '@paykit/core-client';

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const warnings = [];
process.on('warning', (warning) => warnings.push({ name: warning.name, code: warning.code, message: warning.message }));

const core = createCoreClient({
  environment: 'staging',
  baseUrl: env('SANDBOX_CORE_URL'),
  clientId: env('CORE_CLIENT_ID'),
  apiKey: env('CORE_API_KEY'),
});
const [source, internal, external] = env('CORE_INSTRUMENTS').split(',');
const internalTransfer = await core.transactions.moneyOut({
  source_instrument_id: source,
  destination_instrument_id: internal,
  transaction_request: { amount: '10.00', currency: 'MXN' },
});
const speiTransfer = await core.transactions.moneyOut({
  source_instrument_id: source,
  destination_instrument_id: external,
  transaction_request: { amount: '12.50', currency: 'MXN' },
});
const legacy = await core.transactions.internalTransaction({
  source_instrument_id: source,
  destination_instrument_id: internal,
  transaction_request: { amount: '1.00', currency: 'MXN' },
});
await core.transactions.internalTransaction({
  source_instrument_id: source,
  destination_instrument_id: internal,
  transaction_request: { amount: '1.00', currency: 'MXN' },
});
await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick

console.log(
  JSON.stringify({
    API_VERSION,
    routes: [internalTransfer.subCategory, speiTransfer.subCategory, legacy.subCategory],
    warnings,
  }),
);
