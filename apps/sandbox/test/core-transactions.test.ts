// Core transactions over real HTTP: penny validation (its shape, every 400/404 row of the
// reference, Idempotency-Key), money_out / internal_transaction routing (INT_DEBIT with an
// INT_CREDIT MONEY_IN for another owner, none for a self-transfer), and the REPORT trigger.
import {
  zCoreTransaction,
  zCreateInternalTransactionResponse,
  zCreateMoneyOutResponse,
  zCreatePennyValidationBody,
  zCreatePennyValidationResponse,
  zMoneyInEvent,
  zRefundEvent,
  zReportEvent,
  zStatusUpdateEvent,
  zCepEvent,
} from '@paykit/core-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { canonicalJson } from '../src/products/core/transactions/idempotency.ts';
import { OWNERS } from '../src/index.ts';
import {
  ACME,
  ACME_ACCOUNT,
  addOtherClient,
  BODEGA,
  BODEGA_ACCOUNT,
  bootCore,
  CLIENT,
  deliveriesAt,
  expectCoreError,
  JUAN,
  OTHER_CLIENT,
  OTHER_KEY,
  OTHER_SECRET,
  PLATFORM_BANK,
  SUPPLIER_BBVA,
  tokenFor,
  UNKNOWN,
  type CoreHarness,
  transferBody,
} from './core-helpers.ts';
import { call, T0, type Receiver } from './helpers.ts';

const OTHER_OWNER = '33333333-3333-4333-8333-000000000099';
const OTHER_INSTRUMENT = '66666666-6666-4666-8666-000000000106';
const ACME_SECOND = '66666666-6666-4666-8666-000000000096';

const SCHEMAS = {
  MONEY_IN: zMoneyInEvent,
  STATUS_UPDATE: zStatusUpdateEvent,
  CEP: zCepEvent,
  REFUND: zRefundEvent,
  REPORT: zReportEvent,
} as const;
type EventType = keyof typeof SCHEMAS;
const EVENT_TYPES = Object.keys(SCHEMAS) as EventType[];

let core: CoreHarness;
let receiver: Receiver;

/** The events of one type a receiver got, each checked for the registered bearer token and against its generated schema. */
function received<T extends EventType>(from: Receiver, type: T): z.output<(typeof SCHEMAS)[T]>[] {
  return deliveriesAt(from, `/${type}`, SCHEMAS[type] as z.ZodType) as z.output<(typeof SCHEMAS)[T]>[];
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`${core.sandbox.urls.core}/v1/transactions/${path}`, {
    method: 'POST',
    headers: { ...core.bearer(), ...headers },
    body,
  });
const penny = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  post(
    'penny_validation',
    { client_id: CLIENT, source_instrument_id: ACME, destination_instrument_id: SUPPLIER_BBVA, ...body },
    headers,
  );
const balance = (accountId: string) => core.state.accounts.get(accountId)!.balanceCentavos;
const transactions = (kind: string) => [...core.state.transactions.values()].filter((t) => t.kind === kind);

beforeEach(async () => {
  core = await bootCore();
  receiver = await core.receiver();
  await core.subscribe(receiver, EVENT_TYPES);
});
afterEach(() => core.close());

