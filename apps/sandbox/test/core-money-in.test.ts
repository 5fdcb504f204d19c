// Incoming SPEI credits (control API trigger): the MONEY_IN SPEI_CREDIT a real receiver gets,
// accepted with 201, or refused with 422 + refundReason, which refunds the credit to its payer
// (a refund transaction and a REFUND event).
import { zCoreTransaction, zMoneyInEvent, zRefundEvent } from '@paykit/core-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, OWNERS } from '../src/index.ts';
import { renderTransaction } from '../src/products/core/transactions/render.ts';
import { BODEGA_ACCOUNT, bootCore, deliveriesAt, START_BALANCE, type CoreHarness } from './core-helpers.ts';
import { T0, type Receiver } from './helpers.ts';

const BODEGA_CLABE = '646180000000000025';
const JUAN_CLABE = '646180000000000038';

let core: CoreHarness;
let receiver: Receiver;

beforeEach(async () => {
  core = await bootCore();
  receiver = await core.receiver();
  await core.subscribe(receiver, ['MONEY_IN', 'REFUND']);
});
afterEach(() => core.close());

const incoming = (body: { beneficiaryClabe: string; amount: string; paymentConcept?: string }) =>
  core.control.triggerIncomingSpei({ body });
const balance = () => core.state.accounts.get(BODEGA_ACCOUNT)!.balanceCentavos;
const moneyIns = () => deliveriesAt(receiver, '/MONEY_IN', zMoneyInEvent);
const refunds = () => deliveriesAt(receiver, '/REFUND', zRefundEvent);

