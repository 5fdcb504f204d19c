// The generated zod schemas against the reference's own examples and prohibitions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  zAuthenticationToken,
  zClabeInstrumentDetail,
  zClientCredentialList,
  zCepEvent,
  zCoreError,
  zCoreTransaction,
  zMoneyInEvent,
  zMoneyInRejection,
  zPennyValidationRequest,
  zRefundEvent,
  zReportEvent,
  zStatusUpdateEvent,
  zWebhookConfiguration,
  zWebhookCreateRequestWritable,
  zWebhookUpdateRequestWritable,
} from '@paykit/core-client/zod';
import { API_VERSION } from '@paykit/core-client';

const uuid = (n: number) => `6f1c2d3e-4b5a-4c6d-8e7f-${String(n).padStart(12, '0')}`;

const token = {
  id: uuid(1),
  client_id: uuid(2),
  client_credential_id: uuid(3),
  token: 'eyJhbGciOiJIUzI1NiJ9.e30.signature',
  status: 'ACTIVE',
  expires_at: '2026-05-07 12:00:00.000000',
  created_at: '2026-05-06 12:00:00.000000-06:00',
  updated_at: '2026-05-06 12:00:00.000000-06:00',
  deleted_at: null,
};

const clabe = '012180001234567899';

const instrument = {
  id: uuid(10),
  bankId: uuid(11),
  clientId: uuid(2),
  ownerId: uuid(12),
  instrumentAlias: 'Payroll',
  instrumentStatus: 'ACTIVE',
  instrumentType: 'SENDER_RECEIVER',
  instrumentDetail: { accountNumber: '001234567899', clabeNumber: clabe, holderName: 'ACME SA DE CV' },
  rfc: 'ACM010101ABC',
};

const pennyValidation = {
  id: uuid(20),
  bankId: uuid(11),
  clientId: uuid(2),
  externalReference: '0000001',
  trackingId: 'PK2026050700000001',
  description: 'Penny Validation',
  amount: '0.01',
  currency: 'MXN',
  category: 'DEBIT_TRANS',
  subCategory: 'SPEI_DEBIT',
  transactionStatus: 'INITIALIZED',
  audit: {
    createdAt: '2026-05-07T12:00:00-06:00',
    updatedAt: '2026-05-07T12:00:00-06:00',
    deletedAt: null,
    blockedAt: null,
  },
  sourceInstrument: instrument,
  destinationInstrument: { ...instrument, id: uuid(13), instrumentType: 'RECEIVER' },
  metadata: {
    dataCep: {
      validationId: uuid(21),
      status: 'INITIALIZED',
      createdAt: '2026-05-07T12:00:00-06:00',
      processedAt: null,
    },
  },
};

const moneyIn = {
  id_msg: uuid(30),
  msg_name: 'MONEY_IN',
  msg_date: '2026-05-07',
  body: {
    id: uuid(31),
    beneficiary_account: clabe,
    beneficiary_name: 'ACME SA DE CV',
    payer_account: '002180001234567896',
    payer_name: 'JUAN PEREZ',
    payer_institution: '40002',
    amount: '1500.00',
    transaction_date: '2026-05-07 10:15:00',
    tracking_key: 'BNET01002605070001',
    payment_concept: 'Invoice 42',
    numeric_reference: '1234567',
    sub_category: 'SPEI_CREDIT',
    registered_at: '2026-05-07T10:15:01-06:00',
    owner_id: uuid(12),
  },
};

