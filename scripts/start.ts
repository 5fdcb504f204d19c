// `pnpm start`: paykit on its embedded defaults. Regenerates the clients (a turbo cache hit when
// nothing changed), checks the specs against the platform reference, starts the sandbox, and
// drives every product through the generated clients over real HTTP. Then the sandbox keeps
// serving until Ctrl-C; with --once, it stops and the exit code says whether every step passed.
// The gateway, worker and console join this command as they land.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient as createBillpayClient, getClientAccount as billpayAccount } from '@paykit/billpay-client';
import { createCashWebhook, createClient as createCashClient } from '@paykit/cash-client';
import { sandboxControl } from '@paykit/contracts';
import {
  createClient as createCoreClient,
  createCredentialToken,
  createMoneyOut,
  createPennyValidation,
  listClientCredentials,
} from '@paykit/core-client';
import { createClient as createDirectDebitClient, listInstruments } from '@paykit/direct-debit-client';
import { createClient as createGiftCardsClient, getClientAccount as giftCardsAccount } from '@paykit/gift-cards-client';
import { createClient as createLotteryClient, getClientAccount as lotteryAccount } from '@paykit/lottery-client';
import { createClient as createRemittanceClient, receiveRemittance } from '@paykit/remittance-client';
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

/** Secrets are shown masked, never whole. */
const mask = (secret: string) => `${secret.slice(0, 6)}…${secret.slice(-2)}`;
const control = initClient(sandboxControl, { baseUrl: sandbox.url });
const client = DEFAULT_SEED.core.clients[0]!;
const staging = client.credentials.find((c) => c.environment === 'staging')!;
let token = '';
const core = createCoreClient({ baseUrl: sandbox.urls.core, auth: (a) => ('name' in a && a.name === 'x-api-key' ? client.apiKeys.staging : token) });

const results: { step: string; ok: boolean; detail: string }[] = [];
async function check(name: string, run: () => Promise<string>) {
  try {
    results.push({ step: name, ok: true, detail: await run() });
  } catch (error) {
    results.push({ step: name, ok: false, detail: error instanceof Error ? error.message : String(error) });
  }
}
function must<T>(result: { data?: T; error?: unknown; response?: Response }, what: string): T {
  if (result.data === undefined) throw new Error(`${what}: HTTP ${result.response?.status ?? '?'} ${JSON.stringify(result.error)}`);
  return result.data;
}

