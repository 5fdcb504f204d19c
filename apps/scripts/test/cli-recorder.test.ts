// Money the CLI moves lands in the ledger exactly as the scenario's does: the CLI moves it against
// a real sandbox process, a real gateway process stores the sandbox's status updates, the worker's
// reconcile pass applies them, and every item is matched, none orphan. When the ledger cannot be
// opened, the CLI says what to do in one line and the sandbox sees no transfer.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listItems, type ReconItem } from '@paykit/ledger';
import { openDatabase } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startAppProcess } from '@paykit/testing/app-process';
import { freePort } from '@paykit/testing/ports';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../webhook-gateway/src/main.ts');
const ACME = '66666666-6666-4666-8666-000000000001';
const BODEGA = '66666666-6666-4666-8666-000000000002';
const BBVA = '66666666-6666-4666-8666-000000000004';
const TYPES = ['MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND', 'REPORT'] as const;

/** A store as the CLI and the gateway are pointed at it: a PGlite folder always, a scratch PostgreSQL database with DATABASE_URL. */
interface StoreUnderTest {
  env: Record<string, string>;
  items(): Promise<ReconItem[]>;
  drop(): Promise<void>;
}

const stores: { name: string; open(dir: string): Promise<StoreUnderTest> }[] = [
  {
    name: 'pglite',
    async open(dir) {
      const data = path.join(dir, 'data');
      return {
        env: { PAYKIT_DATA_DIR: data, DATABASE_URL: '' },
        items: () => readItems({ dataDir: path.join(data, 'pglite') }),
        drop: async () => {},
      };
    },
  },
  ...testDatabases([ledgerMigrations])
    .filter((kind) => kind.name === 'postgres')
    .map((kind) => ({
      name: 'postgres',
      async open(): Promise<StoreUnderTest> {
        const opened = await kind.open();
        await opened.db.close();
        const url = opened.url!;
        return { env: { DATABASE_URL: url }, items: () => readItems({ databaseUrl: url }), drop: () => opened.drop() };
      },
    })),
];

async function readItems(where: { dataDir: string } | { databaseUrl: string }): Promise<ReconItem[]> {
  const db = await openDatabase(where);
  try {
    return await listItems(db, { limit: 1000, from: '2000-01-01', to: '2100-01-01' });
  } finally {
    await db.close();
  }
}

/** How many money_out requests the sandbox answered (its own counters). */
async function moneyOutRequests(sandbox: SandboxProcess): Promise<number> {
  const counters = await sandbox.control.getCounters();
  if (counters.status !== 200) throw new Error('cannot read the sandbox counters');
  const requests = counters.body.requests as Record<string, number>;
  return Object.entries(requests)
    .filter(([operation]) => /transactions\/(money_out|internal_transaction|penny_validation)$/.test(operation))
    .reduce((sum, [, n]) => sum + n, 0);
}

