// The audit every delivery scenario ends with: what the sender (the sandbox) saw acknowledged,
// compared with what the store holds.
import type { Delivery } from '@paykit/contracts';
import type { ScenarioFigures } from './report.ts';
import type { StoredEvent } from './stack.ts';

export interface DeliveryAudit {
  /** Distinct events sent. */
  sent: number;
  /** Distinct events answered 2xx (or 422: refused by policy, stored with the decision) at least once. */
  acknowledged: number;
  /** Distinct sent events in the store. */
  stored: number;
  /** Sent events not in the store (the acknowledged among them are listed in `lostAcknowledged`). */
  lost: number;
  lostAcknowledged: string[];
  /** Events stored under one key more than once. */
  duplicated: number;
  /** Stored events that arrived more than once (a duplicate, or a redelivery of a commit whose answer was lost): stored once. */
  redelivered: number;
  /** Delivery attempts in all, and those that got no answer (connection refused or reset, timeout). */
  attempts: number;
  unanswered: number;
  fiveXx: number;
  /** Attempts the sandbox gave up waiting for (its 5 s timeout): the gateway answered too late. */
  timedOut: number;
  longestAnswerMs: number;
}

/**
 * The store's key for a sandbox delivery: `core:<event type>:<id_msg>` (the gateway lowercases the
 * id_msg), `core:report:<client_id>:<file_name>` for a REPORT (its eventId is the file name),
 * `cash:<operation_id>:<event>`.
 */
export const dedupeKeyOf = (delivery: Pick<Delivery, 'product' | 'eventType' | 'eventId' | 'clientId'>): string => {
  if (delivery.product === 'cash') return `cash:${delivery.eventId}`;
  if (delivery.eventType === 'REPORT') return `core:report:${delivery.clientId.toLowerCase()}:${delivery.eventId}`;
  return `core:${delivery.eventType}:${delivery.eventId.toLowerCase()}`;
};

const acknowledges = (status: number | null) => status !== null && ((status >= 200 && status < 300) || status === 422);

export function auditDeliveries(deliveries: readonly Delivery[], stored: readonly StoredEvent[]): DeliveryAudit {
  const storedCount = new Map<string, number>();
  for (const event of stored) storedCount.set(event.dedupeKey, (storedCount.get(event.dedupeKey) ?? 0) + 1);
  const sent = new Set<string>();
  const acknowledged = new Set<string>();
  let attempts = 0;
  let unanswered = 0;
  let fiveXx = 0;
  let timedOut = 0;
  let longestAnswerMs = 0;
  for (const delivery of deliveries) {
    const key = dedupeKeyOf(delivery);
    sent.add(key);
    for (const attempt of delivery.attempts) {
      attempts++;
      if (attempt.status === null) unanswered++;
      if (attempt.status !== null && attempt.status >= 500) fiveXx++;
      if (attempt.error?.startsWith('no answer within')) timedOut++;
      if (acknowledges(attempt.status)) acknowledged.add(key);
      longestAnswerMs = Math.max(longestAnswerMs, attempt.durationMs);
    }
  }
  const missing = [...sent].filter((key) => !storedCount.has(key));
  return {
    sent: sent.size,
    acknowledged: acknowledged.size,
    stored: sent.size - missing.length,
    lost: missing.length,
    lostAcknowledged: missing.filter((key) => acknowledged.has(key)),
    duplicated: [...storedCount.values()].filter((n) => n > 1).length,
    redelivered: stored.filter((event) => event.deliveries > 1).length,
    attempts,
    unanswered,
    fiveXx,
    timedOut,
    longestAnswerMs,
  };
}

/** A scenario row from a delivery audit. */
export function deliveryFigures(
  scenario: string,
  audit: DeliveryAudit,
  extra: { startedAt: number; applied?: number | null; fiveXxAllowed?: boolean; notes?: string[] },
): ScenarioFigures {
  return {
    scenario,
    sent: audit.sent,
    acknowledged: audit.acknowledged,
    stored: audit.stored,
    applied: extra.applied ?? null,
    lost: audit.lost,
    duplicated: audit.duplicated,
    badInputs: 0,
    fiveXx: audit.fiveXx,
    fiveXxAllowed: extra.fiveXxAllowed ?? false,
    longestAnswerMs: audit.longestAnswerMs,
    notes: [
      `${audit.attempts} delivery attempts, ${audit.unanswered} without an answer, ${audit.timedOut} past the sender's 5 s timeout; ${audit.redelivered} events arrived more than once and were stored once`,
      ...(extra.notes ?? []),
    ],
    durationMs: performance.now() - extra.startedAt,
  };
}
