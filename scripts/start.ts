// `pnpm start`: paykit on its embedded defaults, no server to install. Regenerates the clients (a
// turbo cache hit when nothing changed), checks the specs against the platform reference, then
// starts the sandbox (4010), the webhook gateway (4020) and the reconciliation worker with its
// console (4030), the two sharing one PGlite store in this process; registers the gateway as the
// sandbox client's core and cash webhooks through the paykit clients (so the cash activation test
// runs for real), and runs a scenario through every product over real HTTP. Every event the
// scenario causes is checked in the gateway's store, and every reconciliation item against the
// state the scenario expects. Logs go to a file whose path is printed.
// Then everything keeps running until Ctrl-C, with a live count of stored events; with --once,
// it prints the reconciliation summary, stops, and the exit code says whether everything held.
// The store may outlive the run (without --once, or --once --persist): every check reads only what
// the store gained during this run, so events an earlier run left cannot stand in for this one's.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBillpayClient } from '@paykit/billpay-client';
import { createCashClient } from '@paykit/cash-client';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, CORE_EVENT_TYPES, DIRECT_DEBIT_WEBHOOK_PATH, sandboxControl } from '@paykit/contracts';
import { createCoreClient } from '@paykit/core-client';
import { createDirectDebitClient } from '@paykit/direct-debit-client';
import { createGiftCardsClient } from '@paykit/gift-cards-client';
import { createLotteryClient } from '@paykit/lottery-client';
import { createRemittanceClient } from '@paykit/remittance-client';
import { formatMoney, maskSecret } from '@paykit/runtime';
import { DEFAULT_SEED, startSandbox } from '@paykit/sandbox';
import { createChargeRecorder, createTransactionRecorder, listItems, openDatabase, reconcileOnce, reconciliationSummary, registerReceivable, reportMatches, type EventListFilter, type EventStore, type ReconItem, type StoredEvent } from '@paykit/store';
import { loadConfig as loadWorkerConfig, startWorker } from '@paykit/reconciliation-worker';
import { loadConfig, startGateway } from '@paykit/webhook-gateway';
import { initClient } from '@ts-rest/core';
import { pino } from 'pino';

const root = path.resolve(import.meta.dirname, '..');
/** Where the gateway's admin token comes from, for the start-up line. */
let adminTokenSource = '';
const USAGE = `Usage: pnpm start [options]

Runs the sandbox, the webhook gateway and the reconciliation worker with its console, wired
together, and a scenario through every product; then keeps running until Ctrl-C.

Options:
  --once                 run the scenario, print the reconciliation summary and stop (exit 0 when everything held)
  --persist              with --once, keep the store (.data/pglite or DATABASE_URL) instead of an in-memory one
  --port <n>             the sandbox's port (SANDBOX_PORT; default 4010; 0: any free port, for every server)
  --gateway-port <n>     the gateway's port (GATEWAY_PORT; default 4020)
  --console-port <n>     the console's port (WORKER_PORT; default 4030)
  -h, --help             print this help

Environment: DATABASE_URL (a PostgreSQL store instead of PGlite), PAYKIT_DATA_DIR (default .data),
GATEWAY_ADMIN_TOKEN (the gateway's admin token; without it one is made and written to
.data/gateway-admin-token, mode 600, for \`pnpm paykit events\` and \`pnpm paykit listen\`).
`;
let values: { once?: boolean; persist?: boolean; port?: string; 'gateway-port'?: string; 'console-port'?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { once: { type: 'boolean' }, persist: { type: 'boolean' }, port: { type: 'string' }, 'gateway-port': { type: 'string' }, 'console-port': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  }));
} catch (error) {
  // Wrong usage: one line and exit 2, never a stack trace.
  console.error(`error: ${(error as Error).message.split('\n')[0]!.replace(/\.?$/, '')}. Run \`pnpm start --help\` for the options.`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const portOf = (value: string | undefined, fallback: number, name: string): number => {
  const port = Number(value ?? fallback);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid port "${value}" (${name}): give a whole number from 0 to 65535 (0: any free port).`);
    process.exit(2);
  }
  return port;
};
// --port 0 (CI) puts every server on a free port.
const port = portOf(values.port ?? process.env.SANDBOX_PORT, 4010, '--port or SANDBOX_PORT');
const gatewayPort = portOf(values['gateway-port'] ?? process.env.GATEWAY_PORT, port === 0 ? 0 : 4020, '--gateway-port or GATEWAY_PORT');
const consolePort = portOf(values['console-port'] ?? process.env.WORKER_PORT, port === 0 ? 0 : 4030, '--console-port or WORKER_PORT');
// A port another process holds is named before anything runs, with the flag that changes it.
for (const [taken, flag] of [[port, '--port'], [gatewayPort, '--gateway-port'], [consolePort, '--console-port']] as const) {
  if (taken !== 0 && !(await portIsFree(taken))) {
    console.error(`error: port ${taken} is taken: stop the process that holds it, or run \`pnpm start ${flag} N\` (0: any free port).`);
    process.exit(1);
  }
}
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const logFile = path.join(root, '.data', 'logs', `start-${stamp}.log`);
mkdirSync(path.dirname(logFile), { recursive: true });

