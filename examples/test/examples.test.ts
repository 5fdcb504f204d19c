// Each example script run as a product team runs it: a child process on Node 24, configured only
// by its environment, against a sandbox process on a port it picked, with its clock set to a fixed
// day. What each prints and its exit code are asserted, and what it claims is checked
// independently: the ledger rows the first call wrote, the webhook configuration gone after the
// receiver stops, the report's lines as the sandbox serves them. Every output goes through the
// secret audit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseReportCsv } from '@paykit/contracts';
import { createCoreClient } from '@paykit/core-client';
import { openDatabase } from '@paykit/store';
import { createScratchDatabase, type ScratchDatabase } from '@paykit/store/testing';
import { startAppProcess } from '@paykit/testing/app-process';
import { runNode } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { record } from '@paykit/testing/secret-audit';
import { seededClients, type SeededCoreOptions } from '@paykit/testing/seeded-clients';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** The sandbox's fixed day: 12:00 in Mexico City (UTC-6) on 2030-03-05. */
const DAY = '2030-03-05';

let sandbox: SandboxProcess;
let core: SeededCoreOptions;
let source: { id: string; clabe: string };
let destination: { id: string };
let dataDir = '';
let scratch: ScratchDatabase | undefined;

/** The environment a product team's script gets: the sandbox, the client's credentials, nothing else of the test's. */
function envFor(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    PAYKIT_SANDBOX_URL: sandbox.url,
    CORE_CLIENT_ID: core.clientId,
    CORE_API_KEY: core.apiKey,
    CORE_CLIENT_SECRET: core.clientSecret,
    ...extra,
  };
}

const script = (name: string) => path.join(SRC, `${name}.ts`);

beforeAll(async () => {
  sandbox = await startSandboxProcess({ randomSeed: 'examples' });
  const clock = await sandbox.control.setClock({ body: { at: `${DAY}T18:00:00.000Z` } });
  expect(clock.status).toBe(200);
  core = (await seededClients(sandbox)).core;
  const seed = await sandbox.control.getSeed();
  if (seed.status !== 200) throw new Error(`GET /_sandbox/seed answered ${seed.status}`);
  // Two platform accounts of different owners: money between them is an internal transfer.
  const platform = seed.body.core.instruments.filter((i) => i.clientId === core.clientId && i.accountId);
  const [from, to] = [platform[0], platform.find((i) => i.ownerId !== platform[0]?.ownerId)];
  if (!from || !to) throw new Error('the default seed has no two platform accounts of different owners');
  source = { id: from.id, clabe: from.clabe };
  destination = { id: to.id };
  dataDir = mkdtempSync(path.join(tmpdir(), 'paykit-examples-'));
  if (process.env.DATABASE_URL) scratch = await createScratchDatabase(process.env.DATABASE_URL, 'examples');
});

