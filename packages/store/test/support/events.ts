// NewEvent builders for tests: a core MONEY_IN-like event by default, any field overridable.
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '../../src/index.ts';

export function newEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  const idMsg = overrides.idMsg ?? randomUUID();
  const payload = overrides.payload ?? {
    msg_name: 'MONEY_IN',
    id_msg: idMsg,
    body: { id: `tx-${idMsg}`, amount: '1500.00' },
  };
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    dedupeKey: `core:${idMsg}`,
    idMsg,
    transactionId: `tx-${idMsg}`,
    operationId: null,
    rawBody: overrides.rawBody ?? new TextEncoder().encode(JSON.stringify(payload)),
    payload,
    headers: { 'content-type': 'application/json' },
    receivedAt: new Date(),
    drift: [],
    outcome: 'accepted',
    reason: null,
    answerStatus: 201,
    refundReason: null,
    ...overrides,
  };
}
