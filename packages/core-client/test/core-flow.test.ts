// The whole core flow against the sandbox over real HTTP: API key → credential → token →
// webhooks → penny validation → money_out (both routes) → a delivery verified and parsed →
// the deprecated internal_transaction → the private account lifecycle.
import { isNone } from '@paykit/runtime';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxProcess } from '@paykit/testing/sandbox';
import {
  BadRequestError,
  MoneyError,
  parseCoreEvent,
  TransactionRecordingError,
  verifyCoreWebhook,
  type CoreClient,
  type CreatedTransaction,
  type DriftReport,
  type MoneyOutInput,
} from '@paykit/core-client';
import {
  eventually,
  startSeededSandbox,
  requestCount,
  type SandboxTime,
  stagingClient,
  startReceiver,
  type CoreSeed,
} from './helpers.ts';

let sandbox: SandboxProcess;
let seed: CoreSeed;
let time: SandboxTime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let core: CoreClient;
const created: CreatedTransaction[] = [];
const drift: DriftReport[] = [];

const ACME = '66666666-6666-4666-8666-000000000001';
const BODEGA_NORTE = '66666666-6666-4666-8666-000000000002';
const BBVA_SUPPLIER = '66666666-6666-4666-8666-000000000004';

beforeAll(async () => {
  ({ sandbox, seed, time } = await startSeededSandbox());
  receiver = await startReceiver();
  core = stagingClient(sandbox, seed, time, {
    onTransactionCreated: (tx) => {
      created.push(tx);
    },
    onDrift: (report) => drift.push(report),
  });
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.close();
});