describe('core schemas accept what the reference shows', () => {
  it('reads a token whose expires_at has no offset and whose created_at has -06:00', () => {
    expect(zAuthenticationToken.parse(token)).toEqual(token);
  });

  it('reads the credential list wrapped in data[]', () => {
    const credential = {
      id: uuid(3),
      client_id: uuid(2),
      client_secret: 's3cr3t',
      environment: 'staging',
      status: 'ACTIVE',
      created_at: '2026-05-01T09:00:00-06:00',
      updated_at: '2026-05-01T09:00:00-06:00',
      deleted_at: null,
    };
    expect(zClientCredentialList.parse({ data: [credential] }).data).toHaveLength(1);
  });

  it('reads a penny validation transaction in status INITIALIZED', () => {
    expect(zCoreTransaction.parse(pennyValidation).transactionStatus).toBe('INITIALIZED');
  });

  it('reads a webhook configuration with the -06:00 layout and a soft-delete timestamp', () => {
    const configuration = {
      id: uuid(40),
      clientId: uuid(2),
      url: 'https://hooks.example.com/paykit/money-in',
      webhookType: 'MONEY_IN',
      webhookStatus: 'ACTIVE',
      createdAt: '2026-05-07 12:00:00.000000-06:00',
      updatedAt: '2026-05-07 12:00:00.000000-06:00',
      deletedAt: null,
    };
    expect(zWebhookConfiguration.parse(configuration)).toEqual(configuration);
  });

  it('reads the core error body with details[].metadata', () => {
    const error = {
      code: 3,
      message: 'invalid external reference',
      details: [{ reason: 'DATA_ERROR', domain: 'transactions', metadata: { http_code: '400', error_code: 'TX-001' } }],
    };
    expect(zCoreError.parse(error)).toEqual(error);
  });

  it('reads every enveloped event and the flat REPORT', () => {
    expect(zMoneyInEvent.parse(moneyIn).body.amount).toBe('1500.00');
    expect(
      zStatusUpdateEvent.parse({
        id_msg: uuid(32),
        msg_name: 'STATUS_UPDATE',
        msg_date: '2026-05-07',
        body: {
          id: uuid(20),
          tracking_key: 'PK2026050700000001',
          message_type: 'SPEI',
          status: 'LIQUIDATED',
          update_at: '2026-05-07 12:01:00',
        },
      }).body.status,
    ).toBe('LIQUIDATED');
    expect(
      zCepEvent.parse({
        id_msg: uuid(33),
        msg_name: 'CEP',
        msg_date: '2026-05-07',
        body: {
          id: uuid(20),
          tracking_key: 'PK2026050700000001',
          beneficiary_account: clabe,
          beneficiary_name: 'ACME',
          beneficiary_rfc: null,
          status: 'PENDING',
          processed_at: null,
        },
      }).body.processed_at,
    ).toBeNull();
    const refund = zRefundEvent.parse({
      id_msg: uuid(34),
      msg_name: 'REFUND',
      msg_date: '2026-05-07',
      body: {
        id: uuid(35),
        amount: '1500.00',
        original_transaction_id: uuid(31),
        original_transaction_amount: '1500.00',
        numeric_reference: null,
      },
    });
    expect(refund.body.amount).toBe(refund.body.original_transaction_amount);
    const report = {
      client_id: uuid(2),
      file_type: 'ACCOUNT_STATEMENT',
      period: 'MONTHLY',
      file_name: 'statement-2026-04.pdf',
      created_at: '2026-05-01T00:05:00-06:00',
      account_id: 'acc-1',
    };
    expect(zReportEvent.parse(report)).toEqual(report);
    expect(zMoneyInRejection.parse({ refundReason: 'Unknown beneficiary' })).toEqual({
      refundReason: 'Unknown beneficiary',
    });
  });

  it('is a tolerant reader: fields the spec does not name are kept, not stripped or refused', () => {
    const drifted = { ...moneyIn, body: { ...moneyIn.body, new_field: 'x' }, extra_envelope: 1 };
    expect(zMoneyInEvent.parse(drifted)).toEqual(drifted);
  });

  it('fills the penny validation defaults: description and external_reference', () => {
    const parsed = zPennyValidationRequest.parse({
      client_id: uuid(2),
      source_instrument_id: uuid(10),
      destination_instrument_id: uuid(13),
    });
    expect(parsed.description).toBe('Penny Validation');
    expect(parsed.external_reference).toBe('0000001');
  });

  it("exports the API revision the client was generated from: its spec's info.version", () => {
    // Read from the spec, not written here: a dated API change moves both together.
    const spec = readFileSync(new URL('../../../specs/core.yaml', import.meta.url), 'utf8');
    const revision = /^info:\n(?:[ \t].*\n)*?[ \t]+version: '?([0-9-]+)'?$/m.exec(spec)?.[1];
    expect(revision).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(API_VERSION).toBe(revision);
  });
});

