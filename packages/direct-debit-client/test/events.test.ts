// The direct debit webhook parser and the Authorization check, on the documented payloads.
import {
  createDirectDebitWebhookVerifier,
  DirectDebitEventError,
  isChargeResult,
  parseDirectDebitEvent,
  WebhookVerificationError,
} from '@paykit/direct-debit-client';
import type { DriftReport } from '@paykit/runtime';
import { documentedFixtures } from '@paykit/testing/documented-fixtures';
import { describe, expect, it } from 'vitest';

const events = documentedFixtures('direct-debit', (file) => file.startsWith('event.'));

describe('parseDirectDebitEvent', () => {
  it('reads every documented charge_result (current, older and penny-validation forms) with no drift', () => {
    expect(events.length).toBeGreaterThanOrEqual(4);
    for (const { file, payload } of events) {
      const drift: DriftReport[] = [];
      const event = parseDirectDebitEvent(JSON.stringify(payload), { onDrift: (report) => drift.push(report) });
      expect(isChargeResult(event), file).toBe(true);
      if (!isChargeResult(event)) continue;
      expect(event.outcome, file).toBe((payload.data as { charge_result: string }).charge_result);
      expect(drift, file).toEqual([]);
    }
  });

  it('reads outcomes and ownership results case-insensitively (NO_MATCH, CONFIRMED)', () => {
    const event = parseDirectDebitEvent({
      event: 'charge_result',
      timestamp: '2026-03-29T12:01:30Z',
      data: {
        charge_id: '683b4a12-ebf9-40c2-9226-f97f4b7782ab',
        charge_result: 'CANCELED',
        charge_reference: 'x',
        ownership_verification_result: 'NO_MATCH',
      },
    });
    expect(isChargeResult(event) && [event.outcome, event.ownershipVerification]).toEqual(['canceled', 'no_match']);
  });

  it('keeps an unknown outcome and an unknown event, reporting drift instead of throwing', () => {
    const drift: DriftReport[] = [];
    const odd = parseDirectDebitEvent(
      {
        event: 'charge_result',
        timestamp: 'yesterday',
        data: { charge_id: 'abc', charge_result: 'chargeback', charge_reference: null },
      },
      { onDrift: (r) => drift.push(r) },
    );
    expect(isChargeResult(odd) && odd.outcome).toBeUndefined();
    expect(isChargeResult(odd) && odd.data.charge_result).toBe('chargeback');
    expect(drift.length).toBeGreaterThan(0);
    const other = parseDirectDebitEvent({
      event: 'instrument_verification',
      timestamp: '2026-03-29T12:01:30Z',
      data: { instrument_id: 'i' },
    });
    expect(other.event).toBe('instrument_verification');
  });

  it('refuses what is not an event with a message that says what it is', () => {
    expect(() => parseDirectDebitEvent('{')).toThrow(DirectDebitEventError);
    expect(() => parseDirectDebitEvent([1])).toThrow(/not a JSON object/);
    expect(() => parseDirectDebitEvent({ data: {} })).toThrow(/"event" field/);
  });
});

describe('createDirectDebitWebhookVerifier', () => {
  const verify = createDirectDebitWebhookVerifier(['Bearer old-value-0123456789', 'Bearer new-value-9876543210']);

  it('accepts either configured value (a rotation) and says which', () => {
    expect(verify({ authorization: 'Bearer old-value-0123456789' })).toBe(0);
    expect(verify(new Headers({ Authorization: 'Bearer new-value-9876543210' }))).toBe(1);
  });

  it('refuses a missing, wrong or repeated-different header without naming any value', () => {
    for (const headers of [
      {},
      { authorization: 'Bearer old-value-012345678' },
      { authorization: ['Bearer old-value-0123456789', 'Bearer x'] },
    ]) {
      const error = (() => {
        try {
          verify(headers);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, JSON.stringify(headers)).toBeInstanceOf(WebhookVerificationError);
      expect((error as Error).message).not.toMatch(/value-\d/);
    }
  });

  it('needs at least one non-empty value', () => {
    expect(() => createDirectDebitWebhookVerifier([])).toThrow(TypeError);
    expect(() => createDirectDebitWebhookVerifier([' '])).toThrow(TypeError);
  });
});
