// Walks every operation of every spec in specs/ and calls it on the sandbox: each must answer
// 2xx, and the answer must pass the generated zod schema of its operation. A spec that gains an
// operation fails this test until the sandbox implements it.
import { createHmac } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type * as z from 'zod';
import { CLIENT_ID, DEFAULT_SEED, type Sandbox } from '../src/index.ts';
import { call, startReceiver, startTestSandbox, type Receiver } from './helpers.ts';

const SPECS = path.resolve(import.meta.dirname, '../../../specs');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface SpecOperation {
  product: string;
  operationId: string;
  method: string;
  path: string;
}

async function specOperations(): Promise<SpecOperation[]> {
  const operations: SpecOperation[] = [];
  for (const file of (await readdir(SPECS)).filter((f) => f.endsWith('.yaml')).sort()) {
    const doc = parse(await readFile(path.join(SPECS, file), 'utf8')) as {
      paths?: Record<string, Record<string, { operationId?: string }>>;
    };
    for (const [p, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (op?.operationId)
          operations.push({
            product: file.replace(/\.yaml$/, ''),
            operationId: op.operationId,
            method: method.toUpperCase(),
            path: p,
          });
      }
    }
  }
  return operations;
}

const uuid = (n: number) => `9a9a9a9a-9a9a-4a9a-8a9a-${String(n).padStart(12, '0')}`;
const STAGING = DEFAULT_SEED.core.clients[0]!;
const STAGING_KEY = STAGING.apiKeys.staging;
const STAGING_SECRET = STAGING.credentials.find((c) => c.environment === 'staging')!.clientSecret;
const CASH = DEFAULT_SEED.cash[0]!;
const SOURCE = '66666666-6666-4666-8666-000000000001';
const EXTERNAL = '66666666-6666-4666-8666-000000000004';
const PLATFORM_OTHER_OWNER = '66666666-6666-4666-8666-000000000002';

interface Request {
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string;
}