console.log('\n▶ Drive every product through the generated clients');
await check('core: credentials (x-api-key)', async () => {
  const { data } = must(await listClientCredentials({ client: core, path: { clientId: client.clientId } }), 'credential retrieval');
  return `${data.length} credential(s), ${data.map((c) => `${c.environment} ${c.status}`).join(', ')}`;
});
await check('core: bearer token', async () => {
  const created = must(await createCredentialToken({ client: core, path: { clientId: client.clientId }, body: { client_id: client.clientId, client_secret: staging.clientSecret } }), 'token creation');
  token = created.token;
  return `token ${mask(created.token)}, expires ${created.expires_at} Mexico City`;
});
await check('core: penny validation, CEP lookup completed', async () => {
  const tx = must(
    await createPennyValidation({ client: core, body: { client_id: client.clientId, source_instrument_id: '66666666-6666-4666-8666-000000000001', destination_instrument_id: '66666666-6666-4666-8666-000000000004' } }),
    'penny validation',
  );
  const cep = await control.triggerCepOutcome({ params: { transactionId: tx.id }, body: { status: 'COMPLETED' } });
  return `${tx.amount} ${tx.currency} ${tx.transactionStatus} → CEP ${cep.status === 200 ? cep.body.status : `failed (${cep.status})`}`;
});
await check('core: money_out to an external CLABE (SPEI), settled', async () => {
  const tx = must(
    await createMoneyOut({ client: core, body: { client_id: client.clientId, source_instrument_id: '66666666-6666-4666-8666-000000000001', destination_instrument_id: '66666666-6666-4666-8666-000000000005', amount: '1500.00', description: 'Payroll' } }),
    'money_out',
  ) as { id: string; subCategory?: string };
  const settled = await control.triggerSpeiSettle({ params: { transactionId: tx.id }, body: {} });
  return `${tx.subCategory} → ${settled.status === 200 ? settled.body.status : `failed (${settled.status})`}`;
});
await check('core: money_out to a platform account (internal)', async () => {
  const tx = must(
    await createMoneyOut({ client: core, body: { client_id: client.clientId, source_instrument_id: '66666666-6666-4666-8666-000000000001', destination_instrument_id: '66666666-6666-4666-8666-000000000002', amount: '250.00' } }),
    'money_out',
  ) as { subCategory?: string };
  return `${tx.subCategory}`;
});
await check('direct debit: instruments (x-api-key, cursor)', async () => {
  const dd = createDirectDebitClient({ baseUrl: sandbox.urls['direct-debit'], auth: () => DEFAULT_SEED.directDebit!.apiKeys[0]! });
  const page = must(await listInstruments({ client: dd, query: { limit: 100 } }), 'instrument list');
  return `${page.instruments.length} instrument(s), has_next ${page.has_next}`;
});
await check('cash: signed request', async () => {
  const { apiKey, apiSecret } = DEFAULT_SEED.cash[0]!;
  const cash = createCashClient({ baseUrl: sandbox.urls.cash });
  cash.interceptors.request.use(async (request) => {
    const body = await request.clone().text();
    const timestamp = String(Math.floor(sandbox.runtime.clock.nowMs() / 1000));
    request.headers.set('x-client-id', apiKey);
    request.headers.set('x-timestamp', timestamp);
    request.headers.set('x-signature', createHmac('sha256', apiSecret).update(`${timestamp}.${body}`).digest('hex'));
    return request;
  });
  // No receiver yet (the gateway comes later): the activation test fails and the webhook stays inactive.
  const created = must(await createCashWebhook({ client: cash, body: { endpoint_url: 'http://127.0.0.1:9/cash' } }), 'cash webhook');
  return `webhook ${created.id} created, secret ${mask(String(created.secret_token))}`;
});
await check('remittance: receive into a private account', async () => {
  const remittance = createRemittanceClient({ baseUrl: sandbox.urls.remittance });
  const answer = must(await receiveRemittance({ client: remittance, body: { partner_transaction_session_id: `start-${Date.now()}`, reference: 'REM-1', amount: '3200.00', currency: 'MXN' } }), 'remittance');
  return `${answer.status}, ready_for_commit ${answer.ready_for_commit}`;
});
await check('billpay, gift cards, lottery: account (bearer)', async () => {
  const bearer = (baseUrl: string, token: string) => ({ baseUrl, auth: () => token });
  const answers = await Promise.all([
    billpayAccount({ client: createBillpayClient(bearer(sandbox.urls.billpay, DEFAULT_SEED.bearer.billpay[0]!)) }),
    giftCardsAccount({ client: createGiftCardsClient(bearer(sandbox.urls['gift-cards'], DEFAULT_SEED.bearer['gift-cards'][0]!)) }),
    lotteryAccount({ client: createLotteryClient(bearer(sandbox.urls.lottery, DEFAULT_SEED.bearer.lottery[0]!.token)) }),
  ]);
  return answers.map((a, i) => `${['billpay', 'gift-cards', 'lottery'][i]} ${a.response?.status ?? 'no answer'}`).join(', ');
});

const width = Math.max(...results.map((r) => r.step.length));
for (const r of results) console.log(`  ${r.ok ? '✓' : '✖'} ${r.step.padEnd(width)}  ${r.detail}`);
const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? `\nAll ${results.length} steps passed.` : `\n${failed} of ${results.length} steps failed.`);

if (values.once) {
  await sandbox.close();
  process.exit(failed === 0 ? 0 : 1);
}
console.log(`\nThe sandbox keeps running on ${sandbox.url}: point the generated clients at it (GET ${sandbox.controlUrl}/seed lists its keys). Ctrl-C to stop.`);
const stop = async () => {
  await sandbox.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
