// money_out as the platform documents it, over real HTTP: the nested body (a flat one is refused
// before any money moves), the Idempotency-Key (first answer replayed, money moved once, 409 for
// another body or a request in progress, 24 h on the sandbox clock), internal_transaction without
// key semantics, and a late 422 refund that never drives a balance negative.
// Documentation: https://docs.monato.com/products/fincore/guides/idempotency and
// https://docs.monato.com/products/fincore/fincore-openapi/other/createmoneyouttransaction
import { zCoreError, zCreateMoneyOutResponse, zRefundEvent } from '@paykit/core-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, moneyOutSlot } from '../src/products/core/transactions/idempotency.ts';
import {
  ACME,
  ACME_ACCOUNT,
  BODEGA_ACCOUNT,
  bootCore,
  CLIENT,
  deliveriesAt,
  expectCoreError,
  START_BALANCE,
  SUPPLIER_BBVA,
  tokenFor,
  transferBody,
  UNKNOWN,
  type CoreHarness,
} from './core-helpers.ts';
import { call } from './helpers.ts';

const KEY = '66c0b04f-97d6-592d-8396-199819064afa';
/** The documented request body (idempotency guide), with the seed's client and instruments. */
const DOCUMENTED = {
  client_id: CLIENT,
  source_instrument_id: ACME,
  destination_instrument_id: SUPPLIER_BBVA,
  transaction_request: {
    external_reference: '7654329',
    description: 'lorem ipsum dolor sit amet',
    amount: '1.95',
    currency: 'MXN',
  },
};

let core: CoreHarness;
beforeEach(async () => {
  core = await bootCore();
});
afterEach(() => core.close());

const post = (body: unknown, headers: Record<string, string> = {}, path = 'money_out', token?: string) =>
  call(`${core.sandbox.urls.core}/v1/transactions/${path}`, {
    method: 'POST',
    headers: { ...core.bearer(token), ...headers },
    body,
  });
const balance = () => core.state.accounts.get(ACME_ACCOUNT)!.balanceCentavos;
const transfers = () =>
  [...core.state.transactions.values()].filter((tx) => tx.kind === 'MONEY_OUT' || tx.kind === 'INTERNAL_TRANSACTION');

describe('the documented nested body', () => {
  it('is accepted: 200 with the camelCase transaction, DEBIT_TRANS / SPEI_DEBIT, the amount debited once', async () => {
    const answer = await post(DOCUMENTED);
    expect(answer.status).toBe(200);
    expect(zCreateMoneyOutResponse.safeParse(answer.body).success).toBe(true);
    expect(answer.body).toMatchObject({
      amount: '1.95',
      currency: 'MXN',
      category: 'DEBIT_TRANS',
      subCategory: 'SPEI_DEBIT',
      externalReference: '7654329',
      description: 'lorem ipsum dolor sit amet',
      clientId: CLIENT,
    });
    expect(balance()).toBe(START_BALANCE - 195n);
  });

  it('a flat body (the money at the top level) is 400 MISSING_REQUIRED_FIELDS naming transaction_request, and moves nothing', async () => {
    for (const path of ['money_out', 'internal_transaction']) {
      const flat = {
        client_id: CLIENT,
        source_instrument_id: ACME,
        destination_instrument_id: SUPPLIER_BBVA,
        amount: '1.95',
        currency: 'MXN',
        description: 'flat',
      };
      const detail = expectCoreError(await post(flat, {}, path), 400, 'MISSING_REQUIRED_FIELDS');
      expect(detail).toContain('transaction_request');
      expect(detail).toContain('amount, currency, description belong inside transaction_request');
    }
    expect(balance()).toBe(START_BALANCE);
    expect(transfers()).toEqual([]);
  });

  it('errors are gRPC-style: code 9 for FAILED_PRECONDITION, message "API Error", the reason in error_detail', async () => {
    const answer = await post(
      transferBody({
        client_id: CLIENT,
        source_instrument_id: ACME,
        destination_instrument_id: SUPPLIER_BBVA,
        amount: '100000000.00',
      }),
    );
    expect(answer.status).toBe(400);
    expect(zCoreError.parse(answer.body)).toEqual({
      code: 9,
      message: 'API Error',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'FAILED_PRECONDITION',
          domain: 'CORE',
          metadata: { error_detail: 'Insufficient funds in the source account.', http_code: '400' },
        },
      ],
    });
  });
});

