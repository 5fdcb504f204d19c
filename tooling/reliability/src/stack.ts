// The system under test, as production runs it: the sandbox (the platform, the sender), the
// webhook gateway, the reconciliation worker and the finance console as child processes over
// loopback (several gateways and workers on one PostgreSQL when asked: replicas, the webhooks then
// pointing at whatever balances them), and the store: a fresh PostgreSQL database when
// DATABASE_URL is set (optionally behind a TCP proxy the scenario can cut or slow), otherwise a
// PGlite folder (one process at a time: the gateway while it runs, then the worker, then the
// console or the audit). Every line any process writes goes to the secret audit.
import path from 'node:path';
import type { Delivery } from '@paykit/contracts';
import { createCoreClient, type CoreClient } from '@paykit/core-client';
import type { CreatedTransactionLike } from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { freePort } from '@paykit/testing/ports';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { seededClients } from '@paykit/testing/seeded-clients';
import { registerGatewayWebhooks } from '@paykit/testing/gateway-webhooks';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import type { TcpProxy } from '@paykit/testing/tcp-proxy';
import { createScenarioStore } from './store.ts';

const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../../apps/webhook-gateway/src/main.ts');
const WORKER_MAIN = path.resolve(import.meta.dirname, '../../../apps/reconciliation-worker/src/main.ts');
const CONSOLE_MAIN = path.resolve(import.meta.dirname, '../../../apps/console/src/main.ts');

/** SQL: whether the webhook_events row `e` is applied (the worker marks it in webhook_events_applied). */
export const IS_APPLIED = 'EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq)';

