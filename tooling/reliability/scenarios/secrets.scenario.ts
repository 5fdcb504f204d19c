// Scenario 7, secrets: produces, on purpose, every kind of output the issue names — the gateway's
// error bodies (401, 400, 404, 413, 415, 422, and 503 with the store cut), its /metrics text and
// admin answers, the worker console's pages, the sandbox's error bodies (with real secrets sent to
// the wrong place, to see none is echoed), and the `paykit` CLI's outputs with --json and without,
// failures (401, a refused secret, an unreachable database) and the commands that create secrets —
// records each for the secret audit, then scans everything recorded so far in the run for every
// configured and declared secret: zero findings. A positive control proves the scan would catch
// one. With DATABASE_URL the store's URL carries a password (trust auth ignores it), audited too.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, type Seed } from '@paykit/contracts';
import { createCoreClient, type CoreClientOptions } from '@paykit/core-client';
import { signCashRequest } from '@paykit/cash-client';
import { hmacSha256Hex } from '@paykit/runtime';
import { createScratchDatabase, type ScratchDatabase } from '@paykit/store/testing';
import { startAppProcess } from '@paykit/testing/app-process';
import { runNode, type NodeRun as Run } from '@paykit/testing/run-node';
import {
  ALL_CONFIGURED_SECRETS,
  AUDIT_DIR_ENV,
  TEST_SECRETS,
  declareSecret,
  describeError,
  readDeclaredSecrets,
  readRecorded,
  record,
  scan,
} from '@paykit/testing/secret-audit';
import { ACME_CLABE, auditDeliveries, recordScenario, scaled, startStack, type Stack } from '../src/index.ts';

const CLI_MAIN = path.resolve(import.meta.dirname, '../../../apps/scripts/src/main.ts');
const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../../apps/webhook-gateway/src/main.ts');
const WORKER_MAIN = path.resolve(import.meta.dirname, '../../../apps/reconciliation-worker/src/main.ts');
/** Credits triggered through the sandbox so the gateway, its admin API and the console have events to show. */
const CREDITS = scaled(20, 5);

/** How many outputs of each kind this file produced itself (the child processes' lines are recorded by the stack). */
const produced = new Map<string, number>();
function keep(kind: string, text: string): void {
  record(kind, text);
  produced.set(kind, (produced.get(kind) ?? 0) + 1);
}

/** A random value shaped like a credential, declared so the audit searches every output for it. */
function wrongSecret(prefix: string, bytes = 18): string {
  const value = `${prefix}${randomBytes(bytes).toString('hex')}`;
  declareSecret(value);
  return value;
}

interface Answer {
  status: number;
  text: string;
}

/** One HTTP exchange; the answer (status, headers, body) is recorded as `kind`. The request is not: it carries secrets on purpose. */
async function exchange(kind: string, url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(20_000) });
  const text = await response.text();
  const headers = JSON.stringify(Object.fromEntries(response.headers));
  keep(kind, `${init.method ?? 'GET'} ${new URL(url).pathname} → ${response.status} ${headers}\n${text}`);
  return { status: response.status, text };
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

