// `pnpm start`: paykit on its embedded defaults, no server to install. Regenerates the clients (a
// turbo cache hit when nothing changed), checks the specs against the platform reference, then
// starts the sandbox (4010), the webhook gateway (4020), the reconciliation worker (4030: its
// /healthz and /metrics) and the finance console (4031) as processes, each through its own entry and
// configured by its environment as in production: the sandbox client's webhooks point at the
// gateway, and the gateway, the worker and the console share one store (DATABASE_URL, else PGlite served from this process: store.ts). Then it runs the
// scenario through every product (scenario.ts) and checks every event it caused in the store and
// every reconciliation item (checks.ts). The children's logs go to a file whose path is printed.
// Then everything keeps running until Ctrl-C, with a live count of stored events; with --once, it
// prints the reconciliation summary, stops, and the exit code says whether everything held.
// The store may outlive the run (without --once, or --once --persist): every check reads only what
// the store gained during this run, so events an earlier run left cannot stand in for this one's.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORE_EVENT_TYPES, sandboxControl, type Seed } from '@paykit/contracts';
import { reconciliationSummary } from '@paykit/ledger';
import { createEventStore, openDatabase, type Database } from '@paykit/store';
import { initClient } from '@ts-rest/core';
import { readOptions } from './args.ts';
import { checkReconciliation, checkStoredEvents, eventsSince, newestSeq, newExpectations } from './checks.ts';
import { CLI_DEFAULT_SANDBOX_URL, pasteBlock, printOutcome, printSummary, Results } from './output.ts';
import { ChildFailedError, startChild, stopRunning, type ChildApp, type ChildSpec } from './processes.ts';
import { ok, runScenario } from './scenario.ts';
import { PGLITE_CONNECT_TIMEOUT_MS } from './pglite-server.ts';
import { openSharedStore, type SharedStore } from './store.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const options = await readOptions(process.argv.slice(2), process.env);
const dataDir = path.resolve(root, process.env.PAYKIT_DATA_DIR || '.data');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const logFile = path.join(dataDir, 'logs', `start-${stamp}.log`);
// Paths are shown from where `pnpm start` was typed (pnpm runs the script in apps/dev).
const shownFrom = process.env.INIT_CWD || process.cwd();
const shownLog = path.relative(shownFrom, logFile);
mkdirSync(path.dirname(logFile), { recursive: true });

const step = (title: string, command: string, args: string[]) => {
  console.log(`\n▶ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(
      `\n✖ ${title} failed (exit ${result.status}). Fix what it printed above, then run \`pnpm start\` again.`,
    );
    process.exit(1);
  }
};
step('Generate the clients from specs/ (pnpm gen)', path.join(root, 'node_modules/.bin/turbo'), [
  'run',
  'codegen',
  '--output-logs=errors-only',
]);
step('Check the specs against the platform reference', process.execPath, [
  path.join(root, 'tooling/spec-checks/src/cli.ts'),
]);

const log = createWriteStream(logFile, { flags: 'a' });
console.log(`\n  logs: ${shownLog}`);

const children = new Map<string, ChildApp>();
/** What stopAll closes, once opened. */
const opened: { store?: SharedStore; db?: Database } = {};
let stopping = false;
const stopAll = async () => {
  stopping = true;
  // The console, the worker and the gateway first (they use the store), the sandbox last.
  for (const name of ['console', 'worker', 'gateway', 'sandbox']) await children.get(name)?.stop();
  // A child still starting (the gateway the scenario restarts, say) is in no map yet.
  await stopRunning();
  await opened.db?.close();
  await opened.store?.close();
  await new Promise((resolve) => log.end(resolve));
};
const fail = async (error: unknown): Promise<never> => {
  if (error instanceof ChildFailedError) {
    console.error(
      `\n✖ the ${error.app === 'worker' ? 'reconciliation worker' : error.app === 'console' ? 'finance console' : error.app} ${error.message.slice(error.app.length + 1)}. Its last lines (all of them in ${shownLog}):`,
    );
    for (const line of error.lastLines) console.error(`    ${line}`);
    if (error.lastLines.some((line) => /EADDRINUSE/.test(line)))
      console.error(`  Its port is taken: stop the other process or pick another port (pnpm start --help).`);
  } else {
    console.error(`\n✖ ${error instanceof Error ? error.message : String(error)}`);
  }
  await stopAll();
  process.exit(1);
};
const onSignal = () => {
  if (stopping) return;
  console.log('\nStopping…');
  void stopAll().then(() => process.exit(0));
};
// `on`, not `once`: Ctrl-C reaches this process twice through pnpm (from the terminal, and passed
// on by pnpm), and a second SIGINT without a listener would kill it before its children are stopped.
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Anything unexpected still stops the children and drops a throwaway store before exiting 1.
process.once('uncaughtException', (error) => void fail(error));

