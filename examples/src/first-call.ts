// A first call, recorded: money_out from one instrument to another, written down in the ledger
// before it is sent and recorded after it is answered (@paykit/ledger's recorder on @paykit/store).
// Run it twice and the platform replays the first answer: the same body is the same transfer.
import { createCoreClient } from '@paykit/core-client';
import { createTransactionRecorder, ledgerMigrations } from '@paykit/ledger';
import { migrate, openDatabase } from '@paykit/store';

const needed = ['CORE_CLIENT_ID', 'CORE_API_KEY', 'SOURCE_INSTRUMENT_ID', 'DESTINATION_INSTRUMENT_ID'];
const missing = needed.filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`Set ${missing.join(', ')} (the sandbox's are in GET /_sandbox/seed; see examples/README.md).`);
  process.exit(2);
}

// The ledger: DATABASE_URL's PostgreSQL, else PGlite in a folder of this machine.
const db = await openDatabase(
  process.env.DATABASE_URL
    ? { databaseUrl: process.env.DATABASE_URL }
    : { dataDir: `${process.env.PAYKIT_DATA_DIR ?? '.data'}/pglite` },
);
try {
  await migrate(db, [ledgerMigrations]); // the ledger's tables, created or brought up to date
  let recorded = 'not recorded';
  const core = createCoreClient({
    environment: 'sandbox', // staging / production: their baseUrl
    baseUrl: `${process.env.PAYKIT_SANDBOX_URL ?? 'http://127.0.0.1:4010'}/core`,
    clientId: process.env.CORE_CLIENT_ID!,
    apiKey: process.env.CORE_API_KEY!,
    clientSecret: process.env.CORE_CLIENT_SECRET, // optional: retrieved with the API key when omitted
    ...createTransactionRecorder(db, {
      actor: 'examples/first-call',
      onRecorded: (r) => (recorded = `intent ${r.intentId}${r.replayed ? ', a replay: the money moved once' : ''}`),
    }),
  });

  // The instruments (accounts) money leaves from and goes to: ids the platform gave them.
  const transfer = await core.transactions.moneyOut({
    source_instrument_id: process.env.SOURCE_INSTRUMENT_ID!,
    destination_instrument_id: process.env.DESTINATION_INSTRUMENT_ID!,
    transaction_request: { amount: '1500.00', currency: 'MXN', description: 'Invoice 42', external_reference: '42' },
  });
  console.log(
    `money_out ${transfer.id}: ${transfer.subCategory} ${transfer.transactionStatus}, ${transfer.amount} MXN`,
  );
  console.log(`ledger (${db.description}): ${recorded}`);
} finally {
  await db.close();
}