describe('money_out Idempotency-Key', () => {
  it('a retry of a request whose answer was lost gets the first answer again: the money moves once', async () => {
    const first = await post(DOCUMENTED, { 'idempotency-key': KEY });
    const again = await post(
      {
        ...DOCUMENTED,
        transaction_request: {
          currency: 'MXN',
          amount: '1.95',
          description: 'lorem ipsum dolor sit amet',
          external_reference: '7654329',
        },
      },
      { 'idempotency-key': KEY },
    );
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(transfers()).toHaveLength(1);
    expect(balance()).toBe(START_BALANCE - 195n);
  });

  it('the same key with another body is 409; a near-simultaneous duplicate is 409 operation_in_progress', async () => {
    expect((await post(DOCUMENTED, { 'idempotency-key': KEY })).status).toBe(200);
    const other = { ...DOCUMENTED, transaction_request: { ...DOCUMENTED.transaction_request, amount: '2.00' } };
    expect(expectCoreError(await post(other, { 'idempotency-key': KEY }), 409, 'UNIQUE_VIOLATION')).toMatch(
      /payload mismatch/,
    );

    // A first request still being processed: its claim taken for this body, no answer yet.
    const second = '0b7a3c5e-1f2d-5a4b-8c9d-0e1f2a3b4c5d';
    core.state.idempotency.set(moneyOutSlot(CLIENT, second), {
      key: second,
      clientId: CLIENT,
      fingerprint: canonicalJson(other),
      state: 'in-progress',
      expiresAtMs: Number.MAX_SAFE_INTEGER,
    });
    expect(expectCoreError(await post(other, { 'idempotency-key': second }), 409, 'FAILED_PRECONDITION')).toMatch(
      /^operation_in_progress/,
    );
    expect(transfers()).toHaveLength(1);
  });

  it('the first error is replayed too (cached), even once the cause is gone', async () => {
    const missing = { ...DOCUMENTED, destination_instrument_id: UNKNOWN };
    expectCoreError(await post(missing, { 'idempotency-key': KEY }), 404, 'RESOURCE_NOT_FOUND');
    expectCoreError(await post(missing, { 'idempotency-key': KEY }), 404, 'RESOURCE_NOT_FOUND');
    expect(transfers()).toEqual([]);
  });

  it('a key that is not a UUID is 400', async () => {
    expect(expectCoreError(await post(DOCUMENTED, { 'idempotency-key': 'not-a-uuid' }), 400, 'DATA_ERROR')).toMatch(
      /Idempotency-Key/,
    );
  });

  it('keys live 24 h from the first request on the sandbox clock, then the same key is a new request', async () => {
    expect((await post(DOCUMENTED, { 'idempotency-key': KEY })).status).toBe(200);
    await core.advance(24 * 3600 - 1);
    const token = await tokenFor(core.sandbox);
    const within = await post(DOCUMENTED, { 'idempotency-key': KEY }, 'money_out', token);
    expect(within.status).toBe(200);
    expect(transfers()).toHaveLength(1);
    await core.advance(1);
    const after = await post(DOCUMENTED, { 'idempotency-key': KEY }, 'money_out', token);
    expect(after.status).toBe(200);
    expect((after.body as { id: string }).id).not.toBe((within.body as { id: string }).id);
    expect(transfers()).toHaveLength(2);
  });

  it('internal_transaction honours no key: the same request twice moves the money twice', async () => {
    const body = transferBody({
      client_id: CLIENT,
      source_instrument_id: ACME,
      destination_instrument_id: SUPPLIER_BBVA,
      amount: '1.00',
    });
    expect((await post(body, { 'idempotency-key': KEY }, 'internal_transaction')).status).toBe(200);
    expect((await post(body, { 'idempotency-key': KEY }, 'internal_transaction')).status).toBe(200);
    expect(transfers()).toHaveLength(2);
  });
});

describe('balances never go negative', () => {
  it('a 422 refund for a credit whose money was spent meanwhile is not made: the credit stays, the reason says why', async () => {
    const receiver = await core.receiver();
    await core.subscribe(receiver, ['MONEY_IN', 'REFUND']);
    const bodega = () => core.state.accounts.get(BODEGA_ACCOUNT)!;
    receiver.answer = (request) => {
      if (request.url !== '/MONEY_IN') return { status: 200, body: {} };
      // While the delivery was in flight the account was emptied down to 10.00 MXN.
      bodega().balanceCentavos = 1000n;
      return { status: 422, body: { refundReason: 'Cuenta no reconocida' } };
    };
    const answer = await core.control.triggerIncomingSpei({
      body: { beneficiaryClabe: '646180000000000025', amount: '1500.00' },
    });
    expect(answer.status).toBe(200);
    const { transactionId } = answer.body as { transactionId: string };
    await expect
      .poll(() => core.state.transactions.get(transactionId)?.reason?.code)
      .toBe('REFUND_NOT_MADE_INSUFFICIENT_FUNDS');
    expect(bodega().balanceCentavos).toBe(1000n);
    expect(core.state.transactions.get(transactionId)!.status).toBe('LIQUIDATED');
    expect(deliveriesAt(receiver, '/REFUND', zRefundEvent)).toEqual([]);
  });
});