describe('every operation of every spec', () => {
  let sandbox: Sandbox;
  let receiver: Receiver;
  let operations: SpecOperation[];
  let token = '';
  let webhookId = '';
  const accountId = '55555555-5555-4555-8555-000000000002';

  const bearer = () => ({ authorization: `Bearer ${token}` });
  const signed = (body: string) => {
    const ts = String(Math.floor(sandbox.runtime.clock.nowMs() / 1000));
    return {
      'x-client-id': CASH.apiKey,
      'x-timestamp': ts,
      'x-signature': createHmac('sha256', CASH.apiSecret).update(`${ts}.${body}`).digest('hex'),
      'content-type': 'application/json',
    };
  };

  // One request per operationId; run in the order of this table (a webhook is created before it is read).
  const recipes: Record<string, () => Request> = {
    listClientCredentials: () => ({
      path: `/v1/clients/${CLIENT_ID}/credentials`,
      headers: { 'x-api-key': STAGING_KEY },
    }),
    createCredentialToken: () => ({
      path: `/v1/clients/${CLIENT_ID}/auth/credential-tokens`,
      headers: { 'x-api-key': STAGING_KEY },
      body: { client_id: CLIENT_ID, client_secret: STAGING_SECRET },
    }),
    createWebhook: () => ({
      path: `/v1/clients/${CLIENT_ID}/webhooks`,
      headers: bearer(),
      body: {
        client_id: CLIENT_ID,
        url: `${receiver.url}/cep`,
        token: 'w'.repeat(40),
        webhook_type: 'CEP',
        auth_type: 'AUTH',
      },
    }),
    listWebhooks: () => ({ path: `/v1/clients/${CLIENT_ID}/webhooks`, headers: bearer() }),
    getWebhook: () => ({ path: `/v1/clients/${CLIENT_ID}/webhooks/${webhookId}`, headers: bearer() }),
    updateWebhook: () => ({
      path: `/v1/clients/${CLIENT_ID}/webhooks/${webhookId}`,
      headers: bearer(),
      body: { webhook_status: 'INACTIVE' },
    }),
    deleteWebhook: () => ({ path: `/v1/clients/${CLIENT_ID}/webhooks/${webhookId}`, headers: bearer() }),
    createPennyValidation: () => ({
      path: '/v1/transactions/penny_validation',
      headers: { ...bearer(), 'idempotency-key': uuid(1) },
      body: { client_id: CLIENT_ID, source_instrument_id: SOURCE, destination_instrument_id: EXTERNAL },
    }),
    createMoneyOut: () => ({
      path: '/v1/transactions/money_out',
      headers: bearer(),
      body: {
        client_id: CLIENT_ID,
        source_instrument_id: SOURCE,
        destination_instrument_id: EXTERNAL,
        transaction_request: { amount: '150.00', currency: 'MXN', description: 'Invoice 42' },
      },
    }),
    createInternalTransaction: () => ({
      path: '/v1/transactions/internal_transaction',
      headers: bearer(),
      body: {
        client_id: CLIENT_ID,
        source_instrument_id: SOURCE,
        destination_instrument_id: PLATFORM_OTHER_OWNER,
        transaction_request: { amount: '10.00', currency: 'MXN' },
      },
    }),
    blockAccount: () => ({ path: `/v1/clients/${CLIENT_ID}/accounts/${accountId}/block`, headers: bearer() }),
    activateAccount: () => ({ path: `/v1/clients/${CLIENT_ID}/accounts/${accountId}/activate`, headers: bearer() }),
    downloadReportFile: () => ({
      path: `/v1/reports/clients/${CLIENT_ID}/report/download`,
      headers: bearer(),
      body: { client_id: CLIENT_ID, report_type: 'DAILY', operation_date: '2026-05-07' },
    }),
    cancelAccount: () => ({ path: `/v1/clients/${CLIENT_ID}/accounts/${accountId}/cancel`, headers: bearer() }),
    createCustomer: () => ({
      path: '/customers',
      headers: { 'x-api-key': DEFAULT_SEED.directDebit!.apiKeys[0]! },
      body: {
        name: 'Rosa Díaz',
        document_type: 'mx_rfc',
        document_number: 'DIRR900101AB1',
        email: null,
        phone_number: null,
      },
    }),
    listInstruments: () => ({
      path: '/instruments?limit=1',
      headers: { 'x-api-key': DEFAULT_SEED.directDebit!.apiKeys[0]! },
    }),
    createInstrument: () => ({
      path: '/instruments',
      headers: { 'x-api-key': DEFAULT_SEED.directDebit!.apiKeys[0]! },
      body: {
        type: 'mx_clabe',
        customer_id: '77777777-7777-4777-8777-000000000101',
        mx_clabe: { identifier: '012180015118333755' },
      },
    }),
    createCharge: () => ({
      path: '/charges',
      headers: { 'x-api-key': DEFAULT_SEED.directDebit!.apiKeys[0]! },
      body: {
        currency: 'mxn',
        amount: 100,
        reference: 'walk-1',
        customer_id: '77777777-7777-4777-8777-000000000101',
        instrument_id: '77777777-7777-4777-8777-000000000201',
      },
    }),
    createCashWebhook: () => {
      const raw = JSON.stringify({ endpoint_url: `${receiver.url}/cash` });
      return { path: '/api/v1/cash/webhooks', headers: signed(raw), raw };
    },
    receiveRemittance: () => ({
      path: '/v2/remittances/receive',
      body: {
        partner_transaction_session_id: 'pts-walk-1',
        reference: 'REF1',
        amount: '250.00',
        currency: 'MXN',
        date_of_birth: '1990-01-01',
      },
    }),
  };
  const bearerTokens: Record<string, string> = {
    billpay: DEFAULT_SEED.bearer.billpay[0]!,
    'gift-cards': DEFAULT_SEED.bearer['gift-cards'][0]!,
    lottery: DEFAULT_SEED.bearer.lottery[0]!.token,
  };

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    receiver = await startReceiver();
    operations = await specOperations();
  });
  afterAll(async () => {
    await sandbox.close();
    await receiver.close();
  });

  it('has a request for every operation the specs declare', async () => {
    const missing = operations
      .filter((op) => op.operationId !== 'getClientAccount' && !recipes[op.operationId])
      .map((op) => `${op.product}: ${op.operationId}`);
    expect(missing).toEqual([]);
    expect(operations.length).toBeGreaterThanOrEqual(21);
  });

  it('answers every operation with 2xx and a body that passes its generated response schema', async () => {
    const order = Object.keys(recipes);
    const sorted = [...operations].sort(
      (a, b) => (order.indexOf(a.operationId) + 1 || 99) - (order.indexOf(b.operationId) + 1 || 99),
    );
    const failures: string[] = [];
    for (const op of sorted) {
      const request: Request =
        op.operationId === 'getClientAccount'
          ? { path: '/api/v1/client/account', headers: { authorization: `Bearer ${bearerTokens[op.product]}` } }
          : recipes[op.operationId]!();
      const url = `${sandbox.urls[op.product as keyof Sandbox['urls']]}${request.path}`;
      const response = await call(url, {
        method: op.method,
        headers: request.headers ?? {},
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.raw !== undefined ? { raw: request.raw } : {}),
      });
      const label = `${op.product} ${op.operationId} (${op.method} ${op.path})`;
      if (response.status < 200 || response.status > 299) {
        failures.push(`${label}: ${response.status} ${JSON.stringify(response.body)}`);
        continue;
      }
      const schemas = (await import(`@paykit/${op.product}-client/zod`)) as Record<string, z.ZodType>;
      const schema = schemas[`z${op.operationId[0]!.toUpperCase()}${op.operationId.slice(1)}Response`];
      if (schema) {
        const parsed = schema.safeParse(response.body);
        if (!parsed.success) failures.push(`${label}: response does not pass its schema: ${parsed.error.message}`);
      }
      if (op.operationId === 'createCredentialToken') token = response.body.token;
      if (op.operationId === 'createWebhook') webhookId = response.body.id;
    }
    expect(failures).toEqual([]);
  });
});
