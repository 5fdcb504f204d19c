// Typed cash events: parseCashEvent (tolerant, discriminated on `event`) and constructCashEvent
// (verify over the raw bytes, then parse).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CashEventError,
  constructCashEvent,
  DriftError,
  parseCashEvent,
  WebhookVerificationError,
  type CashEvent,
} from '@paykit/cash-client';
import type { DriftReport } from '@paykit/runtime';

const SECRET = '0123456789abcdef'.repeat(4);
const paid = {
  event: 'webhook.paid.success',
  operation_id: 981234,
  external_user_id: 'user-42',
  type: 'cash_in',
  amount: 500,
  reference: '12345678901234567890',
  status: 'paid',
  processed_at: '2026-05-07T18:00:00Z',
};

function signed(payload: string, at: Date): { raw: Buffer; headers: Record<string, string> } {
  return {
    raw: Buffer.from(payload, 'utf8'),
    headers: {
      'x-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'x-webhook-signature': createHmac('sha256', SECRET).update(payload).digest('hex'),
    },
  };
}

/** What product code writes: a switch over `event` that TypeScript checks is exhaustive. */
function describeEvent(event: CashEvent): string {
  switch (event.event) {
    case 'webhook.activation':
      return 'activation';
    case 'webhook.paid.success':
      return `paid ${event.amount} MXN`;
    case 'webhook.expired.success':
      return `expired ${event.reference}`;
    case 'webhook.reversed.success':
      return `reversed ${event.operation_id}`;
    default: {
      const never: never = event;
      return never;
    }
  }
}

describe('parseCashEvent', () => {
  it('types each of the four deliveries by its event', () => {
    expect(describeEvent(parseCashEvent(paid))).toBe('paid 500 MXN');
    expect(describeEvent(parseCashEvent({ ...paid, event: 'webhook.expired.success', status: 'expired' }))).toBe(
      'expired 12345678901234567890',
    );
    expect(describeEvent(parseCashEvent({ ...paid, event: 'webhook.reversed.success', status: 'reversed' }))).toBe(
      'reversed 981234',
    );
    expect(describeEvent(parseCashEvent({ event: 'webhook.activation', processed_at: '2026-05-07T18:00:00Z' }))).toBe(
      'activation',
    );
  });

  it('reads the raw body as a string or as bytes', () => {
    expect(parseCashEvent(JSON.stringify(paid))).toEqual(paid);
    expect(parseCashEvent(new TextEncoder().encode(JSON.stringify(paid)))).toEqual(paid);
  });

  it('returns a delivery with an extra field or an unexpected format unchanged, and reports the drift', () => {
    const reports: DriftReport[] = [];
    const drifted = { ...paid, amount: '500', branch: 'Tienda 12' };
    const event = parseCashEvent(drifted, { onDrift: (report) => reports.push(report) });
    expect(event).toEqual(drifted);
    expect(reports.map((r) => [r.kind, r.path.join('.')]).sort()).toEqual([
      ['extra-field', 'branch'],
      ['mismatch', 'amount'],
    ]);
    expect(reports.every((r) => r.product === 'cash' && r.operation === 'webhook.paid.success')).toBe(true);
  });

  it('in strict mode, drift is a DriftError', () => {
    expect(() => parseCashEvent({ ...paid, amount: 500.5 }, { strict: true })).toThrow(DriftError);
  });

  it('refuses a body that is not a known cash event, saying which events it knows', () => {
    expect(() => parseCashEvent({ ...paid, event: 'webhook.paid.failure' })).toThrow(CashEventError);
    expect(() => parseCashEvent({ ...paid, event: 'webhook.paid.failure' })).toThrow(/webhook\.paid\.success/);
    expect(() => parseCashEvent({ operation_id: 1 })).toThrow(/no event field/);
    expect(() => parseCashEvent('not json')).toThrow(CashEventError);
    expect(() => parseCashEvent([paid])).toThrow(CashEventError);
  });
});

describe('constructCashEvent', () => {
  const now = new Date('2026-05-07T18:00:30Z');

  it('verifies the raw bytes, then types the event', () => {
    const { raw, headers } = signed(JSON.stringify(paid), new Date('2026-05-07T18:00:00Z'));
    const event = constructCashEvent(raw, headers, SECRET, { now });
    expect(event.event).toBe('webhook.paid.success');
    expect(event).toEqual(paid);
  });

  it('verifies the bytes as sent, not a re-serialisation: spacing the sender chose is kept', () => {
    const payload = JSON.stringify(paid, null, 2);
    const { raw, headers } = signed(payload, new Date('2026-05-07T18:00:00Z'));
    expect(constructCashEvent(raw, headers, SECRET, { now }).event).toBe('webhook.paid.success');
    // Re-serialised, the same event no longer matches its signature.
    expect(() => constructCashEvent(JSON.stringify(JSON.parse(payload)), headers, SECRET, { now })).toThrow(
      WebhookVerificationError,
    );
  });

  it('refuses a stale delivery and a wrong secret before reading the body', () => {
    const { raw, headers } = signed('not json at all', new Date('2026-05-07T17:00:00Z'));
    expect(() => constructCashEvent(raw, headers, SECRET, { now, toleranceSeconds: 300 })).toThrow(
      WebhookVerificationError,
    );
    const fresh = signed(JSON.stringify(paid), now);
    expect(() => constructCashEvent(fresh.raw, fresh.headers, 'ff'.repeat(32), { now })).toThrow(
      WebhookVerificationError,
    );
  });
});
