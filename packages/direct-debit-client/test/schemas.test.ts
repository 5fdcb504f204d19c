import { describe, expect, it } from 'vitest';
import {
  zBank,
  zCustomer,
  zCustomerCreateRequest,
  zDirectDebitInstrument,
  zInstrumentPage,
  zValidationError,
} from '@paykit/direct-debit-client/zod';

const BANKS = [
  'mx_santander',
  'mx_banorte',
  'mx_bbva',
  'mx_banamex',
  'mx_hsbc',
  'mx_citi',
  'mx_banjercito',
  'mx_bajio',
  'mx_inbursa',
  'mx_invex',
  'mx_america',
  'mx_vepormas',
  'mx_azteca',
  'mx_multiva',
  'mx_actinver',
  'mx_bancoppel',
  'mx_fundaciondonde',
  'mx_bancrea',
  'mx_bankaaol',
  'mx_scotiabank',
  'mx_banregio',
  'mx_afirme',
  'mx_compartamos',
  'mx_base',
  'mx_ci',
  'mx_mifel',
  'mx_interbanco',
  'mx_sabadell',
];

const instrument = {
  id: '0b6f8f2a-5d1e-4c3b-9a7f-000000000001',
  org_id: '0b6f8f2a-5d1e-4c3b-9a7f-000000000002',
  customer_id: '0b6f8f2a-5d1e-4c3b-9a7f-000000000003',
  type: 'mx_direct_debit_card',
  description: null,
  status: 'active',
  mx_clabe: null,
  mx_direct_debit_card: { card_number: '4111111111111111', bank: 'mx_bbva' },
  currency: 'MXN',
  ownership_verification_result: null,
  ownership_verification_result_at: null,
  created_at: '2026-05-07T12:00:00Z',
  updated_at: null,
};

describe('direct debit schemas', () => {
  it('accepts each of the 28 bank values and no other', () => {
    expect(zBank.options).toHaveLength(28);
    for (const bank of BANKS) expect(zBank.safeParse(bank).success).toBe(true);
    expect(zBank.safeParse('mx_unknownbank').success).toBe(false);
    expect(
      zDirectDebitInstrument.safeParse({
        ...instrument,
        mx_direct_debit_card: { card_number: '4111', bank: 'mx_nubank' },
      }).success,
    ).toBe(false);
  });

  it('reads a card instrument and a CLABE instrument, and rejects an unknown type or status', () => {
    expect(zDirectDebitInstrument.parse(instrument)).toEqual(instrument);
    const clabe = {
      ...instrument,
      type: 'mx_clabe',
      mx_direct_debit_card: null,
      mx_clabe: { clabe: '012180001234567899', can_credit: null, can_debit: true },
    };
    expect(zDirectDebitInstrument.parse(clabe).mx_clabe?.clabe).toBe('012180001234567899');
    expect(zDirectDebitInstrument.safeParse({ ...clabe, mx_clabe: { clabe: '01218000123456789' } }).success).toBe(
      false,
    );
    expect(zDirectDebitInstrument.safeParse({ ...instrument, type: 'mx_spei' }).success).toBe(false);
    expect(zDirectDebitInstrument.safeParse({ ...instrument, status: 'deleted' }).success).toBe(false);
  });

  it('reads an instrument page with its cursor, and defaults has_next/has_previous to false', () => {
    const page = zInstrumentPage.parse({ instruments: [instrument], limit: 100, next_cursor: null });
    expect(page.has_next).toBe(false);
    expect(page.has_previous).toBe(false);
    expect(zInstrumentPage.safeParse({ limit: 100 }).success).toBe(false);
  });

  it('reads the 422 body detail[{loc,msg,type}]', () => {
    const body = {
      detail: [{ loc: ['body', 'document_number', 0], msg: 'field required', type: 'value_error.missing' }],
    };
    expect(zValidationError.parse(body)).toEqual(body);
  });

  it('requires name, document_type and document_number on a customer; email must be an email or null', () => {
    const customer = {
      name: 'Ana López',
      document_type: 'mx_rfc',
      document_number: 'LOAA800101ABC',
      email: null,
      phone_number: null,
    };
    expect(zCustomerCreateRequest.safeParse(customer).success).toBe(true);
    expect(zCustomerCreateRequest.safeParse({ ...customer, email: 'not-an-email' }).success).toBe(false);
    expect(zCustomerCreateRequest.safeParse({ name: 'Ana López' }).success).toBe(false);
    const created = {
      ...customer,
      org_id: instrument.org_id,
      id: instrument.customer_id,
      customer_metadata: null,
      created_at: '2026-05-07T12:00:00Z',
      updated_at: null,
    };
    expect(zCustomer.parse(created)).toEqual(created);
  });
});
