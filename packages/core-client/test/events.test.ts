// Receiving core deliveries: verifyCoreWebhook (constant time, several tokens for rotation) and
// parseCoreEvent (a union on msg_name; REPORT by its flat shape; tolerant of drift).
import { describe, expect, it } from 'vitest';
import {
  CoreEventError,
  DriftError,
  generateWebhookToken,
  parseCoreEvent,
  verifyCoreWebhook,
  WebhookVerificationError,
  type DriftReport,
} from '@paykit/core-client';

const uuid = (n: number) => `6f1c2d3e-4b5a-4c6d-8e7f-${String(n).padStart(12, '0')}`;
const clabe = '012180001234567899';

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
const statusUpdate = {
  id_msg: uuid(32),
  msg_name: 'STATUS_UPDATE',
  msg_date: '2026-05-07',
  body: {
    id: uuid(20),
    tracking_key: 'PK2026050700000001',
    message_type: 'SPEI',
    status: 'LIQUIDATED',
    update_at: '2026-05-07T12:01:00-06:00',
  },
};
const cep = {
  id_msg: uuid(33),
  msg_name: 'CEP',
  msg_date: '2026-05-07',
  body: {
    id: uuid(20),
    tracking_key: 'PK2026050700000001',
    beneficiary_account: clabe,
    beneficiary_name: 'ACME',
    beneficiary_rfc: null,
    status: 'COMPLETED',
    processed_at: '2026-05-07T12:02:00-06:00',
  },
};
const refund = {
  id_msg: uuid(34),
  msg_name: 'REFUND',
  msg_date: '2026-05-07',
  body: {
    id: uuid(35),
    amount: '1500.00',
    original_transaction_id: uuid(31),
    original_transaction_amount: '1500.00',
    numeric_reference: null,
    sub_category: 'SPEI_REFUNDED_CREDIT',
  },
};
const report = {
  client_id: uuid(2),
  file_type: 'ACCOUNT_STATEMENT',
  period: 'MONTHLY',
  file_name: 'ACCOUNT_STATEMENT_MONTHLY_acc-1_2026-05-01.csv',
  created_at: '2026-05-01T00:05:00-06:00',
  account_id: 'acc-1',
};

describe('parseCoreEvent', () => {
  it('reads each enveloped event by its msg_name', () => {
    const a = parseCoreEvent(moneyIn);
    expect(a.kind).toBe('MONEY_IN');
    if (a.kind === 'MONEY_IN') expect(a.event.body.amount).toBe('1500.00');
    const b = parseCoreEvent(statusUpdate);
    expect(b.kind).toBe('STATUS_UPDATE');
    if (b.kind === 'STATUS_UPDATE') expect(b.event.body.status).toBe('LIQUIDATED');
    const c = parseCoreEvent(cep);
    expect(c.kind).toBe('CEP');
    if (c.kind === 'CEP') expect(c.event.body.status).toBe('COMPLETED');
    const d = parseCoreEvent(refund);
    expect(d.kind).toBe('REFUND');
    if (d.kind === 'REFUND') expect(d.event.body.amount).toBe(d.event.body.original_transaction_amount);
  });

  it('recognises the flat REPORT by its shape', () => {
    const event = parseCoreEvent(report);
    expect(event).toEqual({ kind: 'REPORT', event: report });
  });

  it('reads the raw body as a string or as bytes', () => {
    expect(parseCoreEvent(JSON.stringify(cep)).kind).toBe('CEP');
    expect(parseCoreEvent(Buffer.from(JSON.stringify(report))).kind).toBe('REPORT');
    expect(parseCoreEvent(new TextEncoder().encode(JSON.stringify(moneyIn))).kind).toBe('MONEY_IN');
  });

  it('returns an unknown msg_name as kind "unknown" instead of failing the delivery', () => {
    const payout = { id_msg: uuid(36), msg_name: 'PAYOUT', msg_date: '2026-05-07', body: { id: uuid(37) } };
    expect(parseCoreEvent(payout)).toEqual({ kind: 'unknown', msgName: 'PAYOUT', event: payout });
    expect(parseCoreEvent({ hello: 'world' })).toEqual({
      kind: 'unknown',
      msgName: undefined,
      event: { hello: 'world' },
    });
  });

  it('keeps an event that drifted from the spec and reports how', () => {
    const reports: DriftReport[] = [];
    const drifted = { ...moneyIn, body: { ...moneyIn.body, amount: '1500.5', new_field: 'x' } };
    const event = parseCoreEvent(drifted, { onDrift: (r) => reports.push(r) });
    expect(event).toEqual({ kind: 'MONEY_IN', event: drifted });
    expect(reports.map((r) => [r.kind, r.path.join('.')])).toEqual(
      expect.arrayContaining([
        ['mismatch', 'body.amount'],
        ['extra-field', 'body.new_field'],
      ]),
    );
    expect(reports.every((r) => r.product === 'core')).toBe(true);
    expect(() => parseCoreEvent(drifted, { strict: true })).toThrow(DriftError);
  });

  it('throws CoreEventError only for a body that is not a JSON object', () => {
    expect(() => parseCoreEvent('{"msg_name": "CEP"')).toThrow(CoreEventError);
    expect(() => parseCoreEvent('[1,2]')).toThrow(/array/);
    expect(() => parseCoreEvent(null)).toThrow(CoreEventError);
  });
});

describe('verifyCoreWebhook', () => {
  const current = generateWebhookToken();
  const next = generateWebhookToken();

  it('accepts either token during a rotation and says which one matched', () => {
    expect(verifyCoreWebhook({ authorization: `Bearer ${current}` }, [current, next])).toBe(0);
    expect(verifyCoreWebhook(new Headers({ Authorization: `Bearer ${next}` }), [current, next])).toBe(1);
  });

  it('refuses a wrong token, and a missing header, without echoing a token', () => {
    const wrong = generateWebhookToken();
    let error: unknown;
    try {
      verifyCoreWebhook({ authorization: `Bearer ${wrong}` }, [current, next]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookVerificationError).reason).toBe('mismatch');
    for (const token of [wrong, current, next]) expect(String(error)).not.toContain(token);
    expect(() => verifyCoreWebhook({}, [current])).toThrow(expect.objectContaining({ reason: 'missing-header' }));
  });
});