describe('POST /v1/transactions/penny_validation', () => {
  it('answers 200 with the full core transaction, INITIALIZED, 0.01 MXN, defaults applied', async () => {
    const response = await penny();
    expect(response.status).toBe(200);
    expect(zCreatePennyValidationResponse.safeParse(response.body).success).toBe(true);
    const { id, trackingId, metadata } = response.body;
    expect(trackingId).toMatch(/^PK20260507\d{10}$/);
    expect(response.body).toEqual({
      id,
      bankId: PLATFORM_BANK,
      clientId: CLIENT,
      externalReference: '0000001',
      trackingId,
      description: 'Penny Validation',
      amount: '0.01',
      currency: 'MXN',
      category: 'DEBIT_TRANS',
      subCategory: 'SPEI_DEBIT',
      transactionStatus: 'INITIALIZED',
      audit: { createdAt: T0, updatedAt: T0, deletedAt: null, blockedAt: null },
      sourceInstrument: {
        id: ACME,
        bankId: PLATFORM_BANK,
        clientId: CLIENT,
        ownerId: OWNERS.acme,
        instrumentAlias: 'ACME operating account',
        instrumentStatus: 'ACTIVE',
        instrumentType: 'SENDER_RECEIVER',
        instrumentDetail: {
          accountNumber: '00000000001',
          clabeNumber: '646180000000000012',
          holderName: 'ACME PAGOS SA DE CV',
        },
        rfc: 'APA010101AB1',
      },
      destinationInstrument: {
        id: SUPPLIER_BBVA,
        bankId: '44444444-4444-4444-8444-000000000012',
        clientId: CLIENT,
        ownerId: OWNERS.acme,
        instrumentAlias: 'Supplier at BBVA (external)',
        instrumentStatus: 'ACTIVE',
        instrumentType: 'RECEIVER',
        instrumentDetail: {
          accountNumber: '00004567890',
          clabeNumber: '012180000045678907',
          holderName: 'PROVEEDORA DEL BAJIO SA DE CV',
        },
        rfc: 'PBA030303EF4',
      },
      metadata: {
        dataCep: {
          validationId: metadata.dataCep.validationId,
          beneficiaryName: 'PROVEEDORA DEL BAJIO SA DE CV',
          beneficiaryRfc: 'PBA030303EF4',
          status: 'INITIALIZED',
          createdAt: T0,
          processedAt: null,
        },
      },
    });
    expect(metadata.dataCep.validationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(metadata.dataCep.validationId).not.toBe(id);
    // The penny left the source account.
    expect(balance(ACME_ACCOUNT)).toBe(100_000_000n - 1n);
    // INITIALIZED sends no event.
    await core.sandbox.runtime.deliveries.idle();
    expect(receiver.requests).toEqual([]);
  });

  it('routes like money_out: INT_DEBIT to a platform instrument, with the description and reference sent', async () => {
    const response = await penny({
      destination_instrument_id: BODEGA,
      description: 'Validación Bodega',
      external_reference: '42',
    });
    expect(response.status).toBe(200);
    expect(zCreatePennyValidationResponse.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({
      subCategory: 'INT_DEBIT',
      description: 'Validación Bodega',
      externalReference: '42',
      amount: '0.01',
    });
    expect(response.body.metadata.dataCep).toMatchObject({
      beneficiaryName: 'BODEGA NORTE SA DE CV',
      beneficiaryRfc: 'BNO020202CD2',
    });
    expect(balance(BODEGA_ACCOUNT)).toBe(100_000_000n + 1n);
  });

  it('gives distinct ids and tracking keys to successive validations', async () => {
    const a = await penny();
    const b = await penny();
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.trackingId).not.toBe(b.body.trackingId);
    expect(transactions('PENNY_VALIDATION')).toHaveLength(2);
  });

  describe('400 rows', () => {
    it.each([
      [
        'missing source instrument',
        { source_instrument_id: undefined },
        'MISSING_REQUIRED_FIELDS',
        /source_instrument_id/,
      ],
      [
        'missing destination instrument',
        { destination_instrument_id: undefined },
        'MISSING_REQUIRED_FIELDS',
        /destination_instrument_id/,
      ],
      [
        'null destination instrument',
        { destination_instrument_id: null },
        'MISSING_REQUIRED_FIELDS',
        /destination_instrument_id/,
      ],
      ['missing client_id', { client_id: undefined }, 'MISSING_REQUIRED_FIELDS', /client_id/],
      ['malformed source uuid', { source_instrument_id: 'not-a-uuid' }, 'DATA_ERROR', /source_instrument_id/],
      ['malformed client uuid', { client_id: '1234' }, 'DATA_ERROR', /client_id/],
      ['external reference of 8 digits', { external_reference: '12345678' }, 'DATA_ERROR', /external_reference/],
      ['non-numeric external reference', { external_reference: '12A4' }, 'DATA_ERROR', /external_reference/],
      ['description not a string', { description: 42 }, 'DATA_ERROR', /description/],
      ['blank description', { description: '  ' }, 'DATA_ERROR', /description/],
      ['description longer than 40', { description: 'x'.repeat(41) }, 'DATA_ERROR', /description/],
      ['unsupported currency', { currency: 'USD' }, 'DATA_ERROR', /currency/i],
      ['amount other than 0.01', { amount: '1.00' }, 'DATA_ERROR', /0\.01/],
      ['client_id of another client', { client_id: '11111111-1111-4111-8111-999999999999' }, 'DATA_ERROR', /client_id/],
    ])('%s → 400 %s', async (_name, change, reason, message) => {
      const body = {
        client_id: CLIENT,
        source_instrument_id: ACME,
        destination_instrument_id: SUPPLIER_BBVA,
        ...change,
      };
      expect(expectCoreError(await post('penny_validation', body), 400, reason)).toMatch(message);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(0);
    });

    it('no body → 400 MISSING_REQUIRED_FIELDS; malformed JSON → 400 DATA_ERROR', async () => {
      const url = `${core.sandbox.urls.core}/v1/transactions/penny_validation`;
      expectCoreError(await call(url, { method: 'POST', headers: core.bearer() }), 400, 'MISSING_REQUIRED_FIELDS');
      expectCoreError(
        await call(url, {
          method: 'POST',
          headers: { ...core.bearer(), 'content-type': 'application/json' },
          raw: '{"client_id":',
        }),
        400,
        'DATA_ERROR',
      );
      expectCoreError(await call(url, { method: 'POST', headers: core.bearer(), body: [1, 2] }), 400, 'DATA_ERROR');
    });

    it('a malformed Idempotency-Key → 400 DATA_ERROR', async () => {
      expect(expectCoreError(await penny({}, { 'idempotency-key': 'abc' }), 400, 'DATA_ERROR')).toMatch(
        /Idempotency-Key/,
      );
    });

    it('client or rail state: a RECEIVER source, a BLOCKED source instrument, a BLOCKED or CANCELLED account, a BLOCKED destination → 400 FAILED_PRECONDITION', async () => {
      const state = core.state;
      expect(expectCoreError(await penny({ source_instrument_id: JUAN }), 400, 'FAILED_PRECONDITION')).toMatch(
        /RECEIVER/,
      );
      state.instruments.get(ACME)!.status = 'BLOCKED';
      expectCoreError(await penny(), 400, 'FAILED_PRECONDITION');
      state.instruments.get(ACME)!.status = 'ACTIVE';
      state.accounts.get(ACME_ACCOUNT)!.status = 'BLOCKED';
      expect(expectCoreError(await penny(), 400, 'FAILED_PRECONDITION')).toMatch(/BLOCKED/);
      state.accounts.get(ACME_ACCOUNT)!.status = 'CANCELLED';
      expect(expectCoreError(await penny(), 400, 'FAILED_PRECONDITION')).toMatch(/CANCELLED/);
      state.accounts.get(ACME_ACCOUNT)!.status = 'ACTIVE';
      state.instruments.get(SUPPLIER_BBVA)!.status = 'BLOCKED';
      expectCoreError(await penny(), 400, 'FAILED_PRECONDITION');
      state.accounts.get(ACME_ACCOUNT)!.balanceCentavos = 0n;
      state.instruments.get(SUPPLIER_BBVA)!.status = 'ACTIVE';
      expect(expectCoreError(await penny(), 400, 'FAILED_PRECONDITION')).toMatch(/funds/);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(0);
    });
  });

  describe('404 rows', () => {
    it('unknown source or destination, another client’s source, a DELETED destination, a source without its account → 404 RESOURCE_NOT_FOUND', async () => {
      await addOtherClientWithAccount();
      expect(expectCoreError(await penny({ source_instrument_id: UNKNOWN }), 404, 'RESOURCE_NOT_FOUND')).toMatch(
        /Source instrument/,
      );
      expect(expectCoreError(await penny({ destination_instrument_id: UNKNOWN }), 404, 'RESOURCE_NOT_FOUND')).toMatch(
        /Destination instrument/,
      );
      expect(
        expectCoreError(await penny({ source_instrument_id: OTHER_INSTRUMENT }), 404, 'RESOURCE_NOT_FOUND'),
      ).toMatch(/Source instrument/);
      const state = core.state;
      state.instruments.get(SUPPLIER_BBVA)!.status = 'DELETED';
      expectCoreError(await penny(), 404, 'RESOURCE_NOT_FOUND');
      state.instruments.get(SUPPLIER_BBVA)!.status = 'ACTIVE';
      state.accounts.delete(ACME_ACCOUNT);
      expect(expectCoreError(await penny(), 404, 'RESOURCE_NOT_FOUND')).toMatch(/account/);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(0);
    });
  });

  it('401 without a bearer token, or with an expired one', async () => {
    const url = `${core.sandbox.urls.core}/v1/transactions/penny_validation`;
    const body = { client_id: CLIENT, source_instrument_id: ACME, destination_instrument_id: SUPPLIER_BBVA };
    expectCoreError(await call(url, { method: 'POST', body }), 401, 'UNAUTHORIZED');
    await core.advance(24 * 3600);
    expectCoreError(await penny(), 401, 'UNAUTHORIZED');
  });

  describe('Idempotency-Key', () => {
    const KEY = '9b2e6c1a-4d3f-5a7b-8c9d-0e1f2a3b4c5d';

    it('same key, same payload (any key order, defaults spelled out) → the same transaction, no new one, no new events', async () => {
      const first = await penny({}, { 'idempotency-key': KEY });
      expect(first.status).toBe(200);
      const again = await post(
        'penny_validation',
        {
          external_reference: '0000001',
          description: 'Penny Validation',
          destination_instrument_id: SUPPLIER_BBVA,
          source_instrument_id: ACME,
          client_id: CLIENT,
        },
        { 'idempotency-key': KEY.toUpperCase() },
      );
      expect(again.status).toBe(200);
      expect(zCreatePennyValidationResponse.safeParse(again.body).success).toBe(true);
      expect(again.body).toEqual(first.body);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(1);
      expect(balance(ACME_ACCOUNT)).toBe(100_000_000n - 1n);
      await core.advance(2);
      expect(received(receiver, 'CEP')).toHaveLength(1);
    });

    it('same key, another payload → 409 UNIQUE_VIOLATION “reused with a different payload”', async () => {
      expect((await penny({}, { 'idempotency-key': KEY })).status).toBe(200);
      const conflict = await penny({ destination_instrument_id: BODEGA }, { 'idempotency-key': KEY });
      expect(expectCoreError(conflict, 409, 'UNIQUE_VIOLATION')).toMatch(/reused with a different payload/);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(1);
    });

    it('a key whose first request is still in progress → 409 “still in progress”', async () => {
      const body = { client_id: CLIENT, source_instrument_id: ACME, destination_instrument_id: SUPPLIER_BBVA };
      const fingerprint = canonicalJson(zCreatePennyValidationBody.parse(body));
      core.state.idempotency.set(`${CLIENT}:${KEY}`, { key: KEY, clientId: CLIENT, fingerprint, state: 'in-progress' });
      expect(expectCoreError(await penny({}, { 'idempotency-key': KEY }), 409, 'UNIQUE_VIOLATION')).toMatch(
        /still in progress/,
      );
      expect(transactions('PENNY_VALIDATION')).toHaveLength(0);
    });

    it('concurrent requests with one key create exactly one transaction', async () => {
      const answers = await Promise.all([
        penny({}, { 'idempotency-key': KEY }),
        penny({}, { 'idempotency-key': KEY }),
        penny({}, { 'idempotency-key': KEY }),
      ]);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(new Set(ok.map((a) => a.body.id)).size).toBe(1);
      for (const conflict of answers.filter((a) => a.status !== 200))
        expect(expectCoreError(conflict, 409, 'UNIQUE_VIOLATION')).toMatch(/still in progress/);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(1);
    });

    it('a request that failed does not keep its key: the corrected request goes through', async () => {
      expectCoreError(
        await penny({ destination_instrument_id: UNKNOWN }, { 'idempotency-key': KEY }),
        404,
        'RESOURCE_NOT_FOUND',
      );
      const fixed = await penny({}, { 'idempotency-key': KEY });
      expect(fixed.status).toBe(200);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(1);
    });

    it('keys are per client: another client with the same key gets its own transaction', async () => {
      await addOtherClientWithAccount();
      const otherToken = await tokenFor(core.sandbox, OTHER_CLIENT, OTHER_KEY, OTHER_SECRET);
      expect((await penny({}, { 'idempotency-key': KEY })).status).toBe(200);
      const other = await call(`${core.sandbox.urls.core}/v1/transactions/penny_validation`, {
        method: 'POST',
        headers: { authorization: `Bearer ${otherToken}`, 'idempotency-key': KEY },
        body: { client_id: OTHER_CLIENT, source_instrument_id: OTHER_INSTRUMENT, destination_instrument_id: BODEGA },
      });
      expect(other.status).toBe(200);
      expect(other.body.clientId).toBe(OTHER_CLIENT);
      expect(transactions('PENNY_VALIDATION')).toHaveLength(2);
    });
  });
});

/** The second client with a platform account and a SENDER_RECEIVER instrument. */
const addOtherClientWithAccount = () =>
  addOtherClient(core.sandbox, {
    accounts: [
      {
        id: 'acc-other-1',
        clientId: OTHER_CLIENT,
        ownerId: OTHER_OWNER,
        platform: true,
        status: 'ACTIVE',
        balanceCentavos: '5000',
      },
    ],
    instruments: [
      {
        id: OTHER_INSTRUMENT,
        clientId: OTHER_CLIENT,
        ownerId: OTHER_OWNER,
        accountId: 'acc-other-1',
        bankId: PLATFORM_BANK,
        alias: 'Otra operating',
        type: 'SENDER_RECEIVER',
        status: 'ACTIVE',
        clabe: '646180000000000106',
        holderName: 'OTRA EMPRESA SA',
        rfc: 'OEM050505AA1',
      },
    ],
  });

describe('money_out and internal_transaction routing', () => {
  const transfer = (
    path: 'money_out' | 'internal_transaction',
    destination: string,
    amount = '250.00',
    extra: Record<string, unknown> = {},
  ) =>
    post(
      path,
      transferBody({
        client_id: CLIENT,
        source_instrument_id: ACME,
        destination_instrument_id: destination,
        amount,
        ...extra,
      }),
    );

  it('money_out to a platform account of another owner: INT_DEBIT, settled internally, MONEY_IN INT_CREDIT for the receiving owner', async () => {
    const response = await transfer('money_out', BODEGA, '250.00', {
      description: 'Pago factura 17',
      external_reference: '17',
      client_reference: 'inv-17',
    });
    expect(response.status).toBe(200);
    expect(zCreateMoneyOutResponse.safeParse(response.body).success).toBe(true);
    expect(zCoreTransaction.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({
      subCategory: 'INT_DEBIT',
      category: 'DEBIT_TRANS',
      transactionStatus: 'IN_PROGRESS',
      amount: '250.00',
      currency: 'MXN',
      description: 'Pago factura 17',
      externalReference: '17',
      clientReference: 'inv-17',
      metadata: { dataCep: {} },
    });
    expect(balance(ACME_ACCOUNT)).toBe(100_000_000n - 25_000n);
    expect(balance(BODEGA_ACCOUNT)).toBe(100_000_000n);

    // internalSettleAfterSeconds is 0: it settles at the instant it was booked, once the clock moves.
    await core.advance(1);
    expect(balance(BODEGA_ACCOUNT)).toBe(100_000_000n + 25_000n);
    expect(receiver.requests.map((r) => r.url)).toEqual(['/STATUS_UPDATE', '/STATUS_UPDATE', '/MONEY_IN']);
    const updates = received(receiver, 'STATUS_UPDATE');
    expect(updates.map((u) => [u.body.id, u.body.status, u.body.message_type])).toEqual([
      [response.body.id, 'IN_PROGRESS', 'INTERNAL'],
      [response.body.id, 'LIQUIDATED', 'INTERNAL'],
    ]);
    expect(updates[1]!.body).toEqual({
      id: response.body.id,
      tracking_key: response.body.trackingId,
      message_type: 'INTERNAL',
      status: 'LIQUIDATED',
      update_at: T0,
    });
    const [moneyIn] = received(receiver, 'MONEY_IN');
    expect(moneyIn!.msg_date).toBe('2026-05-07');
    const credit = core.state.transactions.get(moneyIn!.body.id)!;
    expect(credit).toMatchObject({
      kind: 'MONEY_IN',
      subCategory: 'INT_CREDIT',
      category: 'CREDIT_TRANS',
      status: 'LIQUIDATED',
      clientId: CLIENT,
    });
    expect(moneyIn!.body).toEqual({
      id: credit.id,
      beneficiary_account: '646180000000000025',
      beneficiary_name: 'BODEGA NORTE SA DE CV',
      beneficiary_rfc: 'BNO020202CD2',
      payer_account: '646180000000000012',
      payer_name: 'ACME PAGOS SA DE CV',
      payer_rfc: 'APA010101AB1',
      payer_institution: '90646',
      amount: '250.00',
      transaction_date: '20260507',
      tracking_key: response.body.trackingId,
      payment_concept: 'Pago factura 17',
      numeric_reference: '17',
      sub_category: 'INT_CREDIT',
      registered_at: T0,
      owner_id: OWNERS.bodegaNorte,
    });
  });

  it('a 422 with refundReason to an INT_CREDIT refunds nothing', async () => {
    receiver.answer = (r) =>
      r.url === '/MONEY_IN'
        ? { status: 422, body: { refundReason: 'Unknown beneficiary' } }
        : { status: 200, body: {} };
    await transfer('money_out', BODEGA, '10.00');
    await core.advance(1);
    expect(received(receiver, 'MONEY_IN')).toHaveLength(1);
    expect(received(receiver, 'REFUND')).toEqual([]);
    expect(transactions('REFUND')).toEqual([]);
    expect(balance(BODEGA_ACCOUNT)).toBe(100_000_000n + 1_000n);
    expect(transactions('MONEY_IN')[0]!.status).toBe('LIQUIDATED');
  });

  it('a self-transfer (same client and owner) settles with no MONEY_IN', async () => {
    const added = await core.control.addSeed({
      body: {
        core: {
          clients: [],
          accounts: [
            {
              id: 'acc-acme-2',
              clientId: CLIENT,
              ownerId: OWNERS.acme,
              platform: true,
              status: 'ACTIVE',
              balanceCentavos: '0',
            },
          ],
          instruments: [
            {
              id: ACME_SECOND,
              clientId: CLIENT,
              ownerId: OWNERS.acme,
              accountId: 'acc-acme-2',
              bankId: PLATFORM_BANK,
              alias: 'ACME savings',
              type: 'SENDER_RECEIVER',
              status: 'ACTIVE',
              clabe: '646180000000000096',
              holderName: 'ACME PAGOS SA DE CV',
              rfc: 'APA010101AB1',
            },
          ],
        },
      },
    });
    expect(added.status).toBe(200);
    const response = await transfer('money_out', ACME_SECOND, '100.00');
    expect(response.body.subCategory).toBe('INT_DEBIT');
    await core.advance(1);
    expect(balance('acc-acme-2')).toBe(10_000n);
    expect(received(receiver, 'STATUS_UPDATE').map((u) => u.body.status)).toEqual(['IN_PROGRESS', 'LIQUIDATED']);
    expect(received(receiver, 'MONEY_IN')).toEqual([]);
    expect(transactions('MONEY_IN')).toEqual([]);
  });

  it('an internal credit to another client’s platform account goes to that client’s MONEY_IN webhook', async () => {
    await addOtherClientWithAccount();
    const otherReceiver = await core.receiver();
    await core.subscribe(otherReceiver, EVENT_TYPES, {
      clientId: OTHER_CLIENT,
      bearer: await tokenFor(core.sandbox, OTHER_CLIENT, OTHER_KEY, OTHER_SECRET),
    });
    const response = await transfer('money_out', OTHER_INSTRUMENT, '1.50');
    expect(response.body.subCategory).toBe('INT_DEBIT');
    await core.advance(1);
    expect(received(receiver, 'MONEY_IN')).toEqual([]);
    const [moneyIn] = received(otherReceiver, 'MONEY_IN');
    expect(moneyIn!.body).toMatchObject({
      beneficiary_account: '646180000000000106',
      owner_id: OTHER_OWNER,
      amount: '1.50',
      sub_category: 'INT_CREDIT',
    });
    expect(core.state.transactions.get(moneyIn!.body.id)!.clientId).toBe(OTHER_CLIENT);
    expect(balance('acc-other-1')).toBe(5_000n + 150n);
  });

  it('money_out to an account outside the platform: SPEI_DEBIT', async () => {
    const response = await transfer('money_out', SUPPLIER_BBVA, '99.99');
    expect(response.status).toBe(200);
    expect(zCreateMoneyOutResponse.safeParse(response.body).success).toBe(true);
    expect(zCoreTransaction.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({
      subCategory: 'SPEI_DEBIT',
      transactionStatus: 'IN_PROGRESS',
      amount: '99.99',
      description: 'Transfer',
      externalReference: '0000001',
    });
    expect(response.body.clientReference).toBeUndefined();
  });

  it('internal_transaction (deprecated) behaves the same: INT_DEBIT + INT_CREDIT to another owner, SPEI_DEBIT outside', async () => {
    const internal = await transfer('internal_transaction', BODEGA, '20.00');
    expect(internal.status).toBe(200);
    expect(zCreateInternalTransactionResponse.safeParse(internal.body).success).toBe(true);
    expect(zCoreTransaction.safeParse(internal.body).success).toBe(true);
    expect(internal.body).toMatchObject({
      subCategory: 'INT_DEBIT',
      transactionStatus: 'IN_PROGRESS',
      amount: '20.00',
    });
    expect(core.state.transactions.get(internal.body.id)!.kind).toBe('INTERNAL_TRANSACTION');
    const external = await transfer('internal_transaction', SUPPLIER_BBVA, '30.00');
    expect(external.body.subCategory).toBe('SPEI_DEBIT');
    await core.advance(1);
    const [moneyIn] = received(receiver, 'MONEY_IN');
    expect(moneyIn!.body).toMatchObject({ sub_category: 'INT_CREDIT', amount: '20.00', owner_id: OWNERS.bodegaNorte });
    expect(balance(ACME_ACCOUNT)).toBe(100_000_000n - 5_000n);
    expect(balance(BODEGA_ACCOUNT)).toBe(100_000_000n + 2_000n);
  });
});

describe('REPORT trigger', () => {
  it('emits the flat REPORT body with a unique file name; ACCOUNT_STATEMENT carries account_id', async () => {
    const control = core.control;
    const daily = await control.triggerReport({
      body: { clientId: CLIENT, fileType: 'TRANSACTIONS', period: 'DAILY' },
    });
    expect(daily).toMatchObject({
      status: 200,
      body: { fileName: expect.stringMatching(/^TRANSACTIONS_DAILY_2026-05-07_[0-9a-f]{8}\.csv$/) },
    });
    const again = await control.triggerReport({
      body: { clientId: CLIENT, fileType: 'TRANSACTIONS', period: 'DAILY' },
    });
    expect(again.body).toEqual({ fileName: expect.stringMatching(/^TRANSACTIONS_DAILY_2026-05-07_[0-9a-f]{8}\.csv$/) });
    const monthly = await control.triggerReport({
      body: { clientId: CLIENT, fileType: 'ACCOUNT_STATEMENT', period: 'MONTHLY', accountId: BODEGA_ACCOUNT },
    });
    expect(monthly.body).toEqual({
      fileName: expect.stringMatching(
        new RegExp(`^ACCOUNT_STATEMENT_MONTHLY_${BODEGA_ACCOUNT}_2026-05_[0-9a-f]{8}\\.csv$`),
      ),
    });
    const names = [daily, again, monthly].map((answer) => (answer.body as { fileName: string }).fileName);
    expect(new Set(names).size).toBe(3);
    const reports = received(receiver, 'REPORT');
    expect(reports).toEqual([
      { client_id: CLIENT, file_type: 'TRANSACTIONS', period: 'DAILY', file_name: names[0], created_at: T0 },
      { client_id: CLIENT, file_type: 'TRANSACTIONS', period: 'DAILY', file_name: names[1], created_at: T0 },
      {
        client_id: CLIENT,
        file_type: 'ACCOUNT_STATEMENT',
        period: 'MONTHLY',
        file_name: names[2],
        created_at: T0,
        account_id: BODEGA_ACCOUNT,
      },
    ]);
  });

  it('404 for an unknown client or an account that is not the client’s', async () => {
    const control = core.control;
    expect(
      (await control.triggerReport({ body: { clientId: UNKNOWN, fileType: 'TRANSACTIONS', period: 'DAILY' } })).status,
    ).toBe(404);
    expect(
      (
        await control.triggerReport({
          body: { clientId: CLIENT, fileType: 'ACCOUNT_STATEMENT', period: 'DAILY', accountId: 'nope' },
        })
      ).status,
    ).toBe(404);
    await core.sandbox.runtime.deliveries.idle();
    expect(receiver.requests).toEqual([]);
  });
});
