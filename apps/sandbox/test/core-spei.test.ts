// Outbound SPEI transfers over real HTTP: money_out's body checks, IN_PROGRESS → LIQUIDATED on
// the clock or by control call, rejection (the money comes back), reversal (a refund
// transaction and a REFUND event), with the STATUS_UPDATE / REFUND events a real receiver gets
// and the balances in centavos.
import {
  zCoreTransaction,
  zCreateInternalTransactionResponse,
  zCreateMoneyOutResponse,
  zRefundEvent,
  zStatusUpdateEvent,
} from '@paykit/core-client/zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../src/index.ts';
import { renderTransaction } from '../src/products/core/transactions/render.ts';
import {
  ACME,
  ACME_ACCOUNT,
  at,
  BODEGA,
  bootCore,
  CLIENT,
  deliveriesAt,
  expectCoreError,
  PAYROLL_BANORTE,
  START_BALANCE,
  SUPPLIER_BBVA,
  UNKNOWN,
  type CoreHarness,
  transferBody,
} from './core-helpers.ts';
import { call, T0, type Receiver } from './helpers.ts';

let core: CoreHarness;
let receiver: Receiver;

/** A sandbox with a token from the real routes and STATUS_UPDATE, REFUND and MONEY_IN webhooks at a real receiver. */
async function start(options: SandboxOptions = {}): Promise<void> {
  core = await bootCore(options);
  receiver = await core.receiver();
  await core.subscribe(receiver, ['STATUS_UPDATE', 'REFUND', 'MONEY_IN']);
}
afterEach(() => core.close());

const moneyOut = (body: Record<string, unknown> = {}, path = 'money_out') =>
  call(`${core.sandbox.urls.core}/v1/transactions/${path}`, {
    method: 'POST',
    headers: core.bearer(),
    body: transferBody({
      client_id: CLIENT,
      source_instrument_id: ACME,
      destination_instrument_id: SUPPLIER_BBVA,
      amount: '1234.56',
      ...body,
    }),
  });
const balance = () => core.state.accounts.get(ACME_ACCOUNT)!.balanceCentavos;
const statusUpdates = () => deliveriesAt(receiver, '/STATUS_UPDATE', zStatusUpdateEvent).map((event) => event.body);
const refunds = () => deliveriesAt(receiver, '/REFUND', zRefundEvent);

