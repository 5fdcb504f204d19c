// Cash webhook deliveries, typed: the activation test and the paid, expired and reversed events,
// as one union discriminated on `event`. Read tolerantly with the generated schemas: a field the
// spec does not know, or one in an unexpected format, is reported to onDrift and still returned.
import { PaykitError, readTolerantly, type DriftOptions } from '@paykit/runtime';
import { verifyCashWebhook } from './signing.ts';
import type { CashActivationEvent, CashWebhookEvent } from './generated/types.gen.ts';
import { zCashActivationEvent, zCashWebhookEvent } from './generated/zod.gen.ts';

export type CashActivation = CashActivationEvent & { event: 'webhook.activation' };
export type CashPaidEvent = CashWebhookEvent & { event: 'webhook.paid.success' };
export type CashExpiredEvent = CashWebhookEvent & { event: 'webhook.expired.success' };
export type CashReversedEvent = CashWebhookEvent & { event: 'webhook.reversed.success' };
/** A cash delivery; `switch (e.event)` narrows it. */
export type CashEvent = CashActivation | CashPaidEvent | CashExpiredEvent | CashReversedEvent;
export type CashEventName = CashEvent['event'];

export const CASH_EVENT_NAMES: readonly CashEventName[] = [
  'webhook.activation',
  'webhook.paid.success',
  'webhook.expired.success',
  'webhook.reversed.success',
];

/** A delivery that is not one of the four cash events (or not a JSON object at all). */
export class CashEventError extends PaykitError {}

function isEventName(value: unknown): value is CashEventName {
  return typeof value === 'string' && (CASH_EVENT_NAMES as readonly string[]).includes(value);
}

function jsonOf(body: unknown): unknown {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return body;
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: false }).decode(body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CashEventError(
      'The cash delivery body is not JSON. Pass the raw request body (string or bytes) or the parsed object.',
    );
  }
}

/**
 * Types a cash delivery by its `event`. `body` is the parsed JSON or the raw body (string or
 * bytes). Verify the signature first (verifyCashWebhook, or constructCashEvent which does both).
 * Throws CashEventError for a body without one of the four known event names.
 */
export function parseCashEvent(body: unknown, options?: DriftOptions): CashEvent {
  const data = jsonOf(body);
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new CashEventError(
      'The cash delivery body is not a JSON object; a cash event is an object with an `event` field.',
    );
  }
  const event = (data as { event?: unknown }).event;
  if (!isEventName(event)) {
    const seen =
      typeof event === 'string'
        ? `"${event.slice(0, 64)}"`
        : event === undefined
          ? 'no event field'
          : `a ${typeof event}`;
    throw new CashEventError(
      `Unknown cash event (${seen}): expected one of ${CASH_EVENT_NAMES.join(', ')}. If the platform added an event, update @paykit/cash-client.`,
    );
  }
  if (event === 'webhook.activation') {
    return readTolerantly(zCashActivationEvent, data, { product: 'cash', operation: event }, options) as CashActivation;
  }
  return readTolerantly(zCashWebhookEvent, data, { product: 'cash', operation: event }, options) as
    | CashPaidEvent
    | CashExpiredEvent
    | CashReversedEvent;
}

/**
 * Verifies a delivery (raw bytes, constant time, timestamp tolerance) and then types it:
 * stripe-node's constructEvent for cash. Throws WebhookVerificationError before reading anything
 * from an unverified body.
 */
export function constructCashEvent(
  rawBody: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secretToken: string,
  options: { toleranceSeconds?: number; now?: Date } & DriftOptions = {},
): CashEvent {
  const { toleranceSeconds, now, onDrift, strict } = options;
  verifyCashWebhook(rawBody, headers, secretToken, { toleranceSeconds, now });
  return parseCashEvent(rawBody, { onDrift, strict });
}