/** How many stored events the worker has applied. */
export async function countApplied(db: Database): Promise<number> {
  return Number(
    (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM webhook_events e WHERE ${IS_APPLIED}`)).rows[0]!.n,
  );
}

/** What the worker made of the stored events: each applied once means credits = credited events = events. */
export interface AppliedCounts {
  /** Events stored, and of those applied. */
  events: number;
  applied: number;
  /** Credit rows in the ledger, and the distinct events they come from (more rows than events: applied twice). */
  credits: number;
  creditedEvents: number;
  /** Events the worker parked as unappliable. */
  parked: number;
}

export async function countAppliedEvents(db: Database): Promise<AppliedCounts> {
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
  return {
    events: await count('SELECT count(*)::text AS n FROM webhook_events'),
    applied: await countApplied(db),
    credits: await count('SELECT count(*)::text AS n FROM ledger_credits'),
    creditedEvents: await count('SELECT count(DISTINCT event_seq)::text AS n FROM ledger_credits'),
    parked: await count('SELECT count(*)::text AS n FROM ledger_parked_events'),
  };
}

/** The seed's first client's account: credits to it are what the streams send. */
export const ACME_CLABE = '646180000000000012';

export interface StackOptions {
  /** Names temporary folders and databases. */
  name: string;
  /** Extra gateway environment (GATEWAY_COMMIT_TIMEOUT_MS, say). */
  gatewayEnv?: Record<string, string>;
  /** PostgreSQL reached through a TCP proxy the scenario can cut or slow (requires DATABASE_URL). */
  proxy?: boolean;
  /** One gateway per port, each restarted on its own (default: one on a free port). Several need PostgreSQL. */
  gatewayPorts?: readonly number[];
  /** Where the platform's webhooks point (a load balancer in front of the gateways); default the first gateway. */
  webhookUrl?: string;
}

export interface StoredEvent {
  dedupeKey: string;
  eventType: string;
  deliveries: number;
  applied: boolean;
}

export interface Stack {
  storeKind: 'postgres' | 'pglite';
  /** DATABASE_URL or PAYKIT_DATA_DIR: how another process (the CLI) is pointed at the store. */
  storeEnv: Record<string, string>;
  sandbox: SandboxProcess;
  /** The core client of the seed's first client (staging credentials). */
  core: CoreClient;
  /** Every transaction `core` created, for the ledger's recorder. */
  created: CreatedTransactionLike[];
  /** Where the webhooks are registered: the same across restarts (the first gateway, or `webhookUrl`). */
  gatewayUrl: string;
  /** Each gateway's own URL, by index. */
  gatewayUrls: readonly string[];
  /** Between the gateway (and worker) and PostgreSQL, when asked for. */
  proxy: TcpProxy | undefined;
  /** The gateways and workers take an index (default 0): replica `index`. */
  gateway(index?: number): AppProcess | undefined;
  /** Starts the gateway (again) on its port. */
  startGateway(index?: number): Promise<AppProcess>;
  /** SIGKILL: a crash; in-flight deliveries get no answer. */
  killGateway(index?: number): Promise<void>;
  /** SIGTERM: finishes what is in flight. */
  stopGateway(index?: number): Promise<void>;
  worker(index?: number): AppProcess | undefined;
  startWorker(env?: Record<string, string>, index?: number): Promise<AppProcess>;
  killWorker(index?: number): Promise<void>;
  stopWorker(index?: number): Promise<void>;
  console(): AppProcess | undefined;
  /** Starts the finance console on the store (on PGlite, stop the gateway and the worker first). */
  startConsole(env?: Record<string, string>): Promise<AppProcess>;
  stopConsole(): Promise<void>;
  /** Waits until the running worker's last round found nothing left to claim (its /healthz). */
  workerCaughtUp(timeoutMs?: number, index?: number): Promise<void>;
  /** Every delivery the sandbox made or is making (its attempts with status, error and duration). */
  deliveries(): Promise<Delivery[]>;
  /**
   * Redelivers until nothing is pending or retrying: waits for the queue, advances the sandbox
   * clock past the next redelivery, again, within `timeoutMs`. Throws naming what is left.
   */
  drainDeliveries(timeoutMs?: number): Promise<void>;
  /** Runs `read` on the store: directly on PostgreSQL; on PGlite after stopping the gateways, the workers and the console. */
  withStore<T>(read: (db: Database) => Promise<T>): Promise<T>;
  /** Every stored event, with how often it arrived and whether it is applied. */
  storedEvents(): Promise<StoredEvent[]>;
  close(): Promise<void>;
}

const auditOutput = (name: string) => (text: string) => record(`${name} output`, text);

export async function startStack(options: StackOptions): Promise<Stack> {
  const gatewayPorts = options.gatewayPorts ?? [await freePort()];
  if (gatewayPorts.length === 0) throw new Error(`${options.name}: gatewayPorts names no port`);
  if (gatewayPorts.length > 1 && !process.env.DATABASE_URL)
    throw new Error(`${options.name}: several gateways share one store only on PostgreSQL (set DATABASE_URL)`);
  const store = await createScenarioStore(options.name, { proxy: options.proxy ?? false });
  const storeEnv = store.env;

  const sandbox = await startSandboxProcess({ args: ['--log'], onOutput: auditOutput('sandbox') });
  const created: CreatedTransactionLike[] = [];
  const core = createCoreClient({
    ...(await seededClients(sandbox)).core,
    onTransactionCreated: (transaction) => void created.push(transaction),
  });

  const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
  const gatewayUrl = options.webhookUrl ?? gatewayUrls[0]!;
  const token = TEST_SECRETS.coreWebhookToken;
  const gatewayEnv = {
    ...storeEnv,
    GATEWAY_LOG_LEVEL: 'info',
    GATEWAY_CORE_TOKENS_MONEY_IN: token,
    GATEWAY_CORE_TOKENS_STATUS_UPDATE: token,
    GATEWAY_CORE_TOKENS_CEP: token,
    GATEWAY_CORE_TOKENS_REFUND: token,
    GATEWAY_CORE_NO_AUTH: 'REPORT',
    GATEWAY_UNKNOWN_ACCOUNT: 'accept',
    GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
    ...options.gatewayEnv,
  };
  const gateways = new Map<number, AppProcess>();
  const workers = new Map<number, AppProcess>();
  const named = (what: string, index: number) => (index === 0 ? `The ${what}` : `The ${what} #${index}`);
  const startGateway = async (index = 0) => {
    const port = gatewayPorts[index];
    if (port === undefined) throw new Error(`there is no gateway #${index} (${gatewayPorts.length} ports)`);
    if (gateways.has(index)) throw new Error(`${named('gateway', index)} is already running`);
    const gateway = await startAppProcess({
      name: named('gateway', index),
      main: GATEWAY_MAIN,
      env: { ...gatewayEnv, GATEWAY_PORT: String(port) },
      onOutput: auditOutput('gateway'),
    });
    gateways.set(index, gateway);
    return gateway;
  };
  const killGateway = async (index = 0) => {
    await gateways.get(index)?.kill();
    gateways.delete(index);
  };
  const stopGateway = async (index = 0) => {
    await gateways.get(index)?.stop();
    gateways.delete(index);
  };
  const stopWorker = async (index = 0) => {
    await workers.get(index)?.stop();
    workers.delete(index);
  };
  let consoleApp: AppProcess | undefined;
  const stopConsole = async () => {
    await consoleApp?.stop();
    consoleApp = undefined;
  };
  const stopAll = async () => {
    await stopConsole();
    await Promise.all([...workers.keys()].map(stopWorker));
    await Promise.all([...gateways.keys()].map(stopGateway));
  };

  await Promise.all(gatewayPorts.map((_, index) => startGateway(index)));
  await registerGatewayWebhooks(core, gatewayUrl, token);

  const listDeliveries = async () => {
    const answer = await sandbox.control.listDeliveries({ query: {} });
    if (answer.status !== 200) throw new Error(`cannot list the sandbox's deliveries (${answer.status})`);
    return answer.body.deliveries;
  };

  const withStore = async <T>(read: (db: Database) => Promise<T>): Promise<T> => {
    // PGlite serves one process per folder: the apps let go of it first.
    if (store.kind === 'pglite') await stopAll();
    return store.read(read);
  };

  return {
    storeKind: store.kind,
    storeEnv,
    sandbox,
    core,
    created,
    gatewayUrl,
    gatewayUrls,
    proxy: store.proxy,
    gateway: (index = 0) => gateways.get(index),
    startGateway,
    killGateway,
    stopGateway,
    worker: (index = 0) => workers.get(index),
    async startWorker(env = {}, index = 0) {
      if (workers.has(index)) throw new Error(`${named('worker', index)} is already running`);
      if (workers.size > 0 && store.kind === 'pglite')
        throw new Error('several workers share one store only on PostgreSQL (set DATABASE_URL)');
      const worker = await startAppProcess({
        name: named('worker', index),
        main: WORKER_MAIN,
        env: { ...storeEnv, WORKER_PORT: '0', WORKER_POLL_MS: '50', ...env },
        onOutput: auditOutput('worker'),
      });
      workers.set(index, worker);
      return worker;
    },
    async killWorker(index = 0) {
      await workers.get(index)?.kill();
      workers.delete(index);
    },
    stopWorker,
    console: () => consoleApp,
    async startConsole(env = {}) {
      if (consoleApp) throw new Error('the console is already running');
      const worker = workers.get(0);
      consoleApp = await startAppProcess({
        name: 'The console',
        main: CONSOLE_MAIN,
        env: { ...storeEnv, CONSOLE_PORT: '0', ...(worker ? { CONSOLE_WORKER_URL: worker.url } : {}), ...env },
        onOutput: auditOutput('console'),
      });
      return consoleApp;
    },
    stopConsole,
    async workerCaughtUp(timeoutMs = 60_000, index = 0) {
      const deadline = performance.now() + timeoutMs;
      let last = 'no answer yet';
      while (performance.now() < deadline) {
        const worker = workers.get(index);
        if (!worker) throw new Error(`${named('worker', index).toLowerCase()} is not running`);
        try {
          const status = (await (await fetch(`${worker.url}/healthz`)).json()) as {
            caughtUp?: boolean;
            applied?: number;
            lastError?: string | null;
          };
          if (status.caughtUp) return;
          last = `applied ${status.applied}, last error ${status.lastError ?? 'none'}`;
        } catch (error) {
          last = error instanceof Error ? error.message : String(error);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the worker did not catch up within ${timeoutMs / 1000} s (${last})`);
    },
    deliveries: listDeliveries,
    async drainDeliveries(timeoutMs = 60_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const open = (await listDeliveries()).filter((d) => d.state === 'pending' || d.state === 'retrying');
        if (open.length === 0) return;
        if (performance.now() > deadline) {
          throw new Error(
            `${open.length} deliveries still pending or retrying after ${timeoutMs / 1000} s (first: ${open[0]!.id}, ${open[0]!.attempts.length} attempts, last error ${open[0]!.attempts.at(-1)?.error ?? open[0]!.attempts.at(-1)?.status ?? 'none'})`,
          );
        }
        if (open.every((d) => d.state === 'retrying')) {
          const next = Math.min(...open.map((d) => Date.parse(d.nextAttemptAt ?? '') || Infinity));
          const clock = await sandbox.control.getClock();
          if (clock.status !== 200) throw new Error('cannot read the sandbox clock');
          const seconds = Math.max(1, Math.ceil((next - Date.parse(clock.body.now)) / 1000));
          await sandbox.control.advanceClock({ body: { seconds } });
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    withStore,
    storedEvents: () =>
      withStore(async (db) => {
        const { rows } = await db.query<{
          dedupe_key: string;
          event_type: string;
          deliveries: number;
          applied: boolean;
        }>(`SELECT dedupe_key, event_type, deliveries, ${IS_APPLIED} AS applied FROM webhook_events e ORDER BY seq`);
        return rows.map((row) => ({
          dedupeKey: row.dedupe_key,
          eventType: row.event_type,
          deliveries: Number(row.deliveries),
          applied: row.applied,
        }));
      }),
    async close() {
      await stopAll();
      await sandbox.close();
      await store.remove();
    },
  };
}
