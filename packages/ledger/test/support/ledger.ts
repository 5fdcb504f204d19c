// Stored events as the gateway writes them (core envelopes, flat REPORT), for ledger tests.
import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '@paykit/store';
import type { OutboundRecord } from '../../src/index.ts';

type CoreType = 'MONEY_IN' | 'STATUS_UPDATE' | 'CEP' | 'REFUND';

export function coreEvent(type: CoreType, body: Record<string, unknown>, overrides: Partial<NewEvent> = {}): NewEvent {
  const idMsg = randomUUID();
  const payload = { id_msg: idMsg, msg_name: type, msg_date: '2026-11-21', body };
  return {
    source: 'core',
    eventType: type,
    dedupeKey: `core:${type}:${idMsg}`,
    idMsg,
    transactionId: typeof body.id === 'string' ? body.id : null,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-21T16:30:00Z'),
    drift: [],
    outcome: type === 'MONEY_IN' ? 'accepted' : 'stored',
    reason: null,
    answerStatus: type === 'MONEY_IN' ? 201 : 200,
    refundReason: null,
    ...overrides,
  };
}

export function reportEvent(fileName: string, createdAt = '2026-11-21T23:00:00-06:00'): NewEvent {
  const payload = {
    client_id: '11111111-1111-4111-8111-111111111111',
    file_type: 'TRANSACTIONS',
    period: 'DAILY',
    file_name: fileName,
    created_at: createdAt,
  };
  return {
    source: 'core',
    eventType: 'REPORT',
    dedupeKey: `core:report:${payload.client_id}:${fileName}`,
    idMsg: null,
    transactionId: null,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-22T05:00:00Z'),
    drift: [],
    outcome: 'stored',
    reason: null,
    answerStatus: 200,
    refundReason: null,
  };
}

export const statusUpdate = (id: string, status: string, updateAt = '2026-11-21T10:16:00-06:00') =>
  coreEvent('STATUS_UPDATE', {
    id,
    tracking_key: `PK-${id.slice(0, 8)}`,
    message_type: 'SPEI',
    status,
    update_at: updateAt,
  });

export function moneyIn(body: Record<string, unknown> = {}, overrides: Partial<NewEvent> = {}): NewEvent {
  return coreEvent(
    'MONEY_IN',
    {
      id: randomUUID(),
      beneficiary_account: '646180000000000012',
      beneficiary_name: 'ACME PAGOS SA DE CV',
      payer_account: '012180000045678907',
      payer_institution: '40012',
      amount: '1500.00',
      transaction_date: '2026-11-21 10:15:00',
      tracking_key: `EXT${Date.now()}`,
      payment_concept: 'Factura 123',
      numeric_reference: '1234567',
      sub_category: 'SPEI_CREDIT',
      registered_at: '2026-11-21T10:15:00-06:00',
      owner_id: randomUUID(),
      ...body,
    },
    overrides,
  );
}

export function refund(original: { id: string; amount: string }, body: Record<string, unknown> = {}): NewEvent {
  return coreEvent('REFUND', {
    id: randomUUID(),
    tracking_key: `RF-${original.id.slice(0, 8)}`,
    amount: original.amount,
    transaction_date: '2026-11-21 12:00:00',
    category: 'CREDIT_TRANS',
    sub_category: 'SPEI_REFUNDED_CREDIT',
    original_transaction_id: original.id,
    original_transaction_amount: original.amount,
    ...body,
  });
}

export function outbound(overrides: Partial<OutboundRecord> = {}): OutboundRecord {
  const id = randomUUID();
  return {
    transactionId: id,
    trackingKey: `PK-${id.slice(0, 8)}`,
    operation: 'money_out',
    subCategory: 'SPEI_DEBIT',
    amount: '300.00',
    sourceAccount: '646180000000000012',
    destinationAccount: '012180000045678907',
    expectedHolder: null,
    expectedRfc: null,
    status: 'IN_PROGRESS',
    createdAt: new Date('2026-11-21T16:15:00Z'),
    response: {},
    ...overrides,
  };
}

export async function appendAll(store: EventStore, events: NewEvent[]): Promise<string[]> {
  const results = await Promise.all(events.map((event) => store.append(event)));
  return results.map((result) => result.seq);
}