const step = (title: string, command: string, args: string[]) => {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n✖ ${title} failed (exit ${result.status}). Fix what it printed above, then run \`pnpm start\` again.`);
    process.exit(1);
  }
};
step('Generate the clients from specs/ (pnpm gen)', path.join(root, 'node_modules/.bin/turbo'), ['run', 'codegen', '--output-logs=errors-only']);
step('Check the specs against the platform reference', process.execPath, [path.join(root, 'tooling/spec-checks/src/cli.ts')]);

const logger = pino({ level: 'info' }, pino.destination({ dest: logFile, sync: false }));
console.log(`\n  logs: ${path.relative(root, logFile)}`);

console.log('\n▶ Start the sandbox');
// Outbound SPEI transfers settle only when the scenario says so (not 10 s later on their own). No
// random seed: each start draws its own, so no id of this run repeats one the store already holds.
const sandbox = await startSandbox({ port, settings: { core: { speiSettleAfterSeconds: null } } }).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(/EADDRINUSE/.test(message) ? `Port ${port} is taken: stop the other process or run \`pnpm start --port N\` (or SANDBOX_PORT=N).` : message);
  process.exit(1);
});
console.log(`  sandbox on ${sandbox.url} (control API ${sandbox.controlUrl})`);

console.log('\n▶ Start the webhook gateway');
// --once keeps nothing (a fresh in-memory store) unless --persist. Otherwise DATABASE_URL, else
// PGlite under PAYKIT_DATA_DIR (default .data)/pglite: the store `pnpm paykit` records in.
const persistent = { databaseUrl: process.env.DATABASE_URL || undefined, dataDir: path.resolve(root, process.env.PAYKIT_DATA_DIR || '.data', 'pglite') };
const database = await openDatabase(values.once && !values.persist ? { dataDir: 'memory://' } : persistent).catch(async (error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  await sandbox.close();
  process.exit(1);
});
const webhookTokens = Object.fromEntries(CORE_EVENT_TYPES.map((type) => [type, randomBytes(32).toString('base64url')]));
// The Authorization value an operator sets for the direct debit endpoint in the portal.
const directDebitAuthorization = `Bearer ${randomBytes(32).toString('base64url')}`;
const gatewayConfig = loadConfig({
  GATEWAY_PORT: String(gatewayPort),
  ...Object.fromEntries(CORE_EVENT_TYPES.map((type) => [`GATEWAY_CORE_TOKENS_${type}`, webhookTokens[type]!])),
  GATEWAY_DIRECT_DEBIT_TOKENS: directDebitAuthorization,
  GATEWAY_ADMIN_TOKEN: adminToken(),
});
const gateway = await startGateway({ config: gatewayConfig, database, logDestination: pino.destination({ dest: logFile, sync: false, append: true }) }).catch(async (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(/EADDRINUSE/.test(message) ? `Port ${gatewayPort} is taken: stop the other process or run \`pnpm start --gateway-port N\`.` : message);
  await sandbox.close();
  process.exit(1);
});
// The kind of store only: a PostgreSQL description names its user, host and database.
console.log(`  gateway on ${gateway.url} (store: ${database.kind === 'pglite' && !(values.once && !values.persist) ? `PGlite in ${path.relative(root, persistent.dataDir)}` : database.kind})`);
console.log(`  admin token: ${adminTokenSource}`);
// What the store held before this run: the checks read only what it gained since.
const startSeq = await newestSeq(gateway.events);
const heldBefore = startSeq === 0n ? 'empty' : `events up to seq ${startSeq}`;
console.log(`  the store held ${heldBefore} before this run`);