describe('money_out to an external account (SPEI_DEBIT)', () => {
  it('debits at once, answers IN_PROGRESS, liquidates after speiSettleAfterSeconds with a STATUS_UPDATE each', async () => {
    await start();
    const response = await moneyOut({ client_reference: 'po-991' });
    expect(response.status).toBe(200);
    expect(zCreateMoneyOutResponse.safeParse(response.body).success).toBe(true);
    expect(zCoreTransaction.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({
      subCategory: 'SPEI_DEBIT',
      transactionStatus: 'IN_PROGRESS',
      amount: '1234.56',
      clientReference: 'po-991',
    });
    expect(balance()).toBe(START_BALANCE - 123_456n);

    await core.advance(9);
    expect(statusUpdates().map((u) => u.status)).toEqual(['IN_PROGRESS']);
    await core.advance(1);
    const { id, trackingId } = response.body;
    expect(statusUpdates()).toEqual([
      { id, tracking_key: trackingId, message_type: 'SPEI', status: 'IN_PROGRESS', update_at: T0 },
      { id, tracking_key: trackingId, message_type: 'SPEI', status: 'LIQUIDATED', update_at: at(10) },
    ]);
    expect(balance()).toBe(START_BALANCE - 123_456n);
    expect(receiver.requests.every((r) => (r.json as { msg_name: string }).msg_name === 'STATUS_UPDATE')).toBe(true);
  });

  it('with speiSettleAfterSeconds null only the control call settles; settling twice is a 409', async () => {
    await start({ settings: { core: { speiSettleAfterSeconds: null } } });
    const { body } = await moneyOut();
    await core.advance(86_400);
    expect(statusUpdates().map((u) => u.status)).toEqual(['IN_PROGRESS']);
    const control = core.control;
    expect(await control.triggerSpeiSettle({ params: { transactionId: body.id }, body: {} })).toMatchObject({
      status: 200,
      body: { status: 'LIQUIDATED' },
    });
    expect(statusUpdates().map((u) => u.status)).toEqual(['IN_PROGRESS', 'LIQUIDATED']);
    expect((await control.triggerSpeiSettle({ params: { transactionId: body.id }, body: {} })).status).toBe(409);
    expect((await control.triggerSpeiSettle({ params: { transactionId: UNKNOWN }, body: {} })).status).toBe(404);
  });

  it('settling now cancels the scheduled settlement (one LIQUIDATED only)', async () => {
    await start();
    const { body } = await moneyOut();
    await core.control.triggerSpeiSettle({ params: { transactionId: body.id }, body: {} });
    await core.advance(60);
    expect(statusUpdates().map((u) => u.status)).toEqual(['IN_PROGRESS', 'LIQUIDATED']);
  });
});

describe('control API: reject', () => {
  it.each(['REJECTED', 'CANCELLED', 'DECLINED'] as const)(
    '%s with a reason: STATUS_UPDATE carries it, the source gets its money back',
    async (status) => {
      await start();
      const { body } = await moneyOut({ amount: '500.00' });
      expect(balance()).toBe(START_BALANCE - 50_000n);
      await core.advance(3);
      const answer = await core.control.triggerSpeiReject({
        params: { transactionId: body.id },
        body: { status, reason: 'INVALID_ACCOUNT', reasonDescription: 'La cuenta no existe' },
      });
      expect(answer).toMatchObject({ status: 200, body: { status } });
      expect(balance()).toBe(START_BALANCE);
      await core.advance(60);
      expect(statusUpdates()).toEqual([
        { id: body.id, tracking_key: body.trackingId, message_type: 'SPEI', status: 'IN_PROGRESS', update_at: T0 },
        {
          id: body.id,
          tracking_key: body.trackingId,
          message_type: 'SPEI',
          reason: 'INVALID_ACCOUNT',
          reason_description: 'La cuenta no existe',
          status,
          update_at: at(3),
        },
      ]);
      const tx = core.state.transactions.get(body.id)!;
      expect(zCoreTransaction.safeParse(renderTransaction(core.sandbox.products.core, tx)).success).toBe(true);
      expect(renderTransaction(core.sandbox.products.core, tx).transactionStatus).toBe(status);
    },
  );

  it('only an IN_PROGRESS SPEI transfer: 409 once liquidated or rejected, 409 for an internal transfer, 404 unknown or a penny validation', async () => {
    await start();
    const control = core.control;
    const reject = (transactionId: string) =>
      control.triggerSpeiReject({
        params: { transactionId },
        body: { status: 'REJECTED', reason: 'R', reasonDescription: 'D' },
      });
    const liquidated = await moneyOut();
    await core.advance(10);
    expect((await reject(liquidated.body.id)).status).toBe(409);
    const rejected = await moneyOut();
    expect((await reject(rejected.body.id)).status).toBe(200);
    expect((await reject(rejected.body.id)).status).toBe(409);
    expect((await control.triggerSpeiSettle({ params: { transactionId: rejected.body.id }, body: {} })).status).toBe(
      409,
    );
    const internal = await moneyOut({ destination_instrument_id: BODEGA });
    expect(internal.body.subCategory).toBe('INT_DEBIT');
    const notSpei = await reject(internal.body.id);
    expect(notSpei.status).toBe(409);
    expect(notSpei.body).toMatchObject({ error: expect.stringMatching(/INT_DEBIT/) });
    expect((await reject(UNKNOWN)).status).toBe(404);
    const penny = await call(`${core.sandbox.urls.core}/v1/transactions/penny_validation`, {
      method: 'POST',
      headers: core.bearer(),
      body: { client_id: CLIENT, source_instrument_id: ACME, destination_instrument_id: SUPPLIER_BBVA },
    });
    expect((await reject(penny.body.id)).status).toBe(404);
  });
});

describe('control API: reverse', () => {
  it('a LIQUIDATED SPEI_DEBIT: refund transaction, original REFUNDED, source credited, REFUND then STATUS_UPDATE REFUNDED', async () => {
    await start();
    const { body } = await moneyOut({
      destination_instrument_id: PAYROLL_BANORTE,
      amount: '750.25',
      description: 'Nomina mayo',
      external_reference: '502',
    });
    await core.advance(10);
    expect(balance()).toBe(START_BALANCE - 75_025n);
    await core.advance(50);
    const answer = await core.control.triggerSpeiReverse({ params: { transactionId: body.id }, body: {} });
    expect(answer.status).toBe(200);
    const refundId = (answer.body as { refundTransactionId: string }).refundTransactionId;
    expect(balance()).toBe(START_BALANCE);

    expect(receiver.requests.map((r) => r.url)).toEqual([
      '/STATUS_UPDATE',
      '/STATUS_UPDATE',
      '/REFUND',
      '/STATUS_UPDATE',
    ]);
    expect(statusUpdates().map((u) => u.status)).toEqual(['IN_PROGRESS', 'LIQUIDATED', 'REFUNDED']);
    expect(statusUpdates()[2]).toMatchObject({ reason: 'REVERSED', update_at: at(60) });

    const state = core.state;
    const refund = state.transactions.get(refundId)!;
    const [event] = refunds();
    expect(event!.msg_name).toBe('REFUND');
    expect(event!.body).toEqual({
      id: refundId,
      tracking_key: refund.trackingId,
      beneficiary_account: '646180000000000012',
      beneficiary_name: 'ACME PAGOS SA DE CV',
      beneficiary_rfc: 'APA010101AB1',
      payer_account: '072180000012345672',
      payer_name: 'MARIA GONZALEZ RUIZ',
      payer_rfc: 'GORM900202GH5',
      payer_institution: '40072',
      amount: '750.25',
      transaction_date: '2026-05-07 12:01:00',
      category: 'CREDIT_TRANS',
      sub_category: 'SPEI_REFUNDED_CREDIT',
      payment_concept: 'Nomina mayo',
      numeric_reference: '502',
      original_transaction_id: body.id,
      original_transaction_tracking_id: body.trackingId,
      original_transaction_amount: '750.25',
    });
    expect(event!.body.amount).toBe(event!.body.original_transaction_amount);
    expect(refund.trackingId).toMatch(/^RF20260507\d{10}$/);

    const renderedRefund = renderTransaction(core.sandbox.products.core, refund);
    expect(zCoreTransaction.safeParse(renderedRefund).success).toBe(true);
    expect(renderedRefund).toMatchObject({
      originalTransactionId: body.id,
      subCategory: 'SPEI_REFUNDED_CREDIT',
      category: 'CREDIT_TRANS',
      transactionStatus: 'LIQUIDATED',
      amount: '750.25',
    });
    const renderedOriginal = renderTransaction(core.sandbox.products.core, state.transactions.get(body.id)!);
    expect(zCoreTransaction.safeParse(renderedOriginal).success).toBe(true);
    expect(renderedOriginal).toMatchObject({ transactionStatus: 'REFUNDED', refundTransactionId: refundId });
  });

  it('409 for a transfer still IN_PROGRESS, already reversed, rejected, or internal; 404 unknown', async () => {
    await start();
    const control = core.control;
    const reverse = (transactionId: string) => control.triggerSpeiReverse({ params: { transactionId }, body: {} });
    const inProgress = await moneyOut();
    expect((await reverse(inProgress.body.id)).status).toBe(409);
    await core.advance(10);
    expect((await reverse(inProgress.body.id)).status).toBe(200);
    expect((await reverse(inProgress.body.id)).status).toBe(409);
    const internal = await moneyOut({ destination_instrument_id: BODEGA });
    await core.advance(1);
    expect(core.state.transactions.get(internal.body.id)!.status).toBe('LIQUIDATED');
    expect((await reverse(internal.body.id)).status).toBe(409);
    expect((await reverse(UNKNOWN)).status).toBe(404);
    expect(refunds()).toHaveLength(1);
  });
});

describe('money_out body (the documented nested body) and its errors', () => {
  it.each([
    ['missing amount', { amount: undefined }, 400, 'MISSING_REQUIRED_FIELDS', /amount/],
    [
      'missing destination',
      { destination_instrument_id: undefined },
      400,
      'MISSING_REQUIRED_FIELDS',
      /destination_instrument_id/,
    ],
    ['amount as a number', { amount: 150 }, 400, 'DATA_ERROR', /amount/],
    ['amount with one decimal', { amount: '1.5' }, 400, 'DATA_ERROR', /amount/],
    ['zero amount', { amount: '0.00' }, 400, 'DATA_ERROR', /Amount must be higher than 0/],
    ['unsupported currency', { currency: 'USD' }, 400, 'DATA_ERROR', /currency/],
    ['external reference of 8 digits', { external_reference: '12345678' }, 400, 'DATA_ERROR', /external_reference/],
    ['malformed source uuid', { source_instrument_id: 'x' }, 400, 'DATA_ERROR', /source_instrument_id/],
    ['client_id of another client', { client_id: UNKNOWN }, 400, 'DATA_ERROR', /client_id/],
    ['insufficient funds', { amount: '1000000.01' }, 400, 'FAILED_PRECONDITION', /funds/],
    ['unknown destination', { destination_instrument_id: UNKNOWN }, 404, 'RESOURCE_NOT_FOUND', /Destination/],
    ['unknown source', { source_instrument_id: UNKNOWN }, 404, 'RESOURCE_NOT_FOUND', /Source/],
  ])('%s → %i %s', async (_name, change, status, reason, message) => {
    await start();
    expect(expectCoreError(await moneyOut(change), status, reason)).toMatch(message);
    expect(balance()).toBe(START_BALANCE);
    expect(core.state.transactions.size).toBe(0);
  });

  it('no body, a non-object body, no bearer token; the same rules for internal_transaction', async () => {
    await start();
    const url = `${core.sandbox.urls.core}/v1/transactions/money_out`;
    expectCoreError(await call(url, { method: 'POST', headers: core.bearer() }), 400, 'MISSING_REQUIRED_FIELDS');
    expectCoreError(await call(url, { method: 'POST', headers: core.bearer(), body: 'text' }), 400, 'DATA_ERROR');
    expectCoreError(await call(url, { method: 'POST', body: {} }), 401, 'UNAUTHORIZED');
    expectCoreError(await moneyOut({ amount: 1 }, 'internal_transaction'), 400, 'DATA_ERROR');
    const ok = await moneyOut({ extra_field: 'kept out' }, 'internal_transaction');
    expect(ok.status).toBe(200);
    expect(zCreateInternalTransactionResponse.safeParse(ok.body).success).toBe(true);
    expect(zCoreTransaction.safeParse(ok.body).success).toBe(true);
    expect(ok.body.subCategory).toBe('SPEI_DEBIT');
  });
});