/** Starts a child and watches it: one that dies while it should be running fails the run. */
const start = async (spec: ChildSpec): Promise<ChildApp> => {
  // Stopping: nothing new starts (the run exits once the children it has are stopped).
  if (stopping) return new Promise<never>(() => undefined);
  const app = await startChild(root, spec, log).catch(fail);
  children.set(spec.name, app);
  void app.exited.then((code) => {
    if (!stopping && children.get(spec.name) === app) void fail(new ChildFailedError(spec.name, code, app.tail()));
  });
  return app;
};

console.log('\n▶ Start the sandbox');
// Outbound SPEI transfers settle only when the scenario says so (not 10 s later on their own). No
// random seed: each start draws its own, so no id of this run repeats one the store already holds.
const sandbox = await start({
  name: 'sandbox',
  entry: 'apps/sandbox/src/main.ts',
  env: { SANDBOX_PORT: String(options.port), SANDBOX_SPEI_SETTLE_AFTER: 'off' },
});
console.log(`  sandbox on ${sandbox.url} (control API ${sandbox.url}/_sandbox)`);
const seed = ok<Seed>(await initClient(sandboxControl, { baseUrl: sandbox.url }).getSeed(), 'seed');

console.log('\n▶ Start the webhook gateway');
// --once keeps nothing unless --persist. Otherwise DATABASE_URL, else PGlite under
// PAYKIT_DATA_DIR (default .data)/pglite: the store `pnpm paykit` records in.
const databaseUrl = process.env.DATABASE_URL || undefined;
const store = (opened.store = await openSharedStore({
  databaseUrl,
  keep: !options.once || options.persist,
  dataDir: path.join(dataDir, 'pglite'),
  root,
}).catch(fail));
const webhookTokens = Object.fromEntries(CORE_EVENT_TYPES.map((type) => [type, randomBytes(32).toString('base64url')]));
// The Authorization value an operator sets for the direct debit endpoint in the portal.
const directDebitAuthorization = `Bearer ${randomBytes(32).toString('base64url')}`;
const { token: adminToken, source: adminTokenSource, file: adminTokenFile } = makeAdminToken();
const gatewayEnv: Record<string, string> = {
  GATEWAY_PORT: String(options.gatewayPort),
  ...Object.fromEntries(CORE_EVENT_TYPES.map((type) => [`GATEWAY_CORE_TOKENS_${type}`, webhookTokens[type]!])),
  GATEWAY_DIRECT_DEBIT_TOKENS: directDebitAuthorization,
  GATEWAY_ADMIN_TOKEN: adminToken,
  DATABASE_URL: store.url,
  ...store.env,
};
let gateway = await start({ name: 'gateway', entry: 'apps/webhook-gateway/src/main.ts', env: gatewayEnv });
// The kind of store only: a PostgreSQL URL names its user, host and database.
console.log(`  gateway on ${gateway.url} (store: ${store.description})`);
console.log(`  admin token: ${adminTokenSource}`);
const db = (opened.db = await openDatabase({
  databaseUrl: store.url,
  poolSize: 2,
  // Long enough to wait for a turn at PGlite's one backend (pglite-server.ts); a server answers sooner.
  connectTimeoutMs: PGLITE_CONNECT_TIMEOUT_MS,
}).catch(fail));
const events = createEventStore(db);
// What the store held before this run: the checks read only what it gained since.
const startSeq = await newestSeq(events);
console.log(`  the store held ${startSeq === 0n ? 'empty' : `events up to seq ${startSeq}`} before this run`);

