// Direct debit webhook deliveries: `{event, timestamp, data}`, typed for `charge_result` (the
// current form with every field, unrelated ones null, and the older form with only charge_id,
// charge_result and charge_reference). Read tolerantly: a field the spec does not know, or a value
// in an unexpected format, is reported to onDrift and still returned. Enum case varies in the
// platform's documentation (`matched`, `NO_MATCH`), so outcomes are read case-insensitively.
import {
  PaykitError,
  WebhookVerificationError,
  constantTimeEqual,
  readTolerantly,
  webhookJson,
  type DriftOptions,
  type HeaderSource,
} from '@paykit/runtime';
import type { ChargeResultData, DirectDebitWebhookEvent } from './generated/types.gen.ts';
import { zChargeResultEvent, zDirectDebitWebhookEvent } from './generated/zod.gen.ts';

/** The final outcomes of a charge, lowercase. */
export const CHARGE_OUTCOMES = ['confirmed', 'declined', 'canceled'] as const;
export type ChargeOutcome = (typeof CHARGE_OUTCOMES)[number];

export interface ChargeResult {
  event: 'charge_result';
  timestamp: string;
  data: ChargeResultData;
  /** `data.charge_result` lowercased when it is one of the three outcomes; undefined for a value this version does not know (kept in `data`). */
  outcome: ChargeOutcome | undefined;
  /** `data.ownership_verification_result` lowercased (`matched`, `no_match`, `errored`…), or null. */
  ownershipVerification: string | null;
}

/** Any other event name: kept whole, so nothing the platform sent is lost. */
export interface OtherDirectDebitEvent extends DirectDebitWebhookEvent {
  event: string;
}

export type DirectDebitEvent = ChargeResult | OtherDirectDebitEvent;

/** A delivery that is not a direct debit event at all (not JSON, not an object, no `event`). */
export class DirectDebitEventError extends PaykitError {}

const lower = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value.toLowerCase() : null;

/** True for a `charge_result` event whatever its case (`CHARGE_RESULT` too). */
export function isChargeResult(event: DirectDebitEvent): event is ChargeResult {
  return event.event === 'charge_result';
}

/**
 * Types a direct debit delivery by its `event`. `body` is the parsed JSON or the raw body (string
 * or bytes). Authenticate first (createDirectDebitWebhookVerifier). Throws DirectDebitEventError
 * only for a body that is not a JSON object with a string `event`.
 */
export function parseDirectDebitEvent(body: unknown, options?: DriftOptions): DirectDebitEvent {
  const data = webhookJson(
    body,
    () =>
      new DirectDebitEventError(
        'The direct debit delivery body is not JSON. Pass the raw request body (string or bytes) or the parsed object.',
      ),
  );
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new DirectDebitEventError(
      'The direct debit delivery body is not a JSON object; an event is {event, timestamp, data}.',
    );
  }
  const name = (data as { event?: unknown }).event;
  if (typeof name !== 'string' || name === '') {
    throw new DirectDebitEventError(
      `A direct debit delivery has a string "event" field (charge_result); this body has ${name === undefined ? 'none' : `a ${typeof name}`}.`,
    );
  }
  if (name.toLowerCase() !== 'charge_result') {
    return readTolerantly(
      zDirectDebitWebhookEvent,
      data,
      { product: 'direct-debit', operation: `event ${name.slice(0, 64)}` },
      options,
    ) as OtherDirectDebitEvent;
  }
  const read = readTolerantly(
    zChargeResultEvent,
    data,
    { product: 'direct-debit', operation: 'event charge_result' },
    options,
  );
  const result = lower(read.data?.charge_result);
  return {
    ...read,
    event: 'charge_result',
    outcome: (CHARGE_OUTCOMES as readonly string[]).includes(result ?? '') ? (result as ChargeOutcome) : undefined,
    ownershipVerification: lower(read.data?.ownership_verification_result),
  };
}

/**
 * paykit's check of who delivers: the platform's webhooks guide says each delivery carries an
 * `Authorization` header whose value the operator sets in the portal, and shows no signature of
 * the body. This accepts a delivery whose Authorization value equals one of `acceptedValues`
 * (two during a rotation), compared in constant time against every value so the timing does not
 * tell which matched. Returns the index of the value that matched; throws WebhookVerificationError
 * (never naming a value) otherwise.
 */
export function createDirectDebitWebhookVerifier(acceptedValues: readonly string[]): (headers: HeaderSource) => number {
  if (
    !Array.isArray(acceptedValues) ||
    acceptedValues.length === 0 ||
    acceptedValues.some((v) => typeof v !== 'string' || v.trim() === '')
  ) {
    throw new TypeError(
      'createDirectDebitWebhookVerifier: pass at least one non-empty Authorization value (the one configured in the portal; two during a rotation).',
    );
  }
  const accepted = acceptedValues.map((value) => value.trim());
  return (headers) => {
    const given = authorizationOf(headers);
    let matched = -1;
    accepted.forEach((value, index) => {
      if (constantTimeEqual(given, value) && matched < 0) matched = index;
    });
    if (matched < 0) {
      throw new WebhookVerificationError(
        'mismatch',
        'the Authorization header matches none of the configured direct debit values: check the value set for this endpoint in the portal (and, during a rotation, that both values are accepted)',
      );
    }
    return matched;
  };
}

function authorizationOf(headers: HeaderSource): string {
  let values: string[];
  if (headers instanceof Headers) {
    const value = headers.get('authorization');
    values = value === null ? [] : [value];
  } else {
    values = [];
    for (const [name, value] of Object.entries(headers)) {
      if (name.toLowerCase() !== 'authorization' || value === undefined) continue;
      values.push(...(Array.isArray(value) ? value : [value]));
    }
  }
  const distinct = [...new Set(values.map((value) => value.trim()))];
  if (distinct.length === 0 || distinct[0] === '')
    throw new WebhookVerificationError(
      'missing-header',
      'the Authorization header is missing; direct debit deliveries carry the value configured in the portal',
    );
  if (distinct.length > 1)
    throw new WebhookVerificationError('malformed', 'the Authorization header is repeated with different values');
  return distinct[0]!;
}