describe.each(stores)('the CLI records the money it moves ($name)', (kind) => {
  let sandbox: SandboxProcess;
  let dir: string;
  let store: StoreUnderTest;
  let env: Record<string, string>;
  const paykit = async (args: string[], extra: Record<string, string> = {}): Promise<NodeRun> => {
    // A fresh PGlite store migrates on the first command: about 30 s on two busy cores.
    const run = await runNode(MAIN, args, {
      name: 'paykit',
      env: { ...process.env, ...env, ...extra },
      timeoutMs: 90_000,
    });
    record('paykit output', run.stdout + run.stderr);
    return run;
  };
  const ok = async <T>(args: string[], extra: Record<string, string> = {}): Promise<T> => {
    const run = await paykit(['--json', ...args], extra);
    expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout) as T;
  };

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ randomSeed: `cli-recorder-${kind.name}` });
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-cli-recorder-'));
    store = await kind.open(dir);
    env = {
      PAYKIT_SANDBOX_URL: sandbox.url,
      PAYKIT_TOKEN_DIR: path.join(dir, 'tokens'),
      PAYKIT_CONFIG: '',
      HOME: dir,
      ...store.env,
    };
  });
  afterAll(async () => {
    await sandbox?.close();
    await store?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('money-out, penny validation and internal transfer: their status updates matched, none orphan', async () => {
    // The gateway's port is fixed before it starts: the webhooks point at it while the CLI, alone
    // on the store (a PGlite folder serves one process), moves the money.
    const port = await freePort();
    const gatewayUrl = `http://127.0.0.1:${port}`;
    await ok(['webhooks', 'register', '--all-types', gatewayUrl]);
    const spei = await ok<{ id: string }>(['money-out', '--source', ACME, '--destination', BBVA, '--amount', '150.00']);
    const penny = await ok<{ id: string }>(['penny-validate', '--source', ACME, '--destination', BBVA]);
    const internal = await ok<{ id: string }>([
      'money-out',
      '--source',
      ACME,
      '--destination',
      BODEGA,
      '--amount',
      '25.00',
    ]);
    const deprecated = await ok<{ id: string }>([
      'internal-transaction',
      '--source',
      ACME,
      '--destination',
      BODEGA,
      '--amount',
      '5.00',
    ]);
    // The same transfer unrecorded: what the CLI did before it recorded, and why it must.
    const unrecorded = await paykit([
      '--json',
      'money-out',
      '--source',
      ACME,
      '--destination',
      BBVA,
      '--amount',
      '75.00',
      '--no-record',
    ]);
    expect(unrecorded.code).toBe(0);
    expect(unrecorded.stderr).toMatch(/Not recorded in the ledger \(--no-record\)/);
    const orphan = (JSON.parse(unrecorded.stdout) as { id: string }).id;

    const tokens = Object.fromEntries(
      TYPES.map((type) => [
        `GATEWAY_CORE_TOKENS_${type}`,
        readFileSync(path.join(dir, 'tokens', `sandbox-${type.toLowerCase()}.token`), 'utf8').trim(),
      ]),
    );
    const gateway = await startAppProcess({
      name: 'The gateway',
      main: GATEWAY_MAIN,
      env: {
        ...store.env,
        GATEWAY_PORT: String(port),
        ...tokens,
        GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
        GATEWAY_LOG_LEVEL: 'warn',
      },
      onOutput: (text) => record('gateway output', text),
    });
    try {
      for (const id of [spei.id, orphan]) await ok(['trigger', 'spei-settle', id]);
      await ok(['trigger', 'cep', penny.id, '--status', 'COMPLETED']);
      // Deliveries that failed while the gateway was down are retried as the sandbox clock moves.
      for (let i = 0; i < 60; i++) {
        const deliveries = await sandbox.control.listDeliveries({ query: {} });
        if (deliveries.status !== 200) throw new Error('cannot list deliveries');
        if (deliveries.body.deliveries.every((d) => d.state === 'delivered')) break;
        await sandbox.control.advanceClock({ body: { seconds: 60 } });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await gateway.stop();
    }
    await ok(['reconcile', 'run', '--once']);

    const items = await store.items();
    const item = (id: string) => items.find((candidate) => candidate.id === id);
    expect(item(spei.id)).toMatchObject({ kind: 'outbound', state: 'matched', status: 'LIQUIDATED' });
    expect(item(penny.id)).toMatchObject({ kind: 'outbound', state: 'matched' });
    expect(item(internal.id)).toMatchObject({ kind: 'outbound', state: 'matched', status: 'LIQUIDATED' });
    expect(item(deprecated.id)).toMatchObject({ kind: 'outbound', state: 'matched' });
    expect(item(orphan)).toMatchObject({ kind: 'status_update', state: 'orphan' });
    // Only the unrecorded transfer's status update is orphan.
    expect(
      items
        .filter((candidate) => candidate.state === 'orphan' && candidate.kind === 'status_update')
        .map((candidate) => candidate.id),
    ).toEqual([orphan]);
    // On PGlite each of its CLI runs, the gateway and the worker opens the folder in turn: two
    // minutes alone on a loaded two-core machine.
  }, 300_000);

  it('refuses to move money, in one line, when the ledger cannot be opened; nothing reaches the sandbox', async () => {
    const before = await moneyOutRequests(sandbox);
    const unreachable = await paykit(['money-out', '--source', ACME, '--destination', BBVA, '--amount', '10.00'], {
      DATABASE_URL: 'postgres://paykit@127.0.0.1:9/paykit',
    });
    // Held by another process (as `pnpm start` holds its PGlite folder): the lock names a live pid.
    const held = path.join(dir, 'held');
    mkdirSync(held, { recursive: true });
    writeFileSync(`${path.join(held, 'pglite')}.lock`, String(process.pid));
    const heldRun = await paykit(['penny-validate', '--source', ACME, '--destination', BBVA], {
      PAYKIT_DATA_DIR: held,
      DATABASE_URL: '',
    });
    // Staging or production money is never recorded in a PGlite folder no worker reads.
    const config = path.join(dir, 'staging.json');
    writeFileSync(
      config,
      JSON.stringify({
        profiles: {
          ops: {
            environment: 'staging',
            core: {
              baseUrl: sandbox.urls.core,
              clientId: '11111111-1111-4111-8111-111111111111',
              apiKey: { env: 'OPS_KEY' },
            },
          },
        },
      }),
    );
    const staging = await paykit(
      [
        '--config',
        config,
        '--profile',
        'ops',
        'money-out',
        '--source',
        ACME,
        '--destination',
        BBVA,
        '--amount',
        '10.00',
      ],
      { OPS_KEY: 'k'.repeat(32), DATABASE_URL: '' },
    );
    expect(staging.stderr).toMatch(/profile "ops" is staging and names no database/);
    for (const run of [unreachable, heldRun, staging]) {
      expect(run.code).toBe(1);
      const lines = run.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^error: No ledger to record this transfer in.*nothing was sent: set DATABASE_URL .* or pass --no-record/,
      );
    }
    expect(heldRun.stderr).toMatch(/pnpm start/);
    expect(await moneyOutRequests(sandbox)).toBe(before);
  });
});
