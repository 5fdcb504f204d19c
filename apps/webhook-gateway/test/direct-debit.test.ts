// The direct debit route: every documented charge_result (current, older and penny-validation
// forms) is authenticated by the Authorization value the operator configured, stored before it is
// answered 200, and deduplicated; a later outcome for the same charge (a chargeback) is a new
// event, never a duplicate; a format the spec does not expect is drift, never a refusal.
import { DIRECT_DEBIT_WEBHOOK_PATH } from '@paykit/contracts';
import { documentedFixtures } from '@paykit/testing/documented-fixtures';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../src/config.ts';
import { databaseKinds, gatewayForSuite, post, testEnv } from './helpers.ts';

const CURRENT = 'dd-webhook-value-current-0123456789abcdef';
const PREVIOUS = 'dd-webhook-value-previous-fedcba9876543210';
const fixtures = documentedFixtures<{ route: string; source: { url: string }; payload: Record<string, unknown> }>(
  'direct-debit',
  (file) => file.startsWith('event.'),
);
/** null: no Authorization header at all. */
const headers = (authorization: string | null = CURRENT): Record<string, string> => ({
  'content-type': 'application/json',
  ...(authorization === null ? {} : { authorization }),
});

describe.each(databaseKinds)('direct debit deliveries on $name', (kind) => {
  const gateway = gatewayForSuite(kind, { GATEWAY_DIRECT_DEBIT_TOKENS: `${CURRENT},${PREVIOUS}` });
  const deliver = (body: unknown, authorization?: string | null) =>
    post(`${gateway().url}${DIRECT_DEBIT_WEBHOOK_PATH}`, JSON.stringify(body), headers(authorization));

  it('has the documented confirmed, declined, canceled and older forms, each routed here', () => {
    expect(fixtures.map((f) => (f.payload.data as { charge_result: string }).charge_result).sort()).toEqual([
      'canceled',
      'confirmed',
      'confirmed',
      'declined',
    ]);
    for (const fixture of fixtures) expect(fixture.route, fixture.file).toBe(DIRECT_DEBIT_WEBHOOK_PATH);
  });

  it.each(fixtures)(
    'stores $file and answers 200 with no drift; a redelivery is the same answer, stored once',
    async (fixture) => {
      const answer = await deliver(fixture.payload);
      expect(answer.status, `${fixture.file} (${fixture.source.url}): ${JSON.stringify(answer.json)}`).toBe(200);
      expect(answer.json).toMatchObject({ received: true, duplicate: false });
      const stored = await gateway().gateway.events.get(String(answer.json.seq));
      expect(stored).toMatchObject({
        source: 'direct_debit',
        eventType: 'charge_result',
        outcome: 'stored',
        answerStatus: 200,
        refundReason: null,
      });
      expect(stored!.dedupeKey).toMatch(/^direct_debit:charge_result:[0-9a-f-]{36}:(confirmed|declined|canceled):/);
      expect(stored!.transactionId).toBe((fixture.payload.data as { charge_id: string }).charge_id);
      expect(stored!.payload).toEqual(fixture.payload);
      expect(stored!.drift).toEqual([]);
      expect(stored!.headers['x-paykit-auth']).toBe('direct debit value 1 of 2');
      const again = await deliver(fixture.payload);
      expect(again).toMatchObject({ status: 200, json: { received: true, duplicate: true, seq: answer.json.seq } });
    },
  );

  it('takes a later outcome of the same charge (a chargeback after a confirmation) as a new event', async () => {
    const chargeId = '0b5c7a1e-1111-4222-8333-444455556666';
    const confirmed = {
      event: 'charge_result',
      timestamp: '2026-04-01T10:00:00.000000Z',
      data: { charge_id: chargeId, charge_result: 'confirmed', charge_reference: 'cb-1' },
    };
    const reversed = {
      event: 'charge_result',
      timestamp: '2026-04-20T10:00:00.000000Z',
      data: { charge_id: chargeId, charge_result: 'canceled', charge_reference: 'cb-1' },
    };
    const first = await deliver(confirmed);
    const second = await deliver(reversed);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.json).toMatchObject({ duplicate: false });
    expect(second.json.seq).not.toBe(first.json.seq);
  });

  it('accepts the previous value during a rotation, and refuses a missing or wrong one with 401 before reading the body', async () => {
    const body = {
      event: 'charge_result',
      timestamp: '2026-04-02T10:00:00Z',
      data: { charge_id: '0b5c7a1e-1111-4222-8333-444455550001', charge_result: 'declined', charge_reference: 'r' },
    };
    expect((await deliver(body, PREVIOUS)).status).toBe(200);
    for (const authorization of [null, 'Bearer nothing-like-it', `${CURRENT}x`]) {
      const answer = await deliver(body, authorization);
      expect(answer.status, String(authorization)).toBe(401);
      expect(JSON.stringify(answer.json)).not.toContain(CURRENT);
    }
  });

  it('stores an unexpected form with its drift (upper-case outcome, unknown event, no charge id) and answers 200', async () => {
    for (const body of [
      {
        event: 'charge_result',
        timestamp: '2026-04-03 10:00:00',
        data: {
          charge_id: '0b5c7a1e-1111-4222-8333-444455550002',
          charge_result: 'CONFIRMED',
          charge_reference: null,
          amount: 100.0,
        },
      },
      { event: 'instrument_verification', timestamp: '2026-04-03T10:00:00Z', data: { instrument_id: 'i-1' } },
      { event: 'charge_result', timestamp: '2026-04-03T10:00:00Z', data: {} },
    ]) {
      const answer = await deliver(body);
      expect(answer.status, JSON.stringify(body)).toBe(200);
      const stored = await gateway().gateway.events.get(String(answer.json.seq));
      expect(stored!.payload).toEqual(body);
      expect(stored!.drift.length, JSON.stringify(body)).toBeGreaterThan(0);
    }
  });

  it('refuses only what is no event: not JSON (400) and not an object or without event (422)', async () => {
    const url = `${gateway().url}${DIRECT_DEBIT_WEBHOOK_PATH}`;
    expect((await post(url, '{', headers())).status).toBe(400);
    expect((await post(url, '[1]', headers())).status).toBe(422);
    expect((await post(url, '{"data":{}}', headers())).status).toBe(422);
  });
});

describe('GATEWAY_DIRECT_DEBIT_TOKENS', () => {
  it('takes one or two values and refuses three or a short one, naming the variable', () => {
    expect(loadConfig(testEnv({ GATEWAY_DIRECT_DEBIT_TOKENS: CURRENT })).directDebit.authorizationValues).toEqual([
      CURRENT,
    ]);
    for (const value of [`${CURRENT},${PREVIOUS},${CURRENT}z`, 'short']) {
      expect(() => loadConfig(testEnv({ GATEWAY_DIRECT_DEBIT_TOKENS: value }))).toThrow(ConfigError);
      try {
        loadConfig(testEnv({ GATEWAY_DIRECT_DEBIT_TOKENS: value }));
      } catch (error) {
        expect((error as ConfigError).problems.join('\n')).toMatch(/GATEWAY_DIRECT_DEBIT_TOKENS/);
      }
    }
  });
});
