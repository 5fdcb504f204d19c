// The platform-to-ledger pipeline the worker's end-to-end tests run: a fresh store (PostgreSQL
// when DATABASE_URL is set, else a PGlite folder the gateway writes and the test reads after), the
// sandbox and the gateway as processes, and a core client whose webhooks point at the gateway and
// whose created transactions are kept for the ledger.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCoreClient, type CoreClient } from '@paykit/core-client';
import type { CreatedTransactionLike } from '@paykit/ledger';
import { openDatabase, type Database } from '@paykit/store';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { seededClients } from '@paykit/testing/seeded-clients';
import { registerGatewayWebhooks } from '@paykit/testing/gateway-webhooks';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.ts';

export const ACME = '66666666-6666-4666-8666-000000000001';
export const BODEGA = '66666666-6666-4666-8666-000000000002';
export const JUAN = '66666666-6666-4666-8666-000000000003';
export const BBVA = '66666666-6666-4666-8666-000000000004';
export const ACME_CLABE = '646180000000000012';
export const DENIED_PAYER = '072180000012345672';

export interface Pipeline {
  sandbox: SandboxProcess;
  core: CoreClient;
  /** What the core client created, for the ledger's recorder. */
  created: CreatedTransactionLike[];
  /** Stops the gateway (committing what is in flight) and opens the ledger's database. */
  stopGatewayAndOpenLedger(): Promise<Database>;
  /**
   * Lets another process open the ledger: on PGlite (one process per folder) the test's own
   * database is closed, and no longer usable; on PostgreSQL nothing changes. Returns the
   * environment that process opens it with.
   */
  handOverLedger(): Promise<Record<string, string>>;
  /** A control answer's body, or an error naming what failed. */
  ok<T extends { status: number; body: unknown }>(answer: T, what: string): Extract<T, { status: 200 }>['body'];
  /** A money_out from ACME; its transaction id. */
  out(amount: string, destination?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The money flows both end-to-end tests run: SPEI out settled, rejected, and settled then
 * reversed; an internal transfer (settled on the next clock step, with its INT_CREDIT); a penny
 * validation verified (and, with `pennyMismatch`, one whose CEP names someone else); credits
 * matched (reference 4400001), unmatched, and refused by the deny list. Returns the ids by name.
 */
export async function runFlows(
  pipeline: Pipeline,
  options: { pennyMismatch?: boolean } = {},
): Promise<Record<string, string>> {
  const { sandbox, core, ok, out } = pipeline;
  const ids: Record<string, string> = {};
  ids.settled = await out('300.00');
  ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: ids.settled }, body: {} }), 'settle');
  ids.rejected = await out('200.00');
  ok(await sandbox.control.triggerSpeiReject({ params: { transactionId: ids.rejected }, body: {} }), 'reject');
  ids.reversed = await out('150.00');
  ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: ids.reversed }, body: {} }), 'settle');
  ids.reversal = ok(
    await sandbox.control.triggerSpeiReverse({ params: { transactionId: ids.reversed }, body: {} }),
    'reverse',
  ).refundTransactionId;
  ids.internal = await out('75.00', BODEGA);
  ok(await sandbox.control.advanceClock({ body: { seconds: 1 } }), 'clock');

  ids.pennyVerified = (
    await core.transactions.pennyValidation({ source_instrument_id: ACME, destination_instrument_id: BBVA })
  ).id;
  ok(
    await sandbox.control.triggerCepOutcome({
      params: { transactionId: ids.pennyVerified },
      body: { status: 'COMPLETED' },
    }),
    'cep',
  );
  if (options.pennyMismatch) {
    ids.pennyMismatch = (
      await core.transactions.pennyValidation({ source_instrument_id: ACME, destination_instrument_id: JUAN })
    ).id;
    ok(
      await sandbox.control.triggerCepOutcome({
        params: { transactionId: ids.pennyMismatch },
        body: { status: 'COMPLETED', beneficiaryName: 'Roberto Sánchez Díaz' },
      }),
      'cep',
    );
  }

  ids.creditMatched = ok(
    await sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: ACME_CLABE, amount: '1200.00', numericReference: '4400001' },
    }),
    'credit',
  ).transactionId;
  ids.creditUnmatched = ok(
    await sandbox.control.triggerIncomingSpei({ body: { beneficiaryClabe: ACME_CLABE, amount: '999.00' } }),
    'credit',
  ).transactionId;
  ids.creditRefused = ok(
    await sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: ACME_CLABE, amount: '640.00', payerAccount: DENIED_PAYER },
    }),
    'credit',
  ).transactionId;
  return ids;
}

export async function startPipeline(name: string): Promise<Pipeline> {
  const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
  let gatewayStore: Record<string, string>;
  let openLedger: () => Promise<Database>;
  let cleanup: () => Promise<void>;
  let handOver: () => Promise<void> = async () => {};
  if (postgres) {
    const opened = await postgres.open();
    gatewayStore = { DATABASE_URL: opened.url! };
    openLedger = async () => opened.db;
    cleanup = () => opened.drop();
  } else {
    // PGlite is one process per folder: the gateway writes it, then the test reads it.
    const dir = await mkdtemp(path.join(tmpdir(), `paykit-${name}-`));
    gatewayStore = { PAYKIT_DATA_DIR: dir };
    let ledger: Database | undefined;
    openLedger = async () => (ledger = await openDatabase({ dataDir: path.join(dir, 'pglite') }));
    handOver = async () => {
      await ledger?.close();
      ledger = undefined;
    };
    cleanup = async () => {
      await ledger?.close();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const sandbox = await startSandboxProcess();
  const token = TEST_SECRETS.coreWebhookToken;
  let gateway: GatewayProcess | undefined = await startGatewayProcess({
    ...gatewayStore,
    GATEWAY_CORE_TOKENS_MONEY_IN: token,
    GATEWAY_CORE_TOKENS_STATUS_UPDATE: token,
    GATEWAY_CORE_TOKENS_CEP: token,
    GATEWAY_CORE_TOKENS_REFUND: token,
    GATEWAY_CORE_NO_AUTH: 'REPORT',
    GATEWAY_UNKNOWN_ACCOUNT: 'accept',
    GATEWAY_DENY_PAYERS: DENIED_PAYER,
  });
  const created: CreatedTransactionLike[] = [];
  const core = createCoreClient({
    ...(await seededClients(sandbox)).core,
    onTransactionCreated: (transaction) => void created.push(transaction),
  });
  await registerGatewayWebhooks(core, gateway.url, token);
  const ok = <T extends { status: number; body: unknown }>(
    answer: T,
    what: string,
  ): Extract<T, { status: 200 }>['body'] => {
    if (answer.status !== 200) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as Extract<T, { status: 200 }>['body'];
  };
  return {
    sandbox,
    core,
    created,
    ok,
    out: async (amount, destination = BBVA) =>
      String(
        (
          await core.transactions.moneyOut({
            source_instrument_id: ACME,
            destination_instrument_id: destination,
            transaction_request: { amount, currency: 'MXN' },
          })
        ).id,
      ),
    async stopGatewayAndOpenLedger() {
      await gateway?.stop();
      gateway = undefined;
      return openLedger();
    },
    async handOverLedger() {
      await handOver();
      return gatewayStore;
    },
    async close() {
      await gateway?.stop();
      await sandbox.close();
      await cleanup();
    },
  };
}