let stack: Stack;
let seed: Seed;
let dir: string;
let ledger: ScratchDatabase | undefined;
const originalDatabaseUrl = process.env.DATABASE_URL;
const startedAt = performance.now();
/** 503 answers produced on purpose (the store cut), and the label values /metrics showed. */
let outageAnswers = 0;
let labelValues = 0;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-rel-secrets-'));
  if (originalDatabaseUrl) {
    // A production store URL carries a password, and every process and answer that names the
    // store is audited for it: the configured one, or (trust auth, as in CI) one that is ignored.
    const url = new URL(originalDatabaseUrl);
    if (url.password === '') url.password = wrongSecret('pgpw_');
    declareSecret(url.password);
    declareSecret(decodeURIComponent(url.password));
    process.env.DATABASE_URL = url.toString();
    // The CLI's ledger commands get their own database (the stack's is its own business).
    ledger = await createScratchDatabase(process.env.DATABASE_URL, 'rel_secrets_cli');
  }
  stack = await startStack({
    name: 'secrets',
    proxy: originalDatabaseUrl !== undefined,
    // Every log level on: whatever a debugging operator would see is audited too.
    gatewayEnv: {
      GATEWAY_CASH_SECRET_TOKENS: TEST_SECRETS.cashSecretToken,
      GATEWAY_COMMIT_TIMEOUT_MS: '1000',
      GATEWAY_BODY_LIMIT_BYTES: '65536',
      GATEWAY_LOG_LEVEL: 'trace',
    },
  });
  const answer = await stack.sandbox.control.getSeed();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/seed answered ${answer.status}: is the sandbox healthy?`);
  seed = answer.body;
  for (let i = 0; i < CREDITS; i++) {
    const credit = await stack.sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: ACME_CLABE, amount: `${100 + i}.00` },
    });
    if (credit.status !== 200) throw new Error(`triggering a credit answered ${credit.status}`);
  }
  await stack.drainDeliveries();
});

afterAll(async () => {
  await stack?.close();
  await ledger?.drop();
  if (originalDatabaseUrl === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = originalDatabaseUrl;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('no secret in any output', () => {
  it("the sandbox's error bodies, with real secrets sent to the wrong place", async () => {
    const client = seed.core.clients[0]!;
    const staging = client.credentials.find((c) => c.environment === 'staging')!;
    const production = client.credentials.find((c) => c.environment === 'production')!;
    const core = `${stack.sandbox.urls.core}/v1/clients/${client.clientId}`;
    const kind = 'sandbox error body';
    const expectStatus = async (status: number, url: string, init?: RequestInit) =>
      expect((await exchange(kind, url, init)).status, url).toBe(status);

    await expectStatus(401, `${core}/webhooks`);
    await expectStatus(401, `${core}/webhooks`, { headers: { authorization: `Bearer ${wrongSecret('eyJwrong.')}` } });
    await expectStatus(401, `${core}/credentials`, { headers: { 'x-api-key': wrongSecret('pk_staging_wrong_') } });
    // The production credential's secret, sent for the staging key: refused without being repeated.
    await expectStatus(
      400,
      `${core}/auth/credential-tokens`,
      json(
        { client_id: client.clientId, client_secret: production.clientSecret },
        { 'x-api-key': client.apiKeys.staging },
      ),
    );
    // A body that is not JSON, with the secret in it: the parse error must not quote it.
    await expectStatus(
      400,
      `${core}/auth/credential-tokens`,
      json(`{"client_id":"${client.clientId}","client_secret":${staging.clientSecret}}`, {
        'x-api-key': client.apiKeys.staging,
      }),
    );

    const dd = stack.sandbox.urls['direct-debit'];
    await expectStatus(401, `${dd}/customers`, json({ name: 'Ana' }, { 'x-api-key': wrongSecret('dd_wrong_') }));
    await expectStatus(
      422,
      `${dd}/customers`,
      json(`{"name": ${seed.directDebit!.apiKeys[0]!}}`, { 'x-api-key': seed.directDebit!.apiKeys[0]! }),
    );

    const cash = seed.cash[0]!;
    const body = JSON.stringify({ url: 'https://hooks.example.com/cash' });
    const signed = signCashRequest({
      apiKey: cash.apiKey,
      apiSecret: wrongSecret('cash_wrong_'),
      body,
      timestampSeconds: Math.floor(Date.now() / 1000),
    });
    await expectStatus(401, `${stack.sandbox.urls.cash}/api/v1/cash/webhooks`, json(body, signed));

    for (const product of ['billpay', 'gift-cards', 'lottery'] as const) {
      await expectStatus(401, `${stack.sandbox.urls[product]}/api/v1/client/account`, {
        headers: { authorization: `Bearer ${wrongSecret(`${product}_wrong_`)}` },
      });
    }
    // The control API's refusals.
    await expectStatus(
      400,
      `${stack.sandbox.url}/_sandbox/core/incoming-spei`,
      json({ beneficiaryClabe: '123', amount: '1' }),
    );
    await expectStatus(404, `${stack.sandbox.url}/_sandbox/core/transactions/${randomUUID()}/settle`, json({}));
  });

  it("the paykit CLI's outputs, --json and not: reads, failures, and the commands that create secrets", async () => {
    const client = seed.core.clients[0]!;
    const production = client.credentials.find((c) => c.environment === 'production')!;
    const tokenDir = path.join(dir, 'tokens');
    // Not ./paykit.config.json: the other commands use the built-in sandbox profile.
    const config = path.join(dir, 'profiles.json');
    const inline = path.join(dir, 'inline.json');
    writeFileSync(path.join(dir, 'wrong-secret'), production.clientSecret);
    writeFileSync(
      config,
      JSON.stringify({
        profiles: {
          'wrong-key': {
            environment: 'staging',
            core: {
              baseUrl: stack.sandbox.urls.core,
              clientId: client.clientId,
              apiKey: { env: 'WRONG_CORE_API_KEY' },
            },
          },
          'wrong-secret': {
            environment: 'staging',
            core: {
              baseUrl: stack.sandbox.urls.core,
              clientId: client.clientId,
              apiKey: { env: 'STAGING_CORE_API_KEY' },
              clientSecret: { file: path.join(dir, 'wrong-secret') },
            },
          },
          'wrong-bearer': {
            environment: 'staging',
            billpay: { baseUrl: stack.sandbox.urls.billpay, token: { env: 'WRONG_BILLPAY_TOKEN' } },
          },
          'wrong-dd': {
            environment: 'staging',
            directDebit: { baseUrl: stack.sandbox.urls['direct-debit'], apiKey: { env: 'WRONG_DD_KEY' } },
          },
        },
      }),
    );
    // A secret written into the file instead of referenced: the file is refused, the secret not repeated.
    writeFileSync(
      inline,
      JSON.stringify({
        profiles: {
          inline: { environment: 'staging', core: { clientId: client.clientId, apiKey: wrongSecret('pk_inline_') } },
        },
      }),
    );
    const store: Record<string, string> = ledger
      ? { DATABASE_URL: ledger.url }
      : { PAYKIT_DATA_DIR: path.join(dir, 'ledger') };
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PAYKIT_CONFIG: '',
      PAYKIT_SANDBOX_URL: stack.sandbox.url,
      PAYKIT_GATEWAY_URL: stack.gatewayUrl,
      GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
      PAYKIT_TOKEN_DIR: tokenDir,
      WRONG_CORE_API_KEY: wrongSecret('pk_staging_wrong_'),
      STAGING_CORE_API_KEY: client.apiKeys.staging,
      WRONG_BILLPAY_TOKEN: wrongSecret('bp_wrong_'),
      WRONG_DD_KEY: wrongSecret('dd_wrong_'),
      ...store,
    };
    const paykit = async (args: string[], extra: Record<string, string> = {}) => {
      const run = await runNode(CLI_MAIN, args, { name: 'paykit', env: { ...env, ...extra }, cwd: dir });
      produced.set('paykit output', (produced.get('paykit output') ?? 0) + 2);
      return run;
    };
    /** Every token or secret a command wrote to a file: declared, so the audit looks for it. */
    const declareTokenFiles = () => {
      for (const file of readdirSync(tokenDir)) declareSecret(readFileSync(path.join(tokenDir, file), 'utf8').trim());
    };
    const variants = (args: string[]) => [['--json', ...args], args];
    const expectCode = (args: string[], run: Run, code: number) =>
      expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(code);
    /** The command with --json and without, side by side (two processes at once: the 2 cores are enough). */
    const both = async (args: string[], code: number, extra: Record<string, string> = {}) => {
      const runs = await Promise.all(variants(args).map(async (line) => ({ line, run: await paykit(line, extra) })));
      for (const { line, run } of runs) expectCode(line, run, code);
    };
    /** The same one after the other: a PGlite store serves one process at a time. */
    const bothInTurn = async (args: string[], code: number) => {
      for (const line of variants(args)) expectCode(line, await paykit(line), code);
    };

    await both(['auth', 'token'], 0);
    await both(['credentials', 'list'], 0);
    await both(['webhooks', 'list'], 0);
    await both(['trigger', 'money-in', '--clabe', ACME_CLABE, '--amount', '250.00'], 0);
    await both(
      [
        '--dry-run',
        'money-out',
        '--source',
        '66666666-6666-4666-8666-000000000001',
        '--destination',
        '66666666-6666-4666-8666-000000000005',
        '--amount',
        '10.00',
      ],
      0,
    );

    // Secrets created: a CEP webhook registered again (its token generated), its token rotated, a cash webhook.
    expect((await paykit(['--json', 'webhooks', 'delete', await webhookId('CEP')])).code).toBe(0);
    expect(
      (await paykit(['webhooks', 'register', '--type', 'CEP', '--url', `${stack.gatewayUrl}${CORE_EVENT_PATHS.CEP}`]))
        .code,
    ).toBe(0);
    declareTokenFiles();
    const registered = await webhookId('CEP');
    expect((await paykit(['--json', 'webhooks', 'rotate-token', registered])).code).toBe(0);
    declareTokenFiles();
    expect((await paykit(['webhooks', 'rotate-token', registered])).code).toBe(0);
    declareTokenFiles();
    // Its activation test reaches the gateway signed with a secret the gateway does not hold (401 there).
    expect((await paykit(['cash', 'webhook', 'create', '--url', `${stack.gatewayUrl}${CASH_WEBHOOK_PATH}`])).code).toBe(
      0,
    );
    declareTokenFiles();
    await both(['cash', 'webhook', 'get'], 1); // none active: the activation test was refused

    // The gateway's stored events through its admin API, and the same with a wrong admin token.
    await both(['events', 'list', '--limit', '5'], 0);
    const [latest] = JSON.parse((await paykit(['--json', 'events', 'list', '--limit', '1'])).stdout) as {
      seq: string;
    }[];
    await both(['events', 'show', latest!.seq], 0);
    await both(['events', 'replay', latest!.seq], 0);
    await both(['events', 'list'], 1, { GATEWAY_ADMIN_TOKEN: wrongSecret('adm_wrong_') });

    // Failures: an API key the platform refuses (401), a client secret of another environment, bearer and direct debit keys refused.
    await both(['--config', config, '--profile', 'wrong-key', 'auth', 'token'], 1);
    await both(['--config', config, '--profile', 'wrong-secret', 'auth', 'token'], 1);
    await both(['--config', config, '--profile', 'wrong-bearer', 'billpay', 'account'], 1);
    await both(['--config', config, '--profile', 'wrong-dd', 'dd', 'instruments', 'list'], 1);
    await both(['--config', inline, '--profile', 'inline', 'auth', 'token'], 2);

    // The ledger commands on their own store, and on a database that does not answer (its URL has a password).
    await bothInTurn(['reconcile', 'run', '--once'], 0);
    await bothInTurn(['reconcile', 'summary'], 0);
    const unreachable = `postgres://paykit:${wrongSecret('pgpw_')}@127.0.0.1:9/paykit`;
    await both(['reconcile', 'summary'], 1, { DATABASE_URL: unreachable });
  }, 180_000);

  it("the core client's errors, its secrets wrong or misplaced", async () => {
    const client = seed.core.clients[0]!;
    const production = client.credentials.find((c) => c.environment === 'production')!;
    const base = { environment: 'staging' as const, baseUrl: stack.sandbox.urls.core, clientId: client.clientId };
    const attempts: [string, CoreClientOptions][] = [
      ['an API key the platform does not know', { ...base, apiKey: wrongSecret('pk_staging_wrong_') }],
      [
        'the production client secret with the staging key',
        { ...base, apiKey: client.apiKeys.staging, clientSecret: production.clientSecret },
      ],
      ['the production key in a staging client', { ...base, apiKey: client.apiKeys.production }],
      [
        'a client secret the platform does not know',
        { ...base, apiKey: client.apiKeys.staging, clientSecret: wrongSecret('cs_wrong_') },
      ],
    ];
    for (const [what, options] of attempts) {
      const error = await createCoreClient(options)
        .webhooks.list()
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(error, what).toBeInstanceOf(Error);
      keep('client error', `${what}: ${describeError(error)} ${JSON.stringify(error)}`);
    }
  });

  it('the gateway and the worker refusing a bad configuration or an unreachable store', async () => {
    const unreachable = `postgres://paykit:${wrongSecret('pgpw_')}@127.0.0.1:9/paykit`;
    const refusals: [string, string, Record<string, string>][] = [
      [
        'the gateway',
        GATEWAY_MAIN,
        {
          GATEWAY_CORE_TOKENS_MONEY_IN: wrongSecret('whk_short_', 6),
          GATEWAY_CASH_SECRET_TOKENS: wrongSecret('not_hex_'),
          GATEWAY_ADMIN_TOKEN: wrongSecret('adm_short_', 6),
        },
      ],
      [
        'the gateway',
        GATEWAY_MAIN,
        { GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken, DATABASE_URL: unreachable },
      ],
      [
        'the gateway',
        GATEWAY_MAIN,
        {
          GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken,
          DATABASE_URL: `postgres://paykit:${wrongSecret('pgpw_')}@127.0.0.1:5432:1/x`,
        },
      ],
      ['the worker', WORKER_MAIN, { DATABASE_URL: unreachable }],
    ];
    for (const [name, main, env] of refusals) {
      const started = startAppProcess({
        name,
        main,
        env: { GATEWAY_PORT: '0', WORKER_PORT: '0', PAYKIT_DATA_DIR: dir, ...env },
        startTimeoutMs: 15_000,
        onOutput: (text) => keep(`${name} refusing to start`, text),
      });
      const error = await started.then(
        async (app) => {
          await app.stop();
          return undefined;
        },
        (thrown: unknown) => thrown,
      );
      expect(error, `${name} started with ${Object.keys(env).join(', ')}`).toBeInstanceOf(Error);
    }
  });

  it("the gateway's error bodies (401, 400, 404, 413, 415, 422, 503), probes, admin answers and every metric label", async () => {
    const gateway = stack.gatewayUrl;
    const kind = 'gateway error body';
    const bearer = { authorization: `Bearer ${TEST_SECRETS.coreWebhookToken}` };
    const statusUpdate = `${gateway}${CORE_EVENT_PATHS.STATUS_UPDATE}`;
    const event = () => ({
      id_msg: randomUUID(),
      msg_name: 'STATUS_UPDATE',
      msg_date: '2026-11-21',
      body: { id: randomUUID(), status: 'LIQUIDATED' },
    });
    const expectStatus = async (status: number, url: string, init?: RequestInit, as = kind) =>
      expect((await exchange(as, url, init)).status, `${init?.method ?? 'GET'} ${url}`).toBe(status);

    await expectStatus(401, statusUpdate, json(event()));
    // The previous token of a rotation that is over: refused, and not repeated.
    await expectStatus(
      401,
      statusUpdate,
      json(event(), { authorization: `Bearer ${TEST_SECRETS.previousCoreWebhookToken}` }),
    );
    const cashBody = JSON.stringify({ event: 'cash.paid', operation_id: 1 });
    const timestamp = String(Math.floor(Date.now() / 1000));
    await expectStatus(
      401,
      `${gateway}${CASH_WEBHOOK_PATH}`,
      json(cashBody, {
        'x-webhook-timestamp': timestamp,
        'x-webhook-signature': hmacSha256Hex(wrongSecret('cash_whk_wrong_'), cashBody),
      }),
    );
    await expectStatus(401, `${gateway}${CASH_WEBHOOK_PATH}`, json(cashBody));
    // Not JSON, with a secret inside: the parse error must not quote it.
    await expectStatus(400, statusUpdate, json(`{"id_msg":"x","token":${TEST_SECRETS.adminToken}}`, bearer));
    await expectStatus(413, statusUpdate, json({ ...event(), padding: 'x'.repeat(70_000) }, bearer));
    await expectStatus(415, statusUpdate, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'text/plain' },
      body: JSON.stringify(event()),
    });
    await expectStatus(422, statusUpdate, json({ ...event(), msg_name: 'CEP' }, bearer));
    await expectStatus(404, `${gateway}/webhooks/core/nothing-here`, json(event(), bearer));

    const admin = { authorization: `Bearer ${TEST_SECRETS.adminToken}` };
    await expectStatus(401, `${gateway}/admin/events`);
    await expectStatus(401, `${gateway}/admin/events`, {
      headers: { authorization: `Bearer ${wrongSecret('adm_wrong_')}` },
    });
    await expectStatus(400, `${gateway}/admin/events?limit=lots`, { headers: admin });
    await expectStatus(404, `${gateway}/admin/events/999999999`, { headers: admin });
    const listed = await exchange('gateway admin answer', `${gateway}/admin/events?limit=50`, { headers: admin });
    expect(listed.status).toBe(200);
    const { events } = JSON.parse(listed.text) as { events: { seq: string }[] };
    expect(events.length).toBeGreaterThan(0);
    await expectStatus(200, `${gateway}/admin/events/${events[0]!.seq}`, { headers: admin }, 'gateway admin answer');
    await expectStatus(
      200,
      `${gateway}/admin/events/${events[0]!.seq}/replay`,
      { method: 'POST', headers: admin },
      'gateway admin answer',
    );
    await expectStatus(200, `${gateway}/healthz`, {}, 'gateway probe');
    await expectStatus(200, `${gateway}/readyz`, {}, 'gateway probe');

    if (stack.proxy) {
      // The store cut: deliveries, the readiness probe and the admin API answer 503.
      stack.proxy.cut();
      try {
        await expectStatus(503, statusUpdate, json(event(), bearer));
        await expectStatus(503, `${gateway}/readyz`);
        await expectStatus(503, `${gateway}/admin/events`, { headers: admin });
        outageAnswers += 3;
      } finally {
        stack.proxy.restore();
      }
    }

    // Last, so every series the steps above created is in it.
    const metrics = await exchange('gateway metrics', `${gateway}/metrics`);
    expect(metrics.status).toBe(200);
    labelValues = [...metrics.text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].length;
    expect(labelValues).toBeGreaterThan(0);
  });

  it("the console's pages, exports and refusals, and the worker's probes", async () => {
    // PGlite: one process per data folder, so the gateway gives the store to the worker, then the worker to the console.
    if (stack.storeKind === 'pglite') await stack.stopGateway();
    const worker = await stack.startWorker();
    const caughtUp = async () =>
      ((await (await fetch(`${worker.url}/healthz`)).json()) as { caughtUp: boolean }).caughtUp;
    await waitFor(caughtUp, 'the worker to apply every stored event');
    expect((await exchange('worker probe', `${worker.url}/healthz`)).status).toBe(200);
    expect((await exchange('worker probe', `${worker.url}/metrics`)).status).toBe(200);
    if (stack.storeKind === 'pglite') await stack.stopWorker();
    const consoleApp = await stack.startConsole();
    const kind = 'console page';
    const page = async (status: number, route: string, init?: RequestInit) =>
      expect((await exchange(kind, `${consoleApp.url}${route}`, init)).status, route).toBe(status);
    await page(200, '/');
    for (const list of ['items', 'summary', 'parked', 'reports'])
      for (const format of ['csv', 'json']) await page(200, `/${list}.${format}`);
    await page(200, '/events/1');
    await page(200, '/healthz');
    await page(404, '/events/999999999');
    await page(404, '/nothing-here');
    await page(400, '/?from=yesterday');
    // A POST without the page's CSRF token is refused.
    await page(403, '/parked/retry', { method: 'POST', redirect: 'manual' });
    if (stack.proxy) {
      stack.proxy.cut();
      try {
        await page(503, '/');
        outageAnswers += 1;
      } finally {
        stack.proxy.restore();
      }
    }
  });

  it('finds no configured or declared secret in anything recorded so far, and would find one', async () => {
    const auditDir = process.env[AUDIT_DIR_ENV];
    if (!auditDir)
      throw new Error(
        `${AUDIT_DIR_ENV} is not set: run the scenario through pnpm test:reliability (or vitest with tooling/reliability/vitest.config.ts), whose secret audit records every output`,
      );
    const recorded = readRecorded(auditDir);
    const declared = readDeclaredSecrets(auditDir);
    const secrets = [...ALL_CONFIGURED_SECRETS, ...declared];
    const findings = scan(recorded, secrets);

    // Positive controls, in memory only: a secret planted among the real outputs, and a real bearer token (a JWT).
    const canary = `whk_canary_${randomBytes(24).toString('base64url')}`;
    const planted = scan(
      [...recorded, { kind: 'positive control', text: `Authorization: Bearer ${canary}` }],
      [...secrets, canary],
    );
    expect(planted.filter((f) => f.kind === 'positive control')).toHaveLength(1);
    expect(JSON.stringify(planted)).not.toContain(canary);
    const jwt = (await stack.core.tokens.current()).token;
    expect(scan([{ kind: 'positive control', text: `{"access_token":"${jwt}"}` }], []).map((f) => f.secret)).toEqual([
      'a JWT bearer token',
    ]);

    const deliveries = (await stack.deliveries()).filter((d) => d.product === 'core');
    const stored = await stack.storedEvents();
    const audit = auditDeliveries(deliveries, stored);
    const byKind = new Map<string, number>();
    for (const { kind } of recorded) byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    recordScenario({
      scenario: 'secrets',
      sent: audit.sent,
      acknowledged: audit.acknowledged,
      stored: audit.stored,
      applied: stored.filter((event) => event.applied).length,
      lost: audit.lost,
      duplicated: audit.duplicated,
      badInputs: 0,
      fiveXx: outageAnswers,
      fiveXxAllowed: true,
      longestAnswerMs: audit.longestAnswerMs,
      notes: [
        `${recorded.length} outputs scanned for ${ALL_CONFIGURED_SECRETS.length} configured and ${declared.length} declared secrets and for JWTs: ${findings.length} found`,
        `outputs by kind: ${[...byKind]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', ')}`,
        `this scenario's own: ${[...produced].map(([kind, n]) => `${kind} ${n}`).join(', ')}; /metrics had ${labelValues} label values`,
        stack.proxy
          ? `${outageAnswers} 503 answers on purpose, the store cut (gateway delivery, readyz, admin, console); the store URL carried a password`
          : 'PGlite: no store to cut, so no 503 answers (run with DATABASE_URL for them)',
        'positive controls: a planted secret and a real bearer JWT were both found',
      ],
      durationMs: performance.now() - startedAt,
    });
    expect(findings, 'secrets found in recorded outputs (excerpts masked)').toEqual([]);
  });
});

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The id of the sandbox client's webhook configuration of `type`. */
async function webhookId(type: string): Promise<string> {
  // The reference does not show the list's layout; the sandbox's is camelCase configurations.
  const found = ((await stack.core.webhooks.list()) as { id: string; webhookType: string }[]).find(
    (w) => w.webhookType === type,
  );
  if (!found) throw new Error(`the sandbox lists no ${type} webhook configuration`);
  return found.id;
}