console.log('\n▶ Start the reconciliation worker and its console');
const client = DEFAULT_SEED.core.clients[0]!;
const staging = client.credentials.find((c) => c.environment === 'staging')!;
// The worker fetches the report files the sandbox announces (the three-way match's third leg) as the seed's first client.
const workerEnv = {
  WORKER_PORT: String(consolePort), WORKER_POLL_MS: '200', WORKER_REPORT_POLL_MS: '500',
  WORKER_CORE_BASE_URL: sandbox.urls.core, WORKER_CORE_CLIENT_ID: client.clientId, WORKER_CORE_API_KEY: client.apiKeys.staging, WORKER_CORE_CLIENT_SECRET: staging.clientSecret,
};
const worker = await startWorker(loadWorkerConfig(workerEnv), {
  database,
  onError: (error) => logger.error({ err: error instanceof Error ? error.message : String(error) }, 'worker'),
}).catch(async (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(/EADDRINUSE/.test(message) ? `Port ${consolePort} is taken: stop the other process or run \`pnpm start --console-port N\`.` : message);
  await gateway.close();
  await sandbox.close();
  process.exit(1);
});
console.log(`  console on ${worker.url}`);

const control = initClient(sandboxControl, { baseUrl: sandbox.url });
// The hand-written clients, as a product team would use them; the sandbox's clock is theirs.
const now = () => sandbox.runtime.clock.now();
const env = (product: keyof typeof sandbox.urls) => ({ environment: 'sandbox' as const, baseUrl: sandbox.urls[product] });
// Every transaction the client creates is recorded in the ledger before the call returns.
const core = createCoreClient({ ...env('core'), clientId: client.clientId, apiKey: client.apiKeys.staging, clientSecret: staging.clientSecret, now, onTransactionCreated: createTransactionRecorder(database) });
const { apiKey: cashKey, apiSecret: cashSecret } = DEFAULT_SEED.cash[0]!;
const cash = createCashClient({ ...env('cash'), apiKey: cashKey, apiSecret: cashSecret, now });

const INSTRUMENT = {
  acme: '66666666-6666-4666-8666-000000000001',
  bodega: '66666666-6666-4666-8666-000000000002',
  juan: '66666666-6666-4666-8666-000000000003',
  bbva: '66666666-6666-4666-8666-000000000004',
  banorte: '66666666-6666-4666-8666-000000000005',
};
const CLABE = { acme: '646180000000000012', bodega: '646180000000000025', juan: '646180000000000038' };

