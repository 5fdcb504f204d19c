// The sandbox's real deliveries (its own process, its own signing and redelivery) into a gateway:
// webhooks registered through the paykit clients, every event type stored, a refused credit
// refunded by the platform, an internal credit never refused, cash activated and delivered, and
// duplicated deliveries stored once.
import { createCashClient } from '@paykit/cash-client';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, CORE_EVENT_TYPES } from '@paykit/contracts';
import { createCoreClient, type CoreClient } from '@paykit/core-client';
import { declareSecret } from '@paykit/testing/secret-audit';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { seededClients } from '@paykit/testing/seeded-clients';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLABES, TOKENS, databaseKinds, startTestGateway, type TestGateway } from './helpers.ts';

const ACME_INSTRUMENT = '66666666-6666-4666-8666-000000000001';
const BODEGA_INSTRUMENT = '66666666-6666-4666-8666-000000000002';
const BBVA_INSTRUMENT = '66666666-6666-4666-8666-000000000004';

describe('the sandbox delivering to the gateway', () => {
  let sandbox: SandboxProcess;
  let t: TestGateway | undefined;
  let core: CoreClient;
  let clientId: string;

  beforeAll(async () => {
    sandbox = await startSandboxProcess();
    const seeded = await seededClients(sandbox);
    clientId = seeded.core.clientId;
    core = createCoreClient(seeded.core);

    // Cash first: its secret_token exists only once the webhook is created, and the gateway
    // needs it to verify the activation test, which is then sent again by updating the endpoint.
    const cash = createCashClient(seeded.cash);
    const created = await cash.webhooks.create('http://127.0.0.1:9/not-yet');
    const secret = String(created.secret_token);
    declareSecret(secret);
    t = await startTestGateway(databaseKinds[0]!, { env: { GATEWAY_CASH_SECRET_TOKENS: secret } });
    await cash.webhooks.update(Number(created.id), `${t.url}${CASH_WEBHOOK_PATH}`);
    // The activation test is sent after the update answers.
    const active = await vi.waitFor(() => cash.webhooks.getActive(), { timeout: 5_000, interval: 50 });
    expect(active.endpoint_url).toBe(`${t.url}${CASH_WEBHOOK_PATH}`);

    for (const type of CORE_EVENT_TYPES) {
      const url = `${t.url}${CORE_EVENT_PATHS[type]}`;
      if (type === 'REPORT') await core.webhooks.register({ webhookType: type, url, authType: 'NO_AUTH' });
      else await core.webhooks.register({ webhookType: type, url, token: TOKENS.coreWebhookToken });
    }
    await t.gateway.accounts.upsert({ clabe: CLABES.acme, ownerId: null, status: 'ACTIVE', creditLimit: null });
    await t.gateway.accounts.upsert({ clabe: CLABES.bodega, ownerId: null, status: 'BLOCKED', creditLimit: null });
  });
  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  const stored = async (eventType: string, match: (payload: Record<string, unknown>) => boolean) => {
    const events = await t!.gateway.events.list({ eventType, limit: 1000 });
    return events.filter((e) => match(e.payload as Record<string, unknown>));
  };
  const bodyOf = (payload: Record<string, unknown>) => (payload.body ?? {}) as Record<string, unknown>;

  it('stores the cash activation it answered', async () => {
    expect(await stored('webhook.activation', () => true)).toHaveLength(1);
  });

  it('accepts an external credit to a known account (201)', async () => {
    const credit = await sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: CLABES.acme, amount: '1200.00' },
    });
    if (credit.status !== 200) throw new Error(`incoming SPEI: ${credit.status}`);
    const [event] = await stored('MONEY_IN', (p) => bodyOf(p).id === credit.body.transactionId);
    expect(event).toMatchObject({ outcome: 'accepted', answerStatus: 201, drift: [], deliveries: 1 });
  });

  it('refuses a credit to a blocked account (422) and receives the refund the platform makes', async () => {
    const credit = await sandbox.control.triggerIncomingSpei({
      body: { beneficiaryClabe: CLABES.bodega, amount: '800.00' },
    });
    if (credit.status !== 200) throw new Error(`incoming SPEI: ${credit.status}`);
    const [event] = await stored('MONEY_IN', (p) => bodyOf(p).id === credit.body.transactionId);
    expect(event).toMatchObject({
      outcome: 'rejected',
      answerStatus: 422,
      refundReason: 'Beneficiary account blocked',
    });
    const deliveries = await sandbox.control.listDeliveries({ query: { eventType: 'MONEY_IN', state: 'rejected' } });
    expect(deliveries.status === 200 && deliveries.body.deliveries.some((d) => d.eventId.length > 0)).toBe(true);
    const refunds = await stored('REFUND', (p) => bodyOf(p).original_transaction_id === credit.body.transactionId);
    expect(refunds).toHaveLength(1);
    expect(bodyOf(refunds[0]!.payload as Record<string, unknown>)).toMatchObject({
      amount: '800.00',
      original_transaction_amount: '800.00',
    });
  });

  it('never refuses an internal credit: stored flagged with 200, nothing refunded', async () => {
    const transfer = await core.transactions.moneyOut({
      source_instrument_id: ACME_INSTRUMENT,
      destination_instrument_id: BODEGA_INSTRUMENT,
      transaction_request: { amount: '75.00', currency: 'MXN' },
    });
    // An internal transfer settles on the sandbox's next clock step, which delivers the INT_CREDIT.
    await sandbox.control.advanceClock({ body: { seconds: 1 } });
    const credits = await stored(
      'MONEY_IN',
      (p) => bodyOf(p).sub_category === 'INT_CREDIT' && bodyOf(p).tracking_key === String(transfer.trackingId),
    );
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ outcome: 'flagged', answerStatus: 200 });
    expect(
      await stored(
        'REFUND',
        (p) => bodyOf(p).original_transaction_id === bodyOf(credits[0]!.payload as Record<string, unknown>).id,
      ),
    ).toHaveLength(0);
  });

  it('stores the STATUS_UPDATEs of a SPEI transfer, the CEP of a penny validation and a REPORT', async () => {
    const transfer = await core.transactions.moneyOut({
      source_instrument_id: ACME_INSTRUMENT,
      destination_instrument_id: BBVA_INSTRUMENT,
      transaction_request: { amount: '300.00', currency: 'MXN' },
    });
    const settled = await sandbox.control.triggerSpeiSettle({
      params: { transactionId: String(transfer.id) },
      body: {},
    });
    expect(settled.status).toBe(200);
    const updates = await stored('STATUS_UPDATE', (p) => bodyOf(p).id === transfer.id);
    expect(updates.map((u) => bodyOf(u.payload as Record<string, unknown>).status).sort()).toEqual([
      'IN_PROGRESS',
      'LIQUIDATED',
    ]);

    const validation = await core.transactions.pennyValidation({
      source_instrument_id: ACME_INSTRUMENT,
      destination_instrument_id: BBVA_INSTRUMENT,
    });
    await sandbox.control.triggerCepOutcome({
      params: { transactionId: validation.id },
      body: { status: 'COMPLETED' },
    });
    const ceps = await stored('CEP', (p) => bodyOf(p).id === validation.id);
    expect(ceps.map((c) => bodyOf(c.payload as Record<string, unknown>).status)).toContain('COMPLETED');

    const report = await sandbox.control.triggerReport({
      body: { clientId, fileType: 'TRANSACTIONS', period: 'DAILY' },
    });
    if (report.status !== 200) throw new Error(`report: ${report.status}`);
    expect(await stored('REPORT', (p) => p.file_name === report.body.fileName)).toHaveLength(1);
    // Every delivery was authenticated and answered 2xx or the credit's 422: nothing left to redeliver.
    const retrying = await sandbox.control.listDeliveries({ query: { state: 'retrying' } });
    expect(retrying.status === 200 && retrying.body.deliveries).toEqual([]);
  });

  it('stores a signed cash event', async () => {
    const operation = await sandbox.control.createCashOperation({
      body: { type: 'cash_in', amount: 500, externalUserId: 'customer-9' },
    });
    if (operation.status !== 200) throw new Error(`cash operation: ${operation.status}`);
    await sandbox.control.setCashOperationStatus({
      params: { operationId: operation.body.operation_id },
      body: { status: 'paid' },
    });
    const event = await t!.gateway.events.getByDedupeKey(`cash:${operation.body.operation_id}:webhook.paid.success`);
    expect(event).toMatchObject({ source: 'cash', outcome: 'stored', answerStatus: 200, drift: [] });
  });

  it('stores duplicated deliveries once and answers each again', async () => {
    await sandbox.control.setFaults({
      body: {
        deliveries: { duplicates: { min: 3, max: 3 }, reorder: false, delayMs: 0 },
        api: { latencyMs: 0, errorRate: 0 },
      },
    });
    try {
      const credit = await sandbox.control.triggerIncomingSpei({
        body: { beneficiaryClabe: CLABES.acme, amount: '42.00' },
      });
      if (credit.status !== 200) throw new Error(`incoming SPEI: ${credit.status}`);
      const events = await stored('MONEY_IN', (p) => bodyOf(p).id === credit.body.transactionId);
      expect(events).toHaveLength(1);
      expect(events[0]!.deliveries).toBe(3);
    } finally {
      await sandbox.control.setFaults({
        body: {
          deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
          api: { latencyMs: 0, errorRate: 0 },
        },
      });
    }
  });
});