describe('incoming SPEI credit', () => {
  it('accepted (201): a LIQUIDATED SPEI_CREDIT, the balance credited, MONEY_IN with the reference’s fields', async () => {
    receiver.answer = () => ({ status: 201, body: {} });
    const answer = await incoming({ beneficiaryClabe: BODEGA_CLABE, amount: '1500.00' });
    expect(answer.status).toBe(200);
    const { transactionId, trackingKey } = answer.body as { transactionId: string; trackingKey: string };
    expect(trackingKey).toMatch(/^EXT20260507\d{10}$/);
    expect(balance()).toBe(START_BALANCE + 150_000n);

    const [event] = moneyIns();
    expect(event!.msg_name).toBe('MONEY_IN');
    expect(event!.msg_date).toBe('2026-05-07');
    expect(event!.body).toEqual({
      id: transactionId,
      beneficiary_account: BODEGA_CLABE,
      beneficiary_name: 'BODEGA NORTE SA DE CV',
      beneficiary_rfc: 'BNO020202CD2',
      payer_account: '002180001234567896',
      payer_name: 'PAGADOR EXTERNO SA DE CV',
      payer_rfc: 'PEX010101AB1',
      payer_institution: '40002',
      amount: '1500.00',
      transaction_date: '20260507',
      tracking_key: trackingKey,
      payment_concept: 'Pago',
      numeric_reference: '1234567',
      sub_category: 'SPEI_CREDIT',
      registered_at: T0,
      owner_id: OWNERS.bodegaNorte,
    });
    const tx = core.state.transactions.get(transactionId)!;
    expect(tx).toMatchObject({
      kind: 'MONEY_IN',
      category: 'CREDIT_TRANS',
      subCategory: 'SPEI_CREDIT',
      status: 'LIQUIDATED',
      clientId: CLIENT_ID,
    });
    expect(zCoreTransaction.safeParse(renderTransaction(core.sandbox.products.core, tx)).success).toBe(true);
    const deliveries = await core.control.listDeliveries({ query: { eventType: 'MONEY_IN' } });
    expect((deliveries.body as { deliveries: { state: string }[] }).deliveries.map((d) => d.state)).toEqual([
      'delivered',
    ]);
    expect(refunds()).toEqual([]);
  });

  it('a credit to a RECEIVER platform instrument names its owner', async () => {
    const answer = await incoming({ beneficiaryClabe: JUAN_CLABE, amount: '0.50', paymentConcept: 'Remesa' });
    expect(answer.status).toBe(200);
    expect(moneyIns()[0]!.body).toMatchObject({
      beneficiary_account: JUAN_CLABE,
      beneficiary_name: 'JUAN PEREZ LOPEZ',
      owner_id: OWNERS.juanPerez,
      amount: '0.50',
      payment_concept: 'Remesa',
    });
  });

  it('refused (422 with refundReason): refunded to its payer, once, with a REFUND event whose amount equals the original', async () => {
    receiver.answer = (r) =>
      r.url === '/MONEY_IN'
        ? { status: 422, body: { refundReason: 'Cuenta no reconocida' } }
        : { status: 200, body: {} };
    // Duplicate deliveries answer 422 twice: still one refund.
    await core.control.setFaults({
      body: {
        api: { latencyMs: 0, errorRate: 0 },
        deliveries: { duplicates: { min: 2, max: 2 }, reorder: false, delayMs: 0 },
      },
    });
    const answer = await incoming({ beneficiaryClabe: BODEGA_CLABE, amount: '820.10' });
    const { transactionId, trackingKey } = answer.body as { transactionId: string; trackingKey: string };
    expect(moneyIns()).toHaveLength(2);
    expect(balance()).toBe(START_BALANCE);

    const state = core.state;
    const original = state.transactions.get(transactionId)!;
    expect(original.status).toBe('REFUNDED');
    const refund = state.transactions.get(original.refundTransactionId!)!;
    expect(refund).toMatchObject({
      kind: 'REFUND',
      category: 'DEBIT_TRANS',
      subCategory: 'SPEI_REFUNDED_DEBIT',
      status: 'LIQUIDATED',
      originalTransactionId: transactionId,
      amountCentavos: 82_010n,
    });
    expect([...state.transactions.values()].filter((t) => t.kind === 'REFUND')).toHaveLength(1);

    const events = refunds();
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(new Set(events.map((e) => e.id_msg)).size).toBe(1);
    expect(events[0]!.body).toEqual({
      id: refund.id,
      tracking_key: refund.trackingId,
      beneficiary_account: '002180001234567896',
      beneficiary_name: 'PAGADOR EXTERNO SA DE CV',
      beneficiary_rfc: 'PEX010101AB1',
      payer_account: BODEGA_CLABE,
      payer_name: 'BODEGA NORTE SA DE CV',
      payer_rfc: 'BNO020202CD2',
      payer_institution: '90646',
      amount: '820.10',
      transaction_date: '2026-05-07 12:00:00',
      category: 'DEBIT_TRANS',
      sub_category: 'SPEI_REFUNDED_DEBIT',
      payment_concept: 'Cuenta no reconocida',
      numeric_reference: '1234567',
      original_transaction_id: transactionId,
      original_transaction_tracking_id: trackingKey,
      original_transaction_amount: '820.10',
    });
    const rendered = renderTransaction(core.sandbox.products.core, original);
    expect(zCoreTransaction.safeParse(rendered).success).toBe(true);
    expect(rendered).toMatchObject({ transactionStatus: 'REFUNDED', refundTransactionId: refund.id });
    expect(zCoreTransaction.safeParse(renderTransaction(core.sandbox.products.core, refund)).success).toBe(true);
    const deliveries = await core.control.listDeliveries({ query: { eventType: 'MONEY_IN' } });
    expect((deliveries.body as { deliveries: { state: string }[] }).deliveries.map((d) => d.state)).toEqual([
      'rejected',
      'rejected',
    ]);
  });

  it.each([
    ['a 422 without refundReason', { status: 422, body: { error: 'bad' } }],
    ['a 422 with an empty refundReason', { status: 422, body: { refundReason: '' } }],
    ['a 202 (stored, checks pending)', { status: 202, body: {} }],
    ['a 200', { status: 200, body: {} }],
  ])('%s refunds nothing', async (_name, reply) => {
    receiver.answer = () => reply;
    const answer = await incoming({ beneficiaryClabe: BODEGA_CLABE, amount: '10.00' });
    expect(moneyIns()).toHaveLength(1);
    expect(refunds()).toEqual([]);
    expect(core.state.transactions.get((answer.body as { transactionId: string }).transactionId)!.status).toBe(
      'LIQUIDATED',
    );
    expect(balance()).toBe(START_BALANCE + 1_000n);
  });

  it('404 for a CLABE no instrument has; 409 for an external instrument or a blocked account', async () => {
    const unknown = await incoming({ beneficiaryClabe: '002180009999999990', amount: '1.00' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      error: expect.stringMatching(/002180009999999990/),
      hint: expect.any(String),
    });
    expect((await incoming({ beneficiaryClabe: '012180000045678907', amount: '1.00' })).status).toBe(409);
    core.state.accounts.get(BODEGA_ACCOUNT)!.status = 'BLOCKED';
    expect((await incoming({ beneficiaryClabe: BODEGA_CLABE, amount: '1.00' })).status).toBe(409);
    expect(receiver.requests).toEqual([]);
    expect(core.state.transactions.size).toBe(0);
  });

  it('without an active MONEY_IN webhook the credit is booked and the event recorded, not delivered', async () => {
    for (const hook of core.state.webhooks.values()) hook.webhookStatus = 'INACTIVE';
    const answer = await incoming({ beneficiaryClabe: BODEGA_CLABE, amount: '5.00' });
    expect(answer.status).toBe(200);
    expect(receiver.requests).toEqual([]);
    expect(balance()).toBe(START_BALANCE + 500n);
    expect(core.state.events.map((e) => [e.type, e.delivered])).toEqual([['MONEY_IN', false]]);
  });
});
