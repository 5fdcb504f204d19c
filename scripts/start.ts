// `pnpm start`: paykit on its embedded defaults. Regenerates the clients (a turbo cache hit when
// nothing changed), checks the specs against the platform reference, starts the sandbox, and
// drives every product through the paykit clients over real HTTP. Then the sandbox keeps
// serving until Ctrl-C; with --once, it stops and the exit code says whether every step passed.
// The gateway, worker and console join this command as they land.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBillpayClient } from '@paykit/billpay-client';
import { createCashClient } from '@paykit/cash-client';
import { sandboxControl } from '@paykit/contracts';
import { createCoreClient } from '@paykit/core-client';
import { createDirectDebitClient } from '@paykit/direct-debit-client';
import { createGiftCardsClient } from '@paykit/gift-cards-client';
import { createLotteryClient } from '@paykit/lottery-client';
import { createRemittanceClient } from '@paykit/remittance-client';
import { maskSecret } from '@paykit/runtime';
import { DEFAULT_SEED, startSandbox } from '@paykit/sandbox';
import { initClient } from '@ts-rest/core';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { once: { type: 'boolean' }, port: { type: 'string' } } });
const port = Number(values.port ?? process.env.SANDBOX_PORT ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`Invalid port "${values.port ?? process.env.SANDBOX_PORT}" (--port or SANDBOX_PORT): give a whole number from 0 to 65535.`);
  process.exit(2);
}

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

console.log('\n▶ Start the sandbox');
const sandbox = await startSandbox({ port }).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(/EADDRINUSE/.test(message) ? `Port ${port} is taken: stop the other process or run \`pnpm start --port N\` (or SANDBOX_PORT=N).` : message);
  process.exit(1);
});
console.log(`  sandbox on ${sandbox.url} (control API ${sandbox.controlUrl})`);

const control = initClient(sandboxControl, { baseUrl: sandbox.url });
const client = DEFAULT_SEED.core.clients[0]!;
const staging = client.credentials.find((c) => c.environment === 'staging')!;
// The hand-written clients, as a product team would use them; the sandbox's clock is theirs.
const now = () => sandbox.runtime.clock.now();
const env = (product: keyof typeof sandbox.urls) => ({ environment: 'sandbox' as const, baseUrl: sandbox.urls[product] });
const core = createCoreClient({ ...env('core'), clientId: client.clientId, apiKey: client.apiKeys.staging, clientSecret: staging.clientSecret, now });
const ACME = '66666666-6666-4666-8666-000000000001';

const results: { step: string; ok: boolean; detail: string }[] = [];
async function check(name: string, run: () => Promise<string>) {
  try {
    results.push({ step: name, ok: true, detail: await run() });
  } catch (error) {
    // paykit errors never carry a secret; their messages say what to check.
    results.push({ step: name, ok: false, detail: error instanceof Error ? error.message : String(error) });
  }
}

console.log('\n▶ Drive every product through the paykit clients');
await check('core: credentials (x-api-key)', async () => {
  const { data } = await core.credentials.list();
  return `${data.length} credential(s), ${data.map((c) => `${c.environment} ${c.status}`).join(', ')}`;
});
await check('core: bearer token', async () => {
  const token = await core.tokens.current();
  return `token ${maskSecret(token.token)}, expires ${token.expiresAt}`;
});
await check('core: penny validation, CEP lookup completed', async () => {
  const tx = await core.transactions.pennyValidation({ source_instrument_id: ACME, destination_instrument_id: '66666666-6666-4666-8666-000000000004' });
  const cep = await control.triggerCepOutcome({ params: { transactionId: tx.id }, body: { status: 'COMPLETED' } });
  return `${tx.amount} ${tx.currency} ${tx.transactionStatus} → CEP ${cep.status === 200 ? cep.body.status : `failed (${cep.status})`}`;
});
await check('core: money_out to an external CLABE (SPEI), settled', async () => {
  const tx = (await core.transactions.moneyOut({ source_instrument_id: ACME, destination_instrument_id: '66666666-6666-4666-8666-000000000005', amount: '1500.00', description: 'Payroll' })) as { id: string; subCategory?: string };
  const settled = await control.triggerSpeiSettle({ params: { transactionId: tx.id }, body: {} });
  return `${tx.subCategory} → ${settled.status === 200 ? settled.body.status : `failed (${settled.status})`}`;
});
await check('core: money_out to a platform account (internal)', async () => {
  const tx = await core.transactions.moneyOut({ source_instrument_id: ACME, destination_instrument_id: '66666666-6666-4666-8666-000000000002', amount: '250.00' });
  return `${tx.subCategory}`;
});
await check('direct debit: instruments (x-api-key, cursor)', async () => {
  const dd = createDirectDebitClient({ ...env('direct-debit'), apiKey: DEFAULT_SEED.directDebit!.apiKeys[0]! });
  let count = 0;
  for await (const _instrument of dd.instruments.list({ limit: 100 })) count++;
  return `${count} instrument(s) over the cursor`;
});
await check('cash: signed request', async () => {
  const { apiKey, apiSecret } = DEFAULT_SEED.cash[0]!;
  const cash = createCashClient({ ...env('cash'), apiKey, apiSecret, now });
  // No receiver yet (the gateway comes later): the activation test fails and the webhook stays inactive.
  const created = await cash.webhooks.create('http://127.0.0.1:9/cash');
  return `webhook ${created.id} created, secret ${maskSecret(String(created.secret_token))}`;
});
await check('remittance: receive into a private account', async () => {
  const answer = await createRemittanceClient(env('remittance')).receive({ partner_transaction_session_id: `start-${Date.now()}`, reference: 'REM-1', amount: '3200.00', currency: 'MXN' });
  return `${answer.status}, ready_for_commit ${answer.ready_for_commit}`;
});
await check('billpay, gift cards, lottery: account (bearer)', async () => {
  await Promise.all([
    createBillpayClient({ ...env('billpay'), token: DEFAULT_SEED.bearer.billpay[0]! }).account.get(),
    createGiftCardsClient({ ...env('gift-cards'), token: DEFAULT_SEED.bearer['gift-cards'][0]! }).account.get(),
    createLotteryClient({ ...env('lottery'), token: DEFAULT_SEED.bearer.lottery[0]!.token }).account.get(),
  ]);
  return 'all three accounts read';
});

const width = Math.max(...results.map((r) => r.step.length));
for (const r of results) console.log(`  ${r.ok ? '✓' : '✖'} ${r.step.padEnd(width)}  ${r.detail}`);
const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? `\nAll ${results.length} steps passed.` : `\n${failed} of ${results.length} steps failed.`);

if (values.once) {
  await sandbox.close();
  process.exit(failed === 0 ? 0 : 1);
}
console.log(`\nThe sandbox keeps running on ${sandbox.url}: point the paykit clients at it (GET ${sandbox.controlUrl}/seed lists its keys). Ctrl-C to stop.`);
const stop = async () => {
  await sandbox.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