afterAll(async () => {
  await sandbox?.close();
  await scratch?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('first-call.ts', () => {
  const ledgerEnv = (): Record<string, string> =>
    scratch ? { DATABASE_URL: scratch.url } : { PAYKIT_DATA_DIR: dataDir };
  const transferEnv = () =>
    envFor({ SOURCE_INSTRUMENT_ID: source.id, DESTINATION_INSTRUMENT_ID: destination.id, ...ledgerEnv() });

  it('moves money once, recorded in the ledger; run again, the platform replays the answer', async () => {
    const first = await runNode(script('first-call'), [], { name: 'first-call', env: transferEnv() });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // An internal transfer: INT_DEBIT, settled at once or shortly (a STATUS_UPDATE says so).
    const sent = new RegExp(`^money_out (${UUID}): INT_DEBIT (IN_PROGRESS|LIQUIDATED), 1500\\.00 MXN$`, 'm').exec(
      first.stdout,
    );
    expect(sent, first.stdout).not.toBeNull();
    expect(first.stdout).toMatch(new RegExp(`^ledger \\((PGlite at|PostgreSQL) .*\\): intent ${UUID}$`, 'm'));

    const again = await runNode(script('first-call'), [], { name: 'first-call', env: transferEnv() });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`money_out ${sent![1]}: INT_DEBIT `);
    expect(again.stdout).toMatch(/: intent \S+, a replay: the money moved once$/m);

    // What the script says it wrote, read back from the database: one intent, attached to the transfer.
    const db = await openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir: path.join(dataDir, 'pglite') });
    try {
      const { rows } = await db.query<{ transaction_id: string; actor: string; amount: string }>(
        'SELECT transaction_id, actor, amount::text AS amount FROM ledger_outbound_intents',
      );
      expect(rows).toEqual([{ transaction_id: sent![1], actor: 'examples/first-call', amount: '1500.00' }]);
    } finally {
      await db.close();
    }
  });

  it('names every setting it lacks and sends nothing', async () => {
    const run = await runNode(script('first-call'), [], {
      name: 'first-call',
      env: { PATH: process.env.PATH ?? '', CORE_API_KEY: core.apiKey },
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Set CORE_CLIENT_ID, SOURCE_INSTRUMENT_ID, DESTINATION_INSTRUMENT_ID \(/);
    expect(run.stdout).toBe('');
  });
});

describe('verify-webhook.ts', () => {
  async function webhooksNow(): Promise<number> {
    // The answer's layout is not shown in the reference (typed unknown); the sandbox answers an array.
    const list = await createCoreClient(core).webhooks.list();
    if (!Array.isArray(list)) throw new Error(`webhooks.list() answered ${typeof list}, not a list`);
    return list.length;
  }

  it("refuses forged deliveries, verifies the platform's, and deletes its webhook when done", async () => {
    const before = await webhooksNow();
    let output = '';
    const receiver = await startAppProcess({
      name: 'verify-webhook',
      main: script('verify-webhook'),
      env: envFor(),
      onOutput: (text) => (output += text),
    });
    try {
      const forged = { 'content-type': 'application/json' };
      const body = JSON.stringify({ msg_name: 'MONEY_IN', body: { amount: '1000000.00' } });
      // Before it has registered, nothing is accepted.
      expect((await fetch(receiver.url, { method: 'POST', headers: forged, body })).status).toBe(401);
      await expect.poll(() => output, { timeout: 15_000 }).toMatch(/^registered MONEY_IN webhook /m);
      // A stranger's deliveries: no token, a wrong token. Refused before the body is read.
      expect((await fetch(receiver.url, { method: 'POST', headers: forged, body })).status).toBe(401);
      const wrong = { ...forged, authorization: 'Bearer whk_not_the_registered_token_0000000000' };
      expect((await fetch(receiver.url, { method: 'POST', headers: wrong, body })).status).toBe(401);
      // The platform's: an external SPEI credit arrives.
      const credit = await sandbox.control.triggerIncomingSpei({
        body: { beneficiaryClabe: source.clabe, amount: '250.00' },
      });
      expect(credit.status).toBe(200);
      expect(await receiver.exited).toBe(0);
    } finally {
      await receiver.stop();
      record('verify-webhook output', output);
    }
    expect(output).toMatch(new RegExp(`^registered MONEY_IN webhook ${UUID}$`, 'm'));
    expect(output.match(/^refused a delivery \(401\): /gm)).toHaveLength(3);
    expect(output).toMatch(
      new RegExp(`^verified MONEY_IN ${UUID}: SPEI_CREDIT 250\\.00 MXN, transaction ${UUID}, tracking key \\S+$`, 'm'),
    );
    expect(output).not.toContain('1000000.00');
    expect(output).toMatch(new RegExp(`^deleted webhook ${UUID}$`, 'm'));
    expect(await webhooksNow()).toBe(before);
  });

  it('against the sandbox, asks for a credit itself (SANDBOX_CREDIT_CLABE) and verifies its delivery', async () => {
    const run = await runNode(script('verify-webhook'), [], {
      name: 'verify-webhook',
      env: envFor({ SANDBOX_CREDIT_CLABE: source.clabe }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^verified MONEY_IN ${UUID}: SPEI_CREDIT 250\\.00 MXN, `, 'm'));
  });

  it('fails, saying why, when no delivery comes in time, and still deletes its webhook', async () => {
    const before = await webhooksNow();
    const run = await runNode(script('verify-webhook'), [], {
      name: 'verify-webhook',
      env: envFor({ WEBHOOK_WAIT_SECONDS: '1' }),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^0 of 1 verified deliveries within 1 s: can the platform reach http:\/\/127\.0\.0\.1:\d+/m,
    );
    expect(run.stdout).toMatch(/^deleted webhook /m);
    expect(await webhooksNow()).toBe(before);
  });
});

describe('download-report.ts', () => {
  it('says there is no report before the platform announced one', async () => {
    const run = await runNode(script('download-report'), [DAY], { name: 'download-report', env: envFor() });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`no report for ${DAY} yet: the platform announces each file with a REPORT webhook.\n`);
  });

  it("downloads the day's file and counts its transactions by kind and status", async () => {
    const credit = await sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: source.clabe, amount: '75.50' },
    });
    expect(credit.status).toBe(200);
    const report = await sandbox.control.triggerReport({
      body: { clientId: core.clientId, fileType: 'TRANSACTIONS', period: 'DAILY' },
    });
    if (report.status !== 200) throw new Error(`POST /_sandbox/core/reports answered ${report.status}`);
    const file = await sandbox.control.getReportFile({ params: { fileName: report.body.fileName }, query: {} });
    const lines = parseReportCsv(String(file.body));
    const counts = new Map<string, number>();
    for (const line of lines)
      counts.set(`${line.subCategory} ${line.status}`, (counts.get(`${line.subCategory} ${line.status}`) ?? 0) + 1);

    const run = await runNode(script('download-report'), [], {
      name: 'download-report',
      env: envFor({ REPORT_DATE: DAY }),
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(lines.length).toBeGreaterThan(0);
    expect(counts.get('SPEI_CREDIT LIQUIDATED')).toBeGreaterThan(0);
    expect(run.stdout).toBe(
      [
        `${report.body.fileName}: ${lines.length} transaction(s) on ${DAY}`,
        ...[...counts].sort().map(([kind, count]) => `  ${kind}: ${count}`),
        '',
      ].join('\n'),
    );
  });

  it('refuses a date that is not one', async () => {
    const run = await runNode(script('download-report'), ['2030-02-31x'], { name: 'download-report', env: envFor() });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('"2030-02-31x" is no date: give the operation date as YYYY-MM-DD.\n');
  });
});
