// A MONEY_IN as the gateway stores it (the core envelope, answered 201 unless told otherwise), for
// the tests that need credits in the store (this package's and the apps'): its body fields and the
// stored decision can be set. Exported from @paykit/store/testing.
import { randomUUID } from 'node:crypto';
import type { NewEvent } from './events.ts';

export function creditEvent(
  body: Record<string, unknown>,
  stored: Partial<Pick<NewEvent, 'outcome' | 'reason' | 'answerStatus'>> & { idMsg?: string } = {},
): NewEvent {
  const idMsg = stored.idMsg ?? randomUUID();
  const id = typeof body.id === 'string' ? body.id : randomUUID();
  const payload = {
    id_msg: idMsg,
    msg_name: 'MONEY_IN',
    msg_date: '2026-11-21',
    body: {
      id,
      beneficiary_account: '646180000000000012',
      payer_account: '012180000045678907',
      transaction_date: '20261121',
      sub_category: 'SPEI_CREDIT',
      ...body,
    },
  };
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    dedupeKey: `core:MONEY_IN:${idMsg}`,
    idMsg,
    transactionId: id,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-21T16:30:00Z'),
    drift: [],
    outcome: stored.outcome ?? 'accepted',
    reason: stored.reason ?? null,
    answerStatus: stored.answerStatus ?? 201,
    refundReason: null,
  };
}
