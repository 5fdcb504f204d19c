// Direct debit deliveries: who may deliver, and what a delivery is. The platform's webhooks guide
// says each delivery carries an Authorization header whose value the operator sets in the portal,
// and shows no signature of the body; so the check is that value, compared in constant time with
// the configured ones (two during a rotation). A delivery is `{event, timestamp, data}`: read
// tolerantly, every difference from the spec reported as drift, never refused for its format.
// The events carry no id of their own: a delivery is deduplicated by its type, charge id, outcome
// and timestamp (`direct_debit:<type>:<charge_id>:<outcome>:<timestamp>`), or by its exact bytes
// when it names no charge.
import { createHash } from 'node:crypto';
import { createDirectDebitWebhookVerifier, parseDirectDebitEvent } from '@paykit/direct-debit-client';
import { describeValue, formatPath, WebhookVerificationError, type HeaderSource } from '@paykit/runtime';
import type { DriftNote } from '@paykit/store';
import type { AuthResult } from './auth.ts';
import type { GatewayConfig } from './config.ts';
import { readJsonObject, type Evaluation, type Refusal } from './evaluate.ts';

/** The check of direct debit deliveries, its values digested once at start-up. */
export function directDebitAuthenticator(config: GatewayConfig['directDebit']): (headers: HeaderSource) => AuthResult {
  const count = config.authorizationValues.length;
  if (count === 0) {
    const refusal: AuthResult = {
      ok: false,
      message:
        'This gateway takes no direct debit deliveries: no Authorization value is configured (GATEWAY_DIRECT_DEBIT_TOKENS).',
    };
    return () => refusal;
  }
  const verify = createDirectDebitWebhookVerifier(config.authorizationValues);
  return (headers) => {
    try {
      return { ok: true, by: `direct debit value ${verify(headers) + 1} of ${count}` };
    } catch (error) {
      if (error instanceof WebhookVerificationError)
        return { ok: false, message: `Not authenticated: ${error.message}.` };
      throw error;
    }
  };
}

/** The event types the direct debit spec documents (its `webhooks`): charge_result, chargebacks included. */
export const DIRECT_DEBIT_EVENT_TYPES = ['charge_result'] as const;

const STORED = { outcome: 'stored', answerStatus: 200, reason: null, refundReason: null, rule: null } as const;

const text = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value !== '' ? value.slice(0, max) : null;

/** An authenticated direct debit delivery. */
export function evaluateDirectDebit(raw: Uint8Array): Evaluation | Refusal {
  const read = readJsonObject(raw, 'direct debit');
  if (read.refused) return read;
  const record = read.value;
  const name = text(record.event, 64);
  if (name === null) {
    return {
      refused: true,
      status: 422,
      error: 'not_an_event',
      message: `A direct debit delivery is {event, timestamp, data}; this body has ${record.event === undefined ? 'no event field' : `an event of type ${typeof record.event}`}.`,
    };
  }
  const drift: DriftNote[] = [];
  parseDirectDebitEvent(record, {
    onDrift: (report) =>
      drift.push({ path: formatPath(report.path), kind: report.kind, expected: report.expected, seen: report.seen }),
  });
  const eventType = name.toLowerCase();
  if (!(DIRECT_DEBIT_EVENT_TYPES as readonly string[]).includes(eventType))
    drift.push({
      path: 'event',
      kind: 'mismatch',
      expected: DIRECT_DEBIT_EVENT_TYPES.join(', '),
      seen: describeValue(name),
    });
  const data =
    record.data !== null && typeof record.data === 'object' && !Array.isArray(record.data)
      ? (record.data as Record<string, unknown>)
      : {};
  const chargeId = text(data.charge_id, 128)?.toLowerCase() ?? null;
  const outcome = text(data.charge_result, 32)?.toLowerCase() ?? 'none';
  const timestamp = text(record.timestamp, 64) ?? 'none';
  // A chargeback comes as another charge_result for the same charge (no event type of its own):
  // the outcome and the event's time are in the key so a later event is never taken for a
  // redelivery of an earlier one and dropped. Storing a redelivery twice is the lesser risk: the
  // charge's outcome is applied once whatever the number of rows.
  const dedupeKey = chargeId
    ? `direct_debit:${eventType}:${chargeId}:${outcome}:${timestamp}`
    : `direct_debit:${eventType}:sha256:${createHash('sha256').update(raw).digest('hex')}`;
  return {
    source: 'direct_debit',
    eventType,
    dedupeKey,
    idMsg: null,
    transactionId: chargeId,
    operationId: null,
    payload: record,
    drift,
    decision: STORED,
  };
}
