// Valid events, as the platform sends them (ids drawn by fast-check, so a seed repeats a run): the
// base every body family mutates.
import fc from 'fast-check';
import type { CoreEventType } from '@paykit/contracts';
import type { Json } from './json.ts';

export const uuid = fc.uuid({ version: 4 });
export const ACME_CLABE = '646180000000000012';
const PAYER_CLABE = '012180000045678907';

const envelope = (type: Exclude<CoreEventType, 'REPORT'>, body: fc.Arbitrary<Json>): fc.Arbitrary<Json> =>
  fc.record({ id_msg: uuid, msg_name: fc.constant(type), msg_date: fc.constant('2026-11-21'), body });

const CORE_BODIES: Record<Exclude<CoreEventType, 'REPORT'>, fc.Arbitrary<Json>> = {
  MONEY_IN: fc.record({
    id: uuid,
    beneficiary_account: fc.constant(ACME_CLABE),
    beneficiary_name: fc.constant('ACME PAGOS SA DE CV'),
    payer_account: fc.constant(PAYER_CLABE),
    payer_name: fc.constant('CLIENTE UNO'),
    payer_rfc: fc.constant('CUNO800101AB1'),
    payer_institution: fc.constant('40012'),
    amount: fc
      .integer({ min: 1, max: 99_999_999 })
      .map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`),
    transaction_date: fc.constant('2026-11-21 10:15:00'),
    tracking_key: fc.constant('EXT202611210000000001'),
    payment_concept: fc.constant('Factura 123'),
    numeric_reference: fc.constant('1234567'),
    sub_category: fc.constantFrom('SPEI_CREDIT', 'INT_CREDIT'),
    registered_at: fc.constant('2026-11-21T10:15:00-06:00'),
    owner_id: uuid,
  }),
  STATUS_UPDATE: fc.record({
    id: uuid,
    tracking_key: fc.constant('PK202611210000000001'),
    message_type: fc.constant('SPEI'),
    status: fc.constantFrom('IN_PROGRESS', 'LIQUIDATED', 'REJECTED'),
    update_at: fc.constant('2026-11-21T10:16:00-06:00'),
  }),
  CEP: fc.record({
    id: uuid,
    tracking_key: fc.constant('PK202611210000000002'),
    beneficiary_account: fc.constant(PAYER_CLABE),
    beneficiary_name: fc.constant('CLIENTE UNO'),
    beneficiary_rfc: fc.constant('CUNO800101AB1'),
    status: fc.constant('COMPLETED'),
    processed_at: fc.constant('2026-11-21T10:17:00-06:00'),
  }),
  REFUND: fc.record({
    id: uuid,
    tracking_key: fc.constant('RF202611210000000001'),
    amount: fc.constant('1500.00'),
    category: fc.constant('DEBIT_TRANS'),
    sub_category: fc.constant('SPEI_REFUNDED_DEBIT'),
    original_transaction_id: uuid,
    original_transaction_amount: fc.constant('1500.00'),
  }),
};

/** A valid event of a core type (REPORT is flat, the others enveloped). */
export function coreEvent(type: CoreEventType): fc.Arbitrary<Json> {
  if (type === 'REPORT') {
    return fc.record({
      client_id: fc.constant('11111111-1111-4111-8111-111111111111'),
      file_type: fc.constant('TRANSACTIONS'),
      period: fc.constant('DAILY'),
      file_name: uuid.map((id) => `TRANSACTIONS_DAILY_${id}.csv`),
      created_at: fc.constant('2026-11-21T00:05:00-06:00'),
    });
  }
  return envelope(type, CORE_BODIES[type]);
}

/** A valid cash event (paid, expired, reversed) or the activation request. */
export const cashEvent: fc.Arbitrary<Json> = fc.record({
  event: fc.constantFrom('webhook.paid.success', 'webhook.expired', 'webhook.reversed', 'webhook.activation'),
  operation_id: fc.integer({ min: 1, max: 2_000_000_000 }),
  external_user_id: fc.constant('user-1'),
  type: fc.constantFrom('cash_in', 'cash_out'),
  amount: fc.integer({ min: 1, max: 1_000_000 }),
  reference: fc.constant('12345678901234567890'),
  status: fc.constantFrom('paid', 'expired', 'reversed'),
  processed_at: fc.constant('2026-11-21T10:20:00-06:00'),
});
