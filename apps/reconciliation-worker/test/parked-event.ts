// An event the worker parks: a MONEY_IN whose body has no amount (for the console's retry form).
import { randomUUID } from 'node:crypto';
import { reconcileOnce } from '@paykit/ledger';
import { createEventStore, type NewEvent } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';

export function unreadableCredit(): NewEvent {
  const idMsg = randomUUID();
  const payload = {
    id_msg: idMsg,
    msg_name: 'MONEY_IN',
    msg_date: '2026-11-21',
    body: {
      id: randomUUID(),
      beneficiary_account: '646180000000000012',
      transaction_date: '20261121',
      sub_category: 'SPEI_CREDIT',
    },
  };
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    dedupeKey: `core:MONEY_IN:${idMsg}`,
    idMsg,
    transactionId: payload.body.id,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-21T16:30:00Z'),
    drift: [],
    outcome: 'accepted',
    reason: null,
    answerStatus: 201,
    refundReason: null,
  };
}

/** A fresh test database holding one parked event (an unreadable credit, applied once). */
export async function openWithParkedEvent(): Promise<OpenedTestDatabase> {
  const opened = await testDatabases()[0]!.open();
  const store = createEventStore(opened.db);
  await store.append(unreadableCredit());
  await store.close();
  const result = await reconcileOnce(opened.db);
  if (result.parked !== 1) throw new Error(`expected the unreadable credit parked, got ${JSON.stringify(result)}`);
  return opened;
}
