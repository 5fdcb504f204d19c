// Test plumbing for the gateway: a gateway on a free port over a fresh database of each kind
// (PGlite always, PostgreSQL when DATABASE_URL is set), its log lines captured (and handed to the
// secret audit), and builders for deliveries as the platform sends them.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { hmacSha256Hex } from '@paykit/runtime';
import type { Database } from '@paykit/store';
import { testDatabases, type TestDatabaseKind } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startGateway, type Gateway, type GatewayOptions } from '../src/server.ts';

export const TOKENS = TEST_SECRETS;

/** A test configuration: every core type authenticated with the current token (REPORT NO_AUTH), the cash secret, the admin token. */
export function testEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    GATEWAY_PORT: '0',
    GATEWAY_CORE_TOKENS_MONEY_IN: `${TOKENS.coreWebhookToken},${TOKENS.previousCoreWebhookToken}`,
    GATEWAY_CORE_TOKENS_STATUS_UPDATE: TOKENS.coreWebhookToken,
    GATEWAY_CORE_TOKENS_CEP: TOKENS.coreWebhookToken,
    GATEWAY_CORE_TOKENS_REFUND: TOKENS.coreWebhookToken,
    GATEWAY_CORE_NO_AUTH: 'REPORT',
    GATEWAY_CASH_SECRET_TOKENS: TOKENS.cashSecretToken,
    GATEWAY_ADMIN_TOKEN: TOKENS.adminToken,
    GATEWAY_LOG_LEVEL: 'info',
    ...extra,
  };
}

export interface TestGateway {
  gateway: Gateway;
  url: string;
  db: Database;
  /** PostgreSQL only: the test database's URL, for a second connection (another process would have its own). */
  dbUrl: string | undefined;
  logs: string[];
  close(): Promise<void>;
}

export function logCapture(): { logs: string[]; stream: Writable } {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString('utf8');
      logs.push(text);
      record('gateway log', text);
      done();
    },
  });
  return { logs, stream };
}

/** A gateway over a fresh database of `kind`; close() stops it and drops the database. */
export async function startTestGateway(
  kind: TestDatabaseKind,
  options: { env?: Record<string, string> } & Omit<GatewayOptions, 'config' | 'database'> = {},
): Promise<TestGateway> {
  const { db, drop, url: dbUrl } = await kind.open();
  const { logs, stream } = logCapture();
  const { env, ...rest } = options;
  const gateway = await startGateway({
    config: loadConfig(testEnv(env)),
    database: db,
    logDestination: stream,
    processMetrics: false,
    ...rest,
  });
  return {
    gateway,
    url: gateway.url,
    db,
    dbUrl,
    logs,
    close: async () => {
      await gateway.close();
      await drop();
    },
  };
}

export const databaseKinds = testDatabases([ledgerMigrations]);

/**
 * For a test that starts a gateway over a fresh database itself: as long as a hook may take
 * (vitest.config.ts), since a PGlite copy of the migrated schema took over 60 s while both cores
 * ran other suites. A suite's gateway (gatewayForSuite) starts in a hook, under that limit already.
 */
export const START_TIMEOUT_MS = 180_000;

/**
 * A gateway for the enclosing describe block: started (and `seed`ed) before its tests, closed after.
 * Returns a getter, since the gateway exists only once the block runs.
 */
export function gatewayForSuite(
  kind: TestDatabaseKind,
  env: Record<string, string> = {},
  seed?: (t: TestGateway) => Promise<void>,
): () => TestGateway {
  let t: TestGateway | undefined;
  beforeAll(async () => {
    t = await startTestGateway(kind, { env });
    await seed?.(t);
  });
  afterAll(async () => {
    await t?.close();
  });
  return () => {
    if (t === undefined) throw new Error('the gateway of this describe block has not started');
    return t;
  };
}

/** Known platform accounts (valid CLABEs of the sandbox's default seed) and external payers. */
export const CLABES = {
  acme: '646180000000000012',
  bodega: '646180000000000025',
  juan: '646180000000000038',
  bbvaPayer: '012180000045678907',
  banortePayer: '072180000012345672',
} as const;

