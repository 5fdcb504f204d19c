// Write-ahead recording as the CLI and a service use it, against a real sandbox process behind a
// real HTTP proxy that looks in the database when a transfer arrives: the intent row is there
// before the platform sees the request (PGlite and PostgreSQL). On PostgreSQL, through a TCP proxy
// in front of the database: the ledger cut while the platform answers leaves the intent, the CLI
// says the money moved and that rerunning is safe, and the rerun prints "replayed": true and
// attaches it; an answer lost on the way leaves an unresolved intent that `transfers unresolved`
// lists and `transfers resolve` replays with the same key, and refuses past the platform's window.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as upstreamRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCoreClient } from '@paykit/core-client';
import { createTransactionRecorder, getIntent, listUnresolvedIntents } from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { record } from '@paykit/testing/secret-audit';
import { seededClients } from '@paykit/testing/seeded-clients';
import { startTcpProxy, type TcpProxy } from '@paykit/testing/tcp-proxy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';

/** `paykit money-out` of an amount and reference from ACME to the BBVA supplier. */
const moneyOut = (amount: string, reference: string) => [
  'money-out',
  '--source',
  ACME,
  '--destination',
  BBVA,
  '--amount',
  amount,
  '--reference',
  reference,
];

interface Arrival {
  key: string | undefined;
  /** Whether the intent with the request's Idempotency-Key was in the database when the request arrived. */
  intentExisted: boolean;
}

interface PlatformProxy {
  url: string;
  arrivals: Arrival[];
  /** Runs once when the next transfer arrives, before it is forwarded. */
  beforeNextTransfer(fn: () => void): void;
  /** Transfers are forwarded, but their answers replaced by a 502 (money moved, answer lost). */
  loseAnswers(on: boolean): void;
  close(): Promise<void>;
}