describe('the core flow from API key to money_out', () => {
  let webhookToken: string;

  it('retrieves the credential with the API key and creates a token whose expires_at is read as UTC-6', async () => {
    const credentials = await core.credentials.list();
    expect(credentials.data.map((c) => [c.id, c.environment, c.status])).toEqual([
      [seed.stagingCredentialId, 'staging', 'ACTIVE'],
    ]);

    const token = await core.tokens.current();
    expect(token.credentialId).toBe(seed.stagingCredentialId);
    expect(token.clientId).toBe(seed.clientId);
    expect(token.environment).toBe('staging');
    // The sandbox's tokens live 24 h from its clock; read as UTC this would be 6 h off.
    expect(Date.parse(token.expiresAt)).toBe(time.now.getTime() + 24 * 3600 * 1000);
    // Cached: asking again creates nothing.
    expect(await core.tokens.current()).toEqual(token);
  });

  it('registers a webhook with a generated 32-byte token that is returned once and not in the configuration', async () => {
    const { webhook, token } = await core.webhooks.register({
      webhookType: 'MONEY_IN',
      url: `${receiver.url}/money-in`,
    });
    webhookToken = token;
    expect(webhook).toMatchObject({
      clientId: seed.clientId,
      webhookType: 'MONEY_IN',
      webhookStatus: 'ACTIVE',
      url: `${receiver.url}/money-in`,
    });
    // The sandbox answers "None", as the published answers do: one of the forms of "none".
    expect(isNone(webhook.deletedAt)).toBe(true);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(webhook)).not.toContain(token);

    const listed = (await core.webhooks.list()) as { id: string }[];
    expect(listed.map((w) => w.id)).toEqual([webhook.id]);
    expect(await core.webhooks.get(webhook.id!)).toMatchObject({ id: webhook.id, webhookStatus: 'ACTIVE' });
    expect(await core.webhooks.update(webhook.id!, { webhookStatus: 'INACTIVE' })).toMatchObject({
      webhookStatus: 'INACTIVE',
    });
    expect(await core.webhooks.update(webhook.id!, { webhookStatus: 'ACTIVE' })).toMatchObject({
      webhookStatus: 'ACTIVE',
    });
  });

  it('generates a different token for every registration', async () => {
    const cep = await core.webhooks.register({ webhookType: 'CEP', url: `${receiver.url}/cep` });
    const report = await core.webhooks.register({ webhookType: 'REPORT', url: `${receiver.url}/report` });
    expect(cep.token).not.toBe(report.token);
    expect(new Set([cep.token, report.token, webhookToken]).size).toBe(3);
    const deleted = await core.webhooks.delete(report.webhook.id!);
    expect(deleted).toMatchObject({ id: report.webhook.id });
    expect((deleted as { deletedAt: unknown }).deletedAt).toEqual(expect.any(String));
  });

  it('creates a penny validation with the reference defaults and hands it to onTransactionCreated', async () => {
    const tx = await core.transactions.pennyValidation({
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
    });
    expect(tx).toMatchObject({
      clientId: seed.clientId,
      amount: '0.01',
      currency: 'MXN',
      description: 'Penny Validation',
      externalReference: '0000001',
    });
    expect(created.at(-1)).toMatchObject({ operation: 'createPennyValidation', transaction: { id: tx.id } });
    expect((created.at(-1) as { idempotencyKey: string }).idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('sends money_out to a platform account as INT_DEBIT and the receiver gets a MONEY_IN INT_CREDIT it can verify and parse', async () => {
    const tx = await core.transactions.moneyOut({
      source_instrument_id: ACME,
      destination_instrument_id: BODEGA_NORTE,
      transaction_request: { amount: '150.00', currency: 'MXN', description: 'Invoice 42' },
    });
    expect(tx.subCategory).toBe('INT_DEBIT');
    expect(tx).toMatchObject({ amount: '150.00', clientId: seed.clientId });
    expect(created.at(-1)).toEqual({
      operation: 'createMoneyOut',
      transaction: tx,
      idempotencyKey: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
    });

    await time.advance(1); // internal transfers settle on the sandbox clock
    const delivery = await eventually(
      () => receiver.received.find((r) => r.path === '/money-in'),
      'the MONEY_IN delivery',
    );
    expect(verifyCoreWebhook(delivery.headers, ['an-old-token-being-rotated-out-000000', webhookToken])).toBe(1);
    const event = parseCoreEvent(delivery.body);
    expect(event.kind).toBe('MONEY_IN');
    if (event.kind !== 'MONEY_IN') return;
    expect(event.event.body).toMatchObject({
      sub_category: 'INT_CREDIT',
      amount: '150.00',
      owner_id: '33333333-3333-4333-8333-000000000002',
    });
  });

  it('sends money_out to an external CLABE as SPEI_DEBIT', async () => {
    const tx = await core.transactions.moneyOut({
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: { amount: '25.50', currency: 'MXN' },
    });
    expect(tx.subCategory).toBe('SPEI_DEBIT');
    expect(created.filter((c) => c.operation === 'createMoneyOut')).toHaveLength(2);
  });

  it('refuses an amount that is not a two-decimal string before sending anything', async () => {
    const before = await requestCount(sandbox, 'POST /core/v1/transactions/money_out');
    const asNumber = {
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: { amount: 150, currency: 'MXN' },
    } as unknown as MoneyOutInput;
    await expect(core.transactions.moneyOut(asNumber)).rejects.toBeInstanceOf(MoneyError);
    await expect(
      core.transactions.moneyOut({ ...asNumber, transaction_request: { amount: '150.5', currency: 'MXN' } }),
    ).rejects.toBeInstanceOf(MoneyError);
    expect(await requestCount(sandbox, 'POST /core/v1/transactions/money_out')).toBe(before);
  });

  it('reports a failing onTransactionCreated with the transaction it could not record', async () => {
    const failing = stagingClient(sandbox, seed, time, {
      onTransactionCreated: () => {
        throw new Error('ledger unavailable');
      },
    });
    const error = (await failing.transactions
      .moneyOut({
        source_instrument_id: ACME,
        destination_instrument_id: BBVA_SUPPLIER,
        transaction_request: { amount: '1.00', currency: 'MXN' },
      })
      .catch((e: unknown) => e)) as TransactionRecordingError;
    expect(error).toBeInstanceOf(TransactionRecordingError);
    expect(error.transaction).toMatchObject({ subCategory: 'SPEI_DEBIT', amount: '1.00' });
    const id = (error.transaction as { id: string }).id;
    expect(error.message).toContain(id);
    // money_out carries its key: repeating the same request is how the answer is fetched again.
    expect(error.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.message).toContain(
      `repeating the same request with Idempotency-Key ${error.idempotencyKey} within 24 h returns this transaction and moves nothing`,
    );
    expect((error.cause as Error).message).toBe('ledger unavailable');
  });

  it('has read every response without a schema mismatch', () => {
    expect(drift.filter((d) => d.kind === 'mismatch')).toEqual([]);
  });
});

describe('internal_transaction (deprecated)', () => {
  it('still works and warns once per process', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const body = {
        source_instrument_id: ACME,
        destination_instrument_id: BODEGA_NORTE,
        transaction_request: { amount: '10.00', currency: 'MXN' as const },
      };
      const first = await core.transactions.internalTransaction(body);
      const second = await core.transactions.internalTransaction(body);
      expect(first).toMatchObject({ subCategory: 'INT_DEBIT', amount: '10.00' });
      expect((first as { id: string }).id).not.toBe((second as { id: string }).id);
      expect(emitWarning).toHaveBeenCalledTimes(1);
      const [message, options] = emitWarning.mock.calls[0]!;
      expect(String(message)).toContain('moneyOut');
      expect(options).toMatchObject({ type: 'DeprecationWarning', code: 'PAYKIT_CORE_INTERNAL_TRANSACTION' });
      expect(created.filter((c) => c.operation === 'createInternalTransaction')).toHaveLength(2);
    } finally {
      emitWarning.mockRestore();
    }
  });
});

describe('private account lifecycle', () => {
  const BODEGA_ACCOUNT = '55555555-5555-4555-8555-000000000002';
  const JUAN_ACCOUNT = '55555555-5555-4555-8555-000000000003';

  it('blocks, activates and cancels, and surfaces a wrong transition as BadRequestError', async () => {
    expect(await core.accounts.block(BODEGA_ACCOUNT)).toEqual({
      id: BODEGA_ACCOUNT,
      account_status: 'BLOCKED',
      status: 'BLOCKED',
    });
    const again = await core.accounts.block(BODEGA_ACCOUNT).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(BadRequestError);
    expect((again as BadRequestError).details?.[0]?.reason).toBe('FAILED_PRECONDITION');
    expect(await core.accounts.activate(BODEGA_ACCOUNT)).toEqual({
      id: BODEGA_ACCOUNT,
      account_status: 'ACTIVE',
      status: 'ACTIVE',
    });
    expect(await core.accounts.cancel(JUAN_ACCOUNT)).toEqual({
      id: JUAN_ACCOUNT,
      account_status: 'CANCELLED',
      status: 'CANCELLED',
    });
  });
});