describe('core schemas reject what the reference forbids', () => {
  const penny = { client_id: uuid(2), source_instrument_id: uuid(10), destination_instrument_id: uuid(13) };

  it('rejects an 8-digit or non-numeric external_reference and accepts 7 digits', () => {
    expect(zPennyValidationRequest.safeParse({ ...penny, external_reference: '12345678' }).success).toBe(false);
    expect(zPennyValidationRequest.safeParse({ ...penny, external_reference: '12A4' }).success).toBe(false);
    expect(zPennyValidationRequest.safeParse({ ...penny, external_reference: '1234567' }).success).toBe(true);
  });

  it('rejects a penny validation without its source or destination instrument', () => {
    expect(zPennyValidationRequest.safeParse({ client_id: uuid(2), source_instrument_id: uuid(10) }).success).toBe(
      false,
    );
  });

  it('rejects an unknown webhook_type or auth_type, and a token shorter than 32', () => {
    const create = {
      client_id: uuid(2),
      url: 'https://hooks.example.com/x',
      token: 'k'.repeat(32),
      webhook_type: 'MONEY_IN',
      auth_type: 'AUTH',
    };
    expect(zWebhookCreateRequestWritable.safeParse(create).success).toBe(true);
    expect(zWebhookCreateRequestWritable.safeParse({ ...create, webhook_type: 'PAYOUT' }).success).toBe(false);
    expect(zWebhookCreateRequestWritable.safeParse({ ...create, auth_type: 'BASIC' }).success).toBe(false);
    expect(zWebhookCreateRequestWritable.safeParse({ ...create, token: 'k'.repeat(31) }).success).toBe(false);
  });

  it('rejects a webhook update with no field, or an unknown webhook_status', () => {
    expect(zWebhookUpdateRequestWritable.safeParse({}).success).toBe(false);
    expect(zWebhookUpdateRequestWritable.safeParse({ webhook_status: 'PAUSED' }).success).toBe(false);
    expect(zWebhookUpdateRequestWritable.safeParse({ webhook_status: 'INACTIVE' }).success).toBe(true);
    expect(zWebhookUpdateRequestWritable.safeParse({ token: 'k'.repeat(32) }).success).toBe(true);
  });

  it('rejects a token whose created_at lacks -06:00 or whose expires_at carries an offset', () => {
    expect(zAuthenticationToken.safeParse({ ...token, created_at: '2026-05-06 12:00:00.000000' }).success).toBe(false);
    expect(zAuthenticationToken.safeParse({ ...token, expires_at: '2026-05-07 12:00:00.000000-06:00' }).success).toBe(
      false,
    );
  });

  it('rejects a CLABE that is not 18 digits', () => {
    const detail = { accountNumber: '001234567899', clabeNumber: clabe, holderName: 'ACME' };
    expect(zClabeInstrumentDetail.safeParse(detail).success).toBe(true);
    expect(zClabeInstrumentDetail.safeParse({ ...detail, clabeNumber: clabe.slice(1) }).success).toBe(false);
  });

  it('rejects an amount that is not a two-decimal string (never a float)', () => {
    expect(zMoneyInEvent.safeParse({ ...moneyIn, body: { ...moneyIn.body, amount: 1500 } }).success).toBe(false);
    expect(zMoneyInEvent.safeParse({ ...moneyIn, body: { ...moneyIn.body, amount: '1500.5' } }).success).toBe(false);
    expect(zCoreTransaction.safeParse({ ...pennyValidation, currency: 'USD' }).success).toBe(false);
  });

  it('rejects an envelope whose msg_name is not its event, and a CEP event in INITIALIZED', () => {
    expect(zMoneyInEvent.safeParse({ ...moneyIn, msg_name: 'CEP' }).success).toBe(false);
    expect(
      zCepEvent.safeParse({
        id_msg: uuid(33),
        msg_name: 'CEP',
        msg_date: '2026-05-07',
        body: { status: 'INITIALIZED' },
      }).success,
    ).toBe(false);
  });

  it('rejects a MONEY_IN missing its required body fields', () => {
    const { tracking_key: _dropped, ...body } = moneyIn.body;
    expect(zMoneyInEvent.safeParse({ ...moneyIn, body }).success).toBe(false);
  });
});