const results: { step: string; ok: boolean; detail: string }[] = [];
async function check(name: string, run: () => Promise<string>) {
  if (process.stdout.isTTY) process.stdout.write(`  … ${name}\r`);
  try {
    results.push({ step: name, ok: true, detail: await run() });
  } catch (error) {
    // paykit errors never carry a secret; their messages say what to check.
    results.push({ step: name, ok: false, detail: error instanceof Error ? error.message : String(error) });
  }
  const last = results.at(-1)!;
  console.log(`  ${last.ok ? '✓' : '✖'} ${name}  ${last.detail}`);
  logger.info({ step: name, ok: last.ok, detail: last.detail }, 'scenario step');
}
const ok = <T>(answer: { status: number; body: unknown }, what: string): T => {
  if (answer.status !== 200) throw new Error(`${what}: the sandbox answered ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  return answer.body as T;
};

/** What the scenario expects the gateway to have stored once deliveries settle. */
const expectations: { what: string; eventType: string; match: (payload: Record<string, unknown>) => boolean; outcome?: string }[] = [];
const bodyOf = (payload: Record<string, unknown>) => (payload.body ?? {}) as Record<string, unknown>;
/** The reconciliation state each item should end in: by transaction id, or found by a predicate. */
const expectedItems: { what: string; find: (items: ReconItem[]) => ReconItem | undefined; want: Partial<ReconItem> }[] = [];
/** Transaction ids this run created or caused: their items are this run's even before an event arrives. */
const ownIds = new Set<string>();
const itemById = (id: string) => {
  ownIds.add(id);
  return (items: ReconItem[]) => items.find((item) => item.id === id);
};

console.log('\n▶ Point the sandbox client’s webhooks at the gateway');
await check('core: five webhooks registered (tokens generated, kept by the gateway)', async () => {
  for (const type of CORE_EVENT_TYPES) await core.webhooks.register({ webhookType: type, url: `${gateway.url}${CORE_EVENT_PATHS[type]}`, token: webhookTokens[type] });
  return CORE_EVENT_TYPES.join(', ');
});
await check('cash: webhook created and activated', async () => {
  // The secret_token exists only once the webhook is created, and its activation test is sent at
  // once: the first test fails (the gateway does not know the secret yet), the secret joins the
  // running gateway's configuration, and updating the endpoint sends the test again.
  const created = await cash.webhooks.create(`${gateway.url}${CASH_WEBHOOK_PATH}`);
  gatewayConfig.cash.secretTokens.push(String(created.secret_token).toLowerCase());
  await cash.webhooks.update(Number(created.id), `${gateway.url}${CASH_WEBHOOK_PATH}`);
  for (let i = 0; i < 50; i++) {
    const active = await cash.webhooks.getActive().catch(() => undefined);
    if (active) return `webhook ${created.id} active, secret ${maskSecret(String(created.secret_token))}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the activation test did not pass within 5 s (see the log)');
});
await check('gateway: the accounts it decides credits against', async () => {
  await gateway.accounts.upsert({ clabe: CLABE.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
  await gateway.accounts.upsert({ clabe: CLABE.bodega, ownerId: null, status: 'ACTIVE', creditLimit: null });
  await gateway.accounts.upsert({ clabe: CLABE.juan, ownerId: null, status: 'BLOCKED', creditLimit: null });
  return 'ACME and Bodega Norte ACTIVE, Juan Pérez BLOCKED';
});

console.log('\n▶ Run the scenario through every product');
await check('core: credentials (x-api-key) and a bearer token', async () => {
  const { data } = await core.credentials.list();
  const token = await core.tokens.current();
  return `${data.length} credential(s); token ${maskSecret(token.token)}, expires ${token.expiresAt}`;
});
for (const [name, destination, holder] of [
  ['verified', INSTRUMENT.bbva, undefined],
  ['mismatched', INSTRUMENT.banorte, 'OTRA PERSONA DISTINTA'],
] as const) {
  await check(`core: penny validation, CEP completed (${name})`, async () => {
    const tx = await core.transactions.pennyValidation({ source_instrument_id: INSTRUMENT.acme, destination_instrument_id: destination });
    ok(await control.triggerCepOutcome({ params: { transactionId: tx.id }, body: { status: 'COMPLETED', ...(holder ? { beneficiaryName: holder } : {}) } }), 'CEP');
    expectedItems.push({ what: `penny validation ${name}`, find: itemById(tx.id), want: holder ? { state: 'mismatched', fields: ['holder_name'] } : { state: 'matched' } });
    expectations.push({ what: `CEP of the ${name} penny validation`, eventType: 'CEP', match: (p) => bodyOf(p).id === tx.id && bodyOf(p).status === 'COMPLETED' });
    return `${tx.amount} ${tx.currency} → CEP COMPLETED${holder ? ` (holder "${holder}")` : ''}`;
  });
}
const speiOut = async (destination: string, amount: string) => String((await core.transactions.moneyOut({ source_instrument_id: INSTRUMENT.acme, destination_instrument_id: destination, transaction_request: { amount, currency: 'MXN', description: 'Proveedores' } })).id);
await check('core: SPEI out settled', async () => {
  const id = await speiOut(INSTRUMENT.bbva, '1500.00');
  ok(await control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
  expectations.push({ what: 'STATUS_UPDATE LIQUIDATED', eventType: 'STATUS_UPDATE', match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'LIQUIDATED' });
  expectedItems.push({ what: 'SPEI out settled', find: itemById(id), want: { state: 'matched', status: 'LIQUIDATED' } });
  return 'LIQUIDATED';
});
await check('core: SPEI out rejected', async () => {
  const id = await speiOut(INSTRUMENT.banorte, '820.00');
  ok(await control.triggerSpeiReject({ params: { transactionId: id }, body: { status: 'REJECTED', reason: 'ACCOUNT_NOT_FOUND', reasonDescription: 'The beneficiary account does not exist.' } }), 'reject');
  expectations.push({ what: 'STATUS_UPDATE REJECTED', eventType: 'STATUS_UPDATE', match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'REJECTED' });
  expectedItems.push({ what: 'SPEI out rejected', find: itemById(id), want: { state: 'matched', status: 'REJECTED' } });
  return 'REJECTED (ACCOUNT_NOT_FOUND)';
});
await check('core: SPEI out settled, then reversed by the network', async () => {
  const id = await speiOut(INSTRUMENT.bbva, '310.00');
  ok(await control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
  const reversal = ok<{ refundTransactionId: string }>(await control.triggerSpeiReverse({ params: { transactionId: id }, body: {} }), 'reverse');
  expectedItems.push({ what: 'SPEI out reversed', find: itemById(id), want: { state: 'refunded', status: 'REFUNDED' } });
  expectedItems.push({ what: 'the network’s reversal', find: itemById(reversal.refundTransactionId), want: { state: 'matched' } });
  expectations.push({ what: 'REFUND of the reversed transfer', eventType: 'REFUND', match: (p) => bodyOf(p).original_transaction_id === id });
  expectations.push({ what: 'STATUS_UPDATE REFUNDED', eventType: 'STATUS_UPDATE', match: (p) => bodyOf(p).id === id && bodyOf(p).status === 'REFUNDED' });
  return 'LIQUIDATED → REFUNDED';
});
await check('core: money_out to a platform account (internal transfer)', async () => {
  const tx = await core.transactions.moneyOut({ source_instrument_id: INSTRUMENT.acme, destination_instrument_id: INSTRUMENT.bodega, transaction_request: { amount: '250.00', currency: 'MXN' } });
  expectations.push({ what: 'INT_CREDIT of the internal transfer, accepted', eventType: 'MONEY_IN', outcome: 'accepted', match: (p) => bodyOf(p).sub_category === 'INT_CREDIT' && bodyOf(p).tracking_key === tx.trackingId });
  expectedItems.push({ what: 'internal transfer out', find: itemById(String(tx.id)), want: { state: 'matched', status: 'LIQUIDATED' } });
  expectedItems.push({ what: 'its INT_CREDIT', find: (items) => items.find((item) => item.product === 'internal_in' && item.trackingKey === tx.trackingId), want: { state: 'matched' } });
  return `${tx.subCategory}`;
});
// A new invoice and payment reference on every run: the store outlives a run without --once.
const invoice = `INV-${stamp.slice(0, 10)}-${randomBytes(3).toString('hex')}`;
const paymentReference = String(1_000_000 + (randomBytes(3).readUIntBE(0, 3) % 9_000_000));
await check('ledger: a receivable the expected credit will match', async () => {
  await registerReceivable(database, { id: invoice, beneficiaryAccount: CLABE.acme, amount: '12000.00', reference: paymentReference, dueDate: '2026-12-31' });
  return `${invoice}: ${formatMoney('12000.00', 'MXN')} to ACME, reference ${paymentReference}`;
});
for (const [name, clabe, amount, outcome, state] of [
  ['expected credit to ACME', CLABE.acme, '12000.00', 'accepted', 'matched'],
  ['unexpected credit to Bodega Norte', CLABE.bodega, '75.50', 'accepted', 'orphan'],
  ['credit to a blocked account, refused', CLABE.juan, '430.00', 'rejected', 'refunded'],
] as const) {
  await check(`core: incoming SPEI, ${name}`, async () => {
    const body = { beneficiaryClabe: clabe, amount, ...(state === 'matched' ? { numericReference: paymentReference } : {}) };
    const credit = ok<{ transactionId: string }>(await control.triggerIncomingSpei({ body: body as never }), 'incoming SPEI');
    expectations.push({ what: `MONEY_IN ${name}`, eventType: 'MONEY_IN', outcome, match: (p) => bodyOf(p).id === credit.transactionId });
    expectedItems.push({ what: name, find: itemById(credit.transactionId), want: { state } });
    if (outcome === 'rejected') {
      expectations.push({ what: 'REFUND of the refused credit', eventType: 'REFUND', match: (p) => bodyOf(p).original_transaction_id === credit.transactionId });
      expectedItems.push({ what: 'the refund of the refused credit', find: (items) => items.find((item) => item.product === 'credit_refund' && item.amount === amount), want: { state: 'matched' } });
    }
    return `${formatMoney(amount, 'MXN')} → ${outcome}`;
  });
}
await check('cash: operations paid, expired, and paid then reversed (signed deliveries)', async () => {
  const done: string[] = [];
  for (const statuses of [['paid'], ['expired'], ['paid', 'reversed']] as const) {
    const operation = ok<{ operation_id: number }>(await control.createCashOperation({ body: { type: 'cash_in', amount: 500, externalUserId: 'cliente-42', closedReference: true } }), 'cash operation');
    for (const status of statuses) {
      ok(await control.setCashOperationStatus({ params: { operationId: operation.operation_id }, body: { status } }), `cash ${status}`);
      expectations.push({ what: `cash ${status} of operation ${operation.operation_id}`, eventType: `webhook.${status}.success`, match: (p) => p.operation_id === operation.operation_id });
    }
    done.push(statuses.join('→'));
  }
  return done.join(', ');
});
await check('remittance: receive into a private account', async () => {
  const answer = await createRemittanceClient(env('remittance')).receive({ partner_transaction_session_id: `start-${Date.now()}`, reference: 'REM-1', amount: '3200.00', currency: 'MXN' });
  return `${answer.status}, ready_for_commit ${answer.ready_for_commit}`;
});
await check('direct debit: a customer, and the instruments over the cursor', async () => {
  const dd = createDirectDebitClient({ ...env('direct-debit'), apiKey: DEFAULT_SEED.directDebit!.apiKeys[0]! });
  const customer = await dd.customers.create({ name: 'Ana López', document_type: 'mx_rfc', document_number: 'LOAA800101ABC' } as Parameters<typeof dd.customers.create>[0]);
  let count = 0;
  for await (const _instrument of dd.instruments.list({ limit: 1 })) count++;
  return `customer ${String((customer as { id?: unknown }).id)}; ${count} instrument(s) over the cursor`;
});
await check('direct debit: instruments and charges in the documented forms, charge_result delivered', async () => {
  const seed = DEFAULT_SEED.directDebit!;
  const webhook = { url: `${gateway.url}${DIRECT_DEBIT_WEBHOOK_PATH}`, authorization: directDebitAuthorization, form: 'current' as const };
  ok(await control.addSeed({ body: { directDebit: { orgId: seed.orgId, apiKeys: [], customers: [], instruments: [], webhook } } }), 'direct debit webhook');
  // Every created charge is recorded in the ledger, where its charge_result is reconciled against it.
  const dd = createDirectDebitClient({ ...env('direct-debit'), apiKey: seed.apiKeys[0]!, onChargeCreated: createChargeRecorder(database) });
  const customerId = seed.customers[0]!.id;
  const instrument = await dd.instruments.create({ type: 'mx_clabe', customer_id: customerId, mx_clabe: { identifier: '012180015118333755' } });
  const stored = await dd.charges.create({ currency: 'mxn', amount: 100, reference: 'start-dd-stored', customer_id: customerId, instrument_id: instrument.id });
  const inline = await dd.charges.create({
    currency: 'mxn',
    amount: 250.5,
    reference: 'start-dd-inline',
    inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
    inline_customer: { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' },
  });
  for (const [charge, result] of [[stored, 'confirmed'], [inline, 'declined']] as const) {
    ok(await control.triggerChargeResult({ params: { chargeId: charge.id }, body: { result } }), `charge ${result}`);
    expectations.push({ what: `charge_result ${result} of charge ${charge.id}`, eventType: 'charge_result', match: (p) => (p.data as { charge_id?: unknown } | undefined)?.charge_id === charge.id });
  }
  expectedItems.push({ what: 'direct debit charge confirmed', find: itemById(stored.id), want: { product: 'direct_debit_charge', state: 'matched', status: 'confirmed', amount: '100.00' } });
  expectedItems.push({ what: 'direct debit charge declined', find: itemById(inline.id), want: { product: 'direct_debit_charge', state: 'matched', status: 'declined', amount: '250.50' } });
  return `instrument ${instrument.id}; charges ${stored.id} confirmed, ${inline.id} declined`;
});
let reportFile = '';
await check('core: a daily report', async () => {
  const report = ok<{ fileName: string }>(await control.triggerReport({ body: { clientId: client.clientId, fileType: 'TRANSACTIONS', period: 'DAILY' } }), 'report');
  expectations.push({ what: `REPORT ${report.fileName}`, eventType: 'REPORT', match: (p) => p.file_name === report.fileName });
  reportFile = report.fileName;
  return report.fileName;
});
await check('billpay, gift cards, lottery: account (bearer)', async () => {
  await Promise.all([
    createBillpayClient({ ...env('billpay'), token: DEFAULT_SEED.bearer.billpay[0]! }).account.get(),
    createGiftCardsClient({ ...env('gift-cards'), token: DEFAULT_SEED.bearer['gift-cards'][0]! }).account.get(),
    createLotteryClient({ ...env('lottery'), token: DEFAULT_SEED.bearer.lottery[0]!.token }).account.get(),
  ]);
  return 'all three accounts read';
});

console.log('\n▶ Check what the gateway stored');
// Deliveries the API (not the control API) caused are sent after it answers: give them a moment.
let missing = expectations;
for (let i = 0; i < 50 && missing.length > 0; i++) {
  // Each event type read once per pass, however many expectations look at it.
  const stored = new Map<string, { payload: Record<string, unknown>; outcome: string }[]>();
  for (const eventType of new Set(missing.map((expected) => expected.eventType))) {
    stored.set(eventType, (await eventsSince(gateway.events, startSeq, { eventType })).map((e) => ({ payload: e.payload as Record<string, unknown>, outcome: e.outcome })));
  }
  const still = [];
  for (const expected of missing) {
    const found = stored.get(expected.eventType)!.find((e) => expected.match(e.payload));
    if (!found || (expected.outcome !== undefined && found.outcome !== expected.outcome)) still.push(expected);
  }
  missing = still;
  if (missing.length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
}
for (const expected of expectations) {
  const held = !missing.includes(expected);
  results.push({ step: `stored: ${expected.what}`, ok: held, detail: held ? (expected.outcome ?? 'stored') : 'not stored as expected' });
  if (!held) console.log(`  ✖ stored: ${expected.what}`);
}
const counts = new Map<string, number>();
const gained = await eventsSince(gateway.events, startSeq);
for (const event of gained) counts.set(`${event.eventType} ${event.outcome}`, (counts.get(`${event.eventType} ${event.outcome}`) ?? 0) + 1);
console.log(`  ${expectations.length - missing.length} of ${expectations.length} expected events stored as expected during this run`);
console.log(`  the store gained ${gained.length} event(s) during this run: ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`);

console.log('\n▶ Reconcile');
// The worker applies on its own; one more pass here makes sure nothing waits before reading.
await reconcileOnce(database);
// Only the items this run's events made or moved: an earlier run's must not stand in for them.
const items = (await listItems(database, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' })).filter((item) => item.eventSeqs.some((seq) => BigInt(seq) > startSeq) || ownIds.has(item.id));
for (const expected of expectedItems) {
  const item = expected.find(items);
  const held = item !== undefined && Object.entries(expected.want).every(([key, value]) => JSON.stringify(item[key as keyof ReconItem]) === JSON.stringify(value));
  const seen = item ? `${item.state}${item.fields.length > 0 ? ` (${item.fields.join(', ')})` : ''}` : 'no item';
  results.push({ step: `reconciled: ${expected.what}`, ok: held, detail: seen });
  console.log(`  ${held ? '✓' : '✖'} ${expected.what}: ${seen}${held ? '' : ` (expected ${JSON.stringify(expected.want)})`}`);
}
// The worker fetches the announced report file and imports it: the console's three-way match reads its lines.
if (reportFile !== '') {
  await check('reconciled: the daily report, matched three ways', async () => {
    for (let i = 0; i < 50; i++) {
      const lines = await reportMatches(database, reportFile);
      if (lines.length > 0) return `${lines.length} lines of ${reportFile}, ${lines.filter((l) => l.state === 'matched').length} matched`;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${reportFile} was not imported within 5 s (the worker fetches it from the sandbox as client ${client.clientId})`);
  });
}
const summary = await reconciliationSummary(database, { from: '2000-01-01', to: '2100-01-01' });
console.log('\n  reconciliation summary (day, product: matched / pending / stale / mismatched / orphan / refunded of total, match rate)');
for (const row of summary) {
  const s = row.states;
  console.log(
    `  ${row.day} ${row.product.padEnd(17)} ${s.matched.count} / ${s.pending.count} / ${s.stale.count} / ${s.mismatched.count} / ${s.orphan.count} / ${s.refunded.count} of ${row.total.count} (${formatMoney(row.total.amount, 'MXN')}), ${row.matchRate === null ? '—' : `${Math.round(row.matchRate * 100)}%`}`,
  );
}
console.log(`  console: ${worker.url}`);

const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? `\nAll ${results.length} steps and checks passed.` : `\n${failed} of ${results.length} steps and checks failed (details above and in ${path.relative(root, logFile)}).`);

const stopAll = async () => {
  await worker.close();
  await gateway.close();
  await database.close();
  await sandbox.close();
  logger.flush();
};
if (values.once) {
  await stopAll();
  process.exit(failed === 0 ? 0 : 1);
}
console.log(`\nRunning: sandbox ${sandbox.url}, gateway ${gateway.url}, console ${worker.url}. Try \`pnpm paykit trigger money-in --clabe ${CLABE.acme} --amount 100.00\`. Ctrl-C stops everything.`);
const live = setInterval(() => {
  void eventsSince(gateway.events, startSeq).then((events) => {
    if (process.stdout.isTTY) process.stdout.write(`\r  events stored during this run: ${events.length}`);
  });
}, 2000);
const stop = async () => {
  clearInterval(live);
  console.log('\nStopping…');
  await stopAll();
  process.exit(0);
};
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

/**
 * The gateway's admin token: GATEWAY_ADMIN_TOKEN when set; else a new one, written to a file only
 * its owner reads, whose path (never the token) is printed with the line that exports it.
 */
function adminToken(): string {
  if (process.env.GATEWAY_ADMIN_TOKEN) {
    adminTokenSource = 'GATEWAY_ADMIN_TOKEN from the environment';
    return process.env.GATEWAY_ADMIN_TOKEN;
  }
  const token = randomBytes(32).toString('base64url');
  const file = path.resolve(root, process.env.PAYKIT_DATA_DIR || '.data', 'gateway-admin-token');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  const shown = path.relative(process.cwd(), file);
  adminTokenSource = `in ${shown} (mode 600); for \`pnpm paykit events\` and \`pnpm paykit listen\`: export GATEWAY_ADMIN_TOKEN=$(cat ${shown})`;
  return token;
}

/** Whether a server could listen on `port` now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/** The seq of the newest stored event (0n: none). */
async function newestSeq(events: EventStore): Promise<bigint> {
  const [newest] = await events.list({ limit: 1 });
  return newest === undefined ? 0n : BigInt(newest.seq);
}

/** Every event stored after `seq` (newest first), read a page at a time back to it. */
async function eventsSince(events: EventStore, seq: bigint, filter: Omit<EventListFilter, 'before' | 'limit'> = {}): Promise<StoredEvent[]> {
  const found: StoredEvent[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await events.list({ ...filter, limit: 1000, ...(before === undefined ? {} : { before }) });
    const newer = page.filter((event) => BigInt(event.seq) > seq);
    found.push(...newer);
    if (page.length < 1000 || newer.length < page.length) return found;
    before = page.at(-1)!.seq;
  }
}
