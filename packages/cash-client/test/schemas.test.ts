import { describe, expect, it } from 'vitest';
import { zCashActivationEvent, zCashWebhookConfiguration, zCashWebhookEvent } from '@paykit/cash-client/zod';

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

describe('cash schemas', () => {
  it('reads the paid, expired and reversed events', () => {
    expect(zCashWebhookEvent.parse(paid)).toEqual(paid);
    expect(zCashWebhookEvent.parse({ ...paid, event: 'webhook.expired.success', status: 'expired' }).status).toBe(
      'expired',
    );
    expect(
      zCashWebhookEvent.parse({ ...paid, event: 'webhook.reversed.success', status: 'reversed', type: 'cash_out' })
        .type,
    ).toBe('cash_out');
  });

  it('rejects a 19- or 21-digit reference', () => {
    expect(zCashWebhookEvent.safeParse({ ...paid, reference: '1234567890123456789' }).success).toBe(false);
    expect(zCashWebhookEvent.safeParse({ ...paid, reference: '123456789012345678901' }).success).toBe(false);
  });

  it('rejects an amount that is not an integer number of pesos', () => {
    expect(zCashWebhookEvent.safeParse({ ...paid, amount: 500.5 }).success).toBe(false);
    expect(zCashWebhookEvent.safeParse({ ...paid, amount: '500' }).success).toBe(false);
  });

  it('rejects an unknown event, status or operation type', () => {
    expect(zCashWebhookEvent.safeParse({ ...paid, event: 'webhook.paid.failure' }).success).toBe(false);
    expect(zCashWebhookEvent.safeParse({ ...paid, status: 'pending' }).success).toBe(false);
    expect(zCashWebhookEvent.safeParse({ ...paid, type: 'transfer' }).success).toBe(false);
  });

  it('reads the activation request', () => {
    expect(
      zCashActivationEvent.parse({ event: 'webhook.activation', processed_at: '2026-05-07T18:00:00Z' }).event,
    ).toBe('webhook.activation');
  });

  it('reads the creation response and insists on a 64-hex secret_token', () => {
    const created = {
      id: 7,
      endpoint_url: 'https://hooks.example.com/cash',
      secret_token: 'a1'.repeat(32),
      created_at: '2026-05-07T18:00:00Z',
      event: 'webhook.created',
    };
    expect(zCashWebhookConfiguration.parse(created)).toEqual(created);
    expect(zCashWebhookConfiguration.safeParse({ ...created, secret_token: 'a1'.repeat(31) + 'a' }).success).toBe(
      false,
    );
    expect(zCashWebhookConfiguration.safeParse({ ...created, secret_token: 'zz'.repeat(32) }).success).toBe(false);
  });
});