/** An HTTP proxy in front of the sandbox that checks the database for the intent of each transfer as it arrives. */
async function startPlatformProxy(target: string, db: Database): Promise<PlatformProxy> {
  const upstream = new URL(target);
  const arrivals: Arrival[] = [];
  let hook: (() => void) | undefined;
  let lose = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const transfer = /\/transactions\/(money_out|penny_validation|internal_transaction)$/.test(req.url ?? '');
      if (transfer) {
        const key = req.headers['idempotency-key'] as string | undefined;
        const found =
          key === undefined
            ? { rows: [] }
            : await db.query('SELECT 1 FROM ledger_outbound_intents WHERE idempotency_key = $1', [key]);
        arrivals.push({ key, intentExisted: found.rows.length > 0 });
        const once = hook;
        hook = undefined;
        once?.();
      }
      const { host: _host, ...headers } = req.headers;
      const out = upstreamRequest(
        {
          hostname: upstream.hostname,
          port: upstream.port,
          path: `${upstream.pathname.replace(/\/$/, '')}${req.url ?? '/'}`,
          method: req.method,
          headers,
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            if (transfer && lose) {
              res.writeHead(502, { 'content-type': 'application/json' }).end('{"message":"bad gateway"}');
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      out.on('error', () => res.writeHead(502).end());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    beforeNextTransfer: (fn) => {
      hook = fn;
    },
    loseAnswers: (on) => {
      lose = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`a service's recorder writes the intent before the platform sees the request (${kind.name})`, () => {
    let sandbox: SandboxProcess;
    let opened: OpenedTestDatabase;
    let proxy: PlatformProxy;
    beforeAll(async () => {
      sandbox = await startSandboxProcess({ randomSeed: `cli-intents-service-${kind.name}` });
      opened = await kind.open();
      proxy = await startPlatformProxy(sandbox.urls.core, opened.db);
    });
    afterAll(async () => {
      await proxy?.close();
      await sandbox?.close();
      await opened?.drop();
    });

    it('money_out and penny validation: the row with the request key exists when the request arrives', async () => {
      const { core: seeded } = await seededClients(sandbox);
      const recorder = createTransactionRecorder(opened.db, { actor: 'payouts-service' });
      const core = createCoreClient({ ...seeded, environment: 'staging', baseUrl: proxy.url, ...recorder });
      const tx = await core.transactions.moneyOut({
        source_instrument_id: ACME,
        destination_instrument_id: BBVA,
        transaction_request: { amount: '250.00', currency: 'MXN', description: 'svc', external_reference: '5000001' },
      });
      await core.transactions.pennyValidation({ source_instrument_id: ACME, destination_instrument_id: BBVA });
      expect(proxy.arrivals).toHaveLength(2);
      expect(proxy.arrivals.every((a) => a.key !== undefined && a.intentExisted)).toBe(true);
      const { rows } = await opened.db.query<{ id: string; actor: string }>(
        'SELECT id, actor FROM ledger_outbound_intents WHERE transaction_id = $1',
        [tx.id],
      );
      expect(rows).toEqual([expect.objectContaining({ actor: 'payouts-service' })]);
    });
  });
}

describe.runIf(testDatabases([ledgerMigrations]).some((kind) => kind.name === 'postgres'))(
  'the CLI with its ledger cut while the platform answers (postgres)',
  () => {
    const kind = testDatabases([ledgerMigrations]).find((k) => k.name === 'postgres')!;
    let sandbox: SandboxProcess;
    let opened: OpenedTestDatabase;
    let dbProxy: TcpProxy;
    let proxy: PlatformProxy;
    let dir: string;
    let env: Record<string, string>;
    const paykit = async (args: string[]): Promise<NodeRun> => {
      const run = await runNode(MAIN, ['--json', ...args], {
        name: 'paykit',
        env: { ...process.env, ...env },
        timeoutMs: 60_000,
      });
      record('paykit output', run.stdout + run.stderr);
      return run;
    };
    const ok = async <T>(args: string[]): Promise<T> => {
      const run = await paykit(args);
      expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(0);
      return JSON.parse(run.stdout) as T;
    };

    beforeAll(async () => {
      sandbox = await startSandboxProcess({ randomSeed: 'cli-intents-cli' });
      opened = await kind.open();
      const url = new URL(opened.url!);
      dbProxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
      url.hostname = '127.0.0.1';
      url.port = String(dbProxy.port);
      proxy = await startPlatformProxy(sandbox.url, opened.db);
      dir = mkdtempSync(path.join(tmpdir(), 'paykit-cli-intents-'));
      env = {
        PAYKIT_SANDBOX_URL: proxy.url,
        PAYKIT_TOKEN_DIR: path.join(dir, 'tokens'),
        PAYKIT_CONFIG: '',
        HOME: dir,
        DATABASE_URL: url.toString(),
        PAYKIT_ACTOR: 'ana@finance',
      };
    });
    afterAll(async () => {
      await proxy?.close();
      await dbProxy?.close();
      await sandbox?.close();
      await opened?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('the intent stays, the CLI says rerunning is safe, and the rerun prints "replayed": true and attaches it', async () => {
      const args = moneyOut('4321.00', '6000001');
      // The database goes away as the platform receives the transfer: the answer cannot be attached.
      proxy.beforeNextTransfer(() => dbProxy.cut());
      const first = await paykit(args);
      dbProxy.restore();
      expect(first.code).toBe(1);
      expect(proxy.arrivals.at(-1)).toMatchObject({ intentExisted: true });
      const moved = JSON.parse(first.stdout) as { id: string };
      const [intent] = await listUnresolvedIntents(opened.db);
      expect(intent).toMatchObject({ amount: '4321.00', actor: 'ana@finance', transactionId: null });
      expect(first.stderr).toContain(`The platform created transaction ${moved.id} (the money moved)`);
      expect(first.stderr).toContain(`The intent is recorded (intent ${intent!.id})`);
      expect(first.stderr).toContain('running the same command again is safe (same Idempotency-Key');
      expect(first.stderr).toContain(`paykit transfers resolve ${intent!.id}`);

      const listed = await ok<{ id: string; amount: string; ageSeconds: number }[]>(['transfers', 'unresolved']);
      expect(listed).toEqual([expect.objectContaining({ id: intent!.id, amount: '4321.00' })]);
      const table = await runNode(MAIN, ['transfers', 'unresolved'], {
        name: 'paykit',
        env: { ...process.env, ...env },
      });
      expect(table.stdout).toContain('MXN 4,321.00');
      expect(table.stdout).toContain('ana@finance');

      const rerun = await ok<{ id: string; replayed: boolean }>(args);
      expect(rerun).toMatchObject({ id: moved.id, replayed: true });
      expect(await getIntent(opened.db, intent!.id)).toMatchObject({ transactionId: moved.id, attempts: 2 });
      expect(await ok<unknown[]>(['transfers', 'unresolved'])).toEqual([]);
    }, 90_000);

    it('an answer lost on the way: listed as unresolved, and resolve replays it with the same key and attaches it', async () => {
      proxy.loseAnswers(true);
      const first = await paykit(moneyOut('910.00', '6000002'));
      proxy.loseAnswers(false);
      expect(first.code).not.toBe(0);
      const [intent] = await listUnresolvedIntents(opened.db);
      expect(intent).toMatchObject({ amount: '910.00', replayable: true });
      const keysBefore = proxy.arrivals.length;
      const resolved = await ok<{ intent: string; transactionId: string; replayed: boolean }>([
        'transfers',
        'resolve',
        intent!.id,
      ]);
      expect(resolved).toMatchObject({ intent: intent!.id, replayed: true });
      // The replay carried the intent's own key.
      expect(proxy.arrivals.slice(keysBefore).map((a) => a.key)).toEqual([intent!.idempotencyKey]);
      expect(await getIntent(opened.db, intent!.id)).toMatchObject({ transactionId: resolved.transactionId });
      // Resolving again sends nothing.
      const again = await ok<{ transactionId: string }>(['transfers', 'resolve', intent!.id]);
      expect(again.transactionId).toBe(resolved.transactionId);
      expect(proxy.arrivals.length).toBe(keysBefore + 1);
    }, 90_000);

    it('resolve refuses past the 24 h window, saying why and what to do, and sends nothing', async () => {
      proxy.loseAnswers(true);
      const first = await paykit(moneyOut('333.00', '6000003'));
      proxy.loseAnswers(false);
      expect(first.code).not.toBe(0);
      const [intent] = await listUnresolvedIntents(opened.db);
      await opened.db.query(
        `UPDATE ledger_outbound_intents SET created_at = created_at - interval '25 hours' WHERE id = $1`,
        [intent!.id],
      );
      const before = proxy.arrivals.length;
      const refused = await paykit(['transfers', 'resolve', intent!.id]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('more than 24 h ago');
      expect(refused.stderr).toContain(`Idempotency-Key ${intent!.idempotencyKey}`);
      expect(refused.stderr).toContain('Nothing was sent');
      expect(proxy.arrivals.length).toBe(before);
      expect(await getIntent(opened.db, intent!.id)).toMatchObject({ transactionId: null });
    }, 90_000);
  },
);
