// Metric labels take known values only: cash and direct debit deliveries name their own event type
// in the body, so 400 signed deliveries with 400 invented names must leave the number of series of
// gateway_events_total, gateway_drift_total and gateway_duplicates_total where one unknown name
// leaves it (each counted under type="other"), while the documented types keep their own label.
import { DIRECT_DEBIT_WEBHOOK_PATH } from '@paykit/contracts';
import { describe, expect, it } from 'vitest';
import { eventTypeLabel } from '../src/metrics.ts';
import { cashEvent, cashHeaders, databaseKinds, gatewayForSuite, post } from './helpers.ts';

const DD_TOKEN = 'dd-webhook-value-current-0123456789abcdef';
const LABELLED = /^gateway_(events|drift|duplicates)_total\{/;

describe('the type label', () => {
  it('is the documented event type, or other', () => {
    expect(eventTypeLabel('core', 'MONEY_IN')).toBe('MONEY_IN');
    expect(eventTypeLabel('cash', 'webhook.paid.success')).toBe('webhook.paid.success');
    expect(eventTypeLabel('cash', 'webhook.activation')).toBe('webhook.activation');
    expect(eventTypeLabel('direct_debit', 'charge_result')).toBe('charge_result');
    for (const [source, type] of [
      ['cash', 'webhook.paid.success2'],
      ['cash', 'MONEY_IN'],
      ['direct_debit', 'charge_refund'],
      ['core', 'constructor'],
      ['cash', '__proto__'],
      ['direct_debit', ''],
    ] as const)
      expect(eventTypeLabel(source, type), `${source} ${type}`).toBe('other');
  });
});

describe(`metric series under invented event names (${databaseKinds[0]!.name})`, () => {
  const gateway = gatewayForSuite(databaseKinds[0]!, { GATEWAY_DIRECT_DEBIT_TOKENS: DD_TOKEN });
  const series = async () =>
    (await (await fetch(`${gateway().url}/metrics`)).text()).split('\n').filter((line) => LABELLED.test(line));
  const cash = async (event: string) => {
    const raw = JSON.stringify(cashEvent({ event }));
    return post(`${gateway().url}/webhooks/cash`, raw, cashHeaders(raw));
  };
  const directDebit = (event: string, chargeId: string) =>
    post(
      `${gateway().url}${DIRECT_DEBIT_WEBHOOK_PATH}`,
      JSON.stringify({
        event,
        timestamp: '2026-11-21T10:00:00Z',
        data: { charge_id: chargeId, charge_result: 'confirmed', charge_reference: 'ref-1' },
      }),
      { 'content-type': 'application/json', authorization: DD_TOKEN },
    );

  it('keeps the series bounded: every unknown name is type="other"', async () => {
    expect((await cash('webhook.paid.success')).status).toBe(200);
    expect((await directDebit('charge_result', '11111111-1111-4111-8111-000000000001')).status).toBe(200);
    // One invented name of each source, stored and then redelivered: every series "other" can have.
    expect((await cash('invented.first')).status).toBe(200);
    const ddFirst = await directDebit('invented_first', '11111111-1111-4111-8111-000000000002');
    expect(ddFirst.status).toBe(200);
    expect((await directDebit('invented_first', '11111111-1111-4111-8111-000000000002')).json).toMatchObject({
      duplicate: true,
    });
    const before = await series();

    const invented = 400;
    for (let batch = 0; batch < invented; batch += 20) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const n = batch + i;
          return n % 2 === 0
            ? cash(`invented.${n}.${'x'.repeat(n % 50)}`)
            : directDebit(`invented_${n}`, `11111111-1111-4111-8111-${String(n).padStart(12, '0')}`);
        }),
      );
      for (const answer of answers) expect(answer.status).toBe(200);
    }
    const after = await series();

    expect(after.length, after.join('\n')).toBe(before.length);
    expect(after.every((line) => !/invented/.test(line))).toBe(true);
    expect(after.join('\n')).toMatch(/gateway_events_total\{source="cash",type="other",outcome="stored"\} 201/);
    expect(after.join('\n')).toMatch(/gateway_drift_total\{source="direct_debit",type="other"\} 201/);
    expect(after.join('\n')).toMatch(
      /gateway_events_total\{source="cash",type="webhook.paid.success",outcome="stored"\} 1/,
    );
    expect(after.join('\n')).toMatch(
      /gateway_events_total\{source="direct_debit",type="charge_result",outcome="stored"\} 1/,
    );
  });
});