console.log('\n▶ Start the reconciliation worker and the finance console');
const client = seed.core.clients[0]!;
const staging = client.credentials.find((c) => c.environment === 'staging')!;
// The worker fetches the report files the sandbox announces (the three-way match's third leg) as the seed's first client.
const worker = await start({
  name: 'worker',
  entry: 'apps/reconciliation-worker/src/main.ts',
  env: {
    WORKER_PORT: String(options.workerPort),
    WORKER_POLL_MS: '200',
    WORKER_REPORT_POLL_MS: '500',
    WORKER_CORE_BASE_URL: `${sandbox.url}/core`,
    WORKER_CORE_CLIENT_ID: client.clientId,
    WORKER_CORE_API_KEY: client.apiKeys.staging,
    WORKER_CORE_CLIENT_SECRET: staging.clientSecret,
    DATABASE_URL: store.url,
    ...store.env,
  },
});
console.log(`  worker on ${worker.url} (/healthz, /metrics)`);
// The console reads the same store, and shows the worker's progress from its /healthz.
const consoleApp = await start({
  name: 'console',
  entry: 'apps/console/src/main.ts',
  env: {
    CONSOLE_PORT: String(options.consolePort),
    CONSOLE_WORKER_URL: worker.url,
    DATABASE_URL: store.url,
    ...store.env,
  },
});
console.log(`  console on ${consoleApp.url}`);

const results = new Results(log);
const expected = newExpectations();
await runScenario({
  sandboxUrl: sandbox.url,
  gatewayUrl: gateway.url,
  seed,
  db,
  webhookTokens,
  directDebitAuthorization,
  results,
  expected,
  // As an operator would: the secret goes into the gateway's environment and the gateway restarts, on the same port.
  async addCashSecret(secret) {
    const previous = gateway;
    children.delete('gateway');
    await previous.stop();
    gatewayEnv.GATEWAY_CASH_SECRET_TOKENS = secret;
    gatewayEnv.GATEWAY_PORT = new URL(previous.url).port;
    gateway = await start({ name: 'gateway', entry: 'apps/webhook-gateway/src/main.ts', env: gatewayEnv });
  },
});

console.log('\n▶ Check what the gateway stored');
await checkStoredEvents(events, startSeq, expected.events, results);
console.log('\n▶ Reconcile');
await checkReconciliation(db, startSeq, expected, results, client.clientId);
printSummary(await reconciliationSummary(db, { from: '2000-01-01', to: '2100-01-01' }));
console.log(`  console: ${consoleApp.url}`);
printOutcome(results, shownLog);

if (options.once) {
  await stopAll();
  process.exit(results.failed === 0 ? 0 : 1);
}
console.log(
  `\nRunning: sandbox ${sandbox.url}, gateway ${gateway.url}, worker ${worker.url}, console ${consoleApp.url}.`,
);
console.log(
  pasteBlock({
    sandboxUrl: sandbox.url,
    gatewayUrl: gateway.url,
    databaseUrl: store.printableUrl,
    adminTokenFile,
  }),
);
// The CLI's sandbox profile talks to 4010 unless told otherwise: a hint copied alone must reach this run.
const cli = sandbox.url === CLI_DEFAULT_SANDBOX_URL ? 'pnpm paykit' : `PAYKIT_SANDBOX_URL=${sandbox.url} pnpm paykit`;
console.log(`Try \`${cli} trigger money-in --clabe 646180000000000012 --amount 100.00\`. Ctrl-C stops everything.`);
setInterval(() => {
  void eventsSince(events, startSeq).then(
    (gained) => {
      if (process.stdout.isTTY) process.stdout.write(`\r  events stored during this run: ${gained.length}`);
    },
    () => {},
  );
}, 2000).unref();

/**
 * The gateway's admin token: GATEWAY_ADMIN_TOKEN when set; else a new one, written to a file only
 * its owner reads, whose path (never the token) is printed with the line that exports it.
 */
function makeAdminToken(): { token: string; source: string; file?: string } {
  if (process.env.GATEWAY_ADMIN_TOKEN)
    return { token: process.env.GATEWAY_ADMIN_TOKEN, source: 'GATEWAY_ADMIN_TOKEN from the environment' };
  const token = randomBytes(32).toString('base64url');
  const file = path.join(dataDir, 'gateway-admin-token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  const shown = path.relative(shownFrom, file);
  return {
    token,
    file: shown,
    source: `in ${shown} (mode 600); for \`pnpm paykit events\` and \`pnpm paykit listen\`: export GATEWAY_ADMIN_TOKEN=$(cat ${shown})`,
  };
}