export function moneyInEnvelope(
  body: Record<string, unknown> = {},
  envelope: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id_msg: randomUUID(),
    msg_name: 'MONEY_IN',
    msg_date: '2026-11-21',
    body: {
      id: randomUUID(),
      beneficiary_account: CLABES.acme,
      beneficiary_name: 'ACME PAGOS SA DE CV',
      beneficiary_rfc: 'APA010101AB1',
      payer_account: CLABES.bbvaPayer,
      payer_name: 'CLIENTE UNO',
      payer_rfc: 'CUNO800101AB1',
      payer_institution: '40012',
      amount: '1500.00',
      transaction_date: '2026-11-21 10:15:00',
      tracking_key: 'EXT202611210000000001',
      payment_concept: 'Factura 123',
      numeric_reference: '1234567',
      sub_category: 'SPEI_CREDIT',
      registered_at: '2026-11-21T10:15:00-06:00',
      owner_id: randomUUID(),
      ...body,
    },
    ...envelope,
  };
}

export function envelope(
  msgName: 'STATUS_UPDATE' | 'CEP' | 'REFUND',
  body: Record<string, unknown>,
): Record<string, unknown> {
  return { id_msg: randomUUID(), msg_name: msgName, msg_date: '2026-11-21', body };
}

export const statusUpdateBody = (): Record<string, unknown> => ({
  id: randomUUID(),
  tracking_key: 'PK202611210000000001',
  message_type: 'SPEI',
  status: 'LIQUIDATED',
  update_at: '2026-11-21T10:16:00-06:00',
});

export const cepBody = (): Record<string, unknown> => ({
  id: randomUUID(),
  tracking_key: 'PK202611210000000002',
  beneficiary_account: CLABES.bbvaPayer,
  beneficiary_name: 'CLIENTE UNO',
  beneficiary_rfc: 'CUNO800101AB1',
  status: 'COMPLETED',
  processed_at: '2026-11-21T10:17:00-06:00',
});

export const refundBody = (originalId: string = randomUUID()): Record<string, unknown> => ({
  id: randomUUID(),
  tracking_key: 'RF202611210000000001',
  beneficiary_account: CLABES.bbvaPayer,
  beneficiary_name: 'CLIENTE UNO',
  beneficiary_rfc: 'CUNO800101AB1',
  payer_account: CLABES.acme,
  payer_name: 'ACME PAGOS SA DE CV',
  payer_rfc: 'APA010101AB1',
  payer_institution: '90646',
  amount: '1500.00',
  transaction_date: '2026-11-21 10:20:00',
  category: 'DEBIT_TRANS',
  sub_category: 'SPEI_REFUNDED_DEBIT',
  payment_concept: 'Devolucion',
  numeric_reference: null,
  original_transaction_id: originalId,
  original_transaction_tracking_id: 'EXT202611210000000001',
  original_transaction_amount: '1500.00',
});

export const reportBody = (): Record<string, unknown> => ({
  client_id: '11111111-1111-4111-8111-111111111111',
  file_type: 'TRANSACTIONS',
  period: 'DAILY',
  file_name: `TRANSACTIONS_DAILY_${randomUUID().slice(0, 8)}.csv`,
  created_at: '2026-11-21T00:05:00-06:00',
});

export function cashEvent(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: 'webhook.paid.success',
    operation_id: Math.floor(Math.random() * 1e9),
    external_user_id: 'user-1',
    type: 'cash_in',
    amount: 250,
    reference: '12345678901234567890',
    status: 'paid',
    processed_at: new Date().toISOString(),
    ...overrides,
  };
}

/** The headers the cash service signs a delivery with. */
export function cashHeaders(
  raw: string,
  options: { secret?: string; timestamp?: number } = {},
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-webhook-timestamp': String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    'x-webhook-signature': hmacSha256Hex(options.secret ?? TOKENS.cashSecretToken, raw),
  };
}

export const bearer = (token: string = TOKENS.coreWebhookToken): Record<string, string> => ({
  'content-type': 'application/json',
  authorization: `Bearer ${token}`,
});

export async function post(
  url: string,
  body: string | Uint8Array,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });
  const text = await response.text();
  try {
    return { status: response.status, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, json: { text } };
  }
}
