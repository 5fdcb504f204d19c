// A seeded run is repeatable: the same seed and the same calls give the same ids, tokens,
// references and deliveries; another seed gives others.
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, DEFAULT_SEED, type Sandbox } from '../src/index.ts';
import { call, controlClient, startReceiver, startTestSandbox, type Receiver } from './helpers.ts';

const client = DEFAULT_SEED.core.clients[0]!;

async function scenario(randomSeed: string, opened: { sandboxes: Sandbox[]; receivers: Receiver[] }) {
  const sandbox = await startTestSandbox({ randomSeed });
  const receiver = await startReceiver();
  opened.sandboxes.push(sandbox);
  opened.receivers.push(receiver);
  const control = controlClient(sandbox);
  const core = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${sandbox.urls.core}${path}`, init);

  const token = await core(`/v1/clients/${CLIENT_ID}/auth/credential-tokens`, {
    headers: { 'x-api-key': client.apiKeys.staging },
    body: { client_id: CLIENT_ID, client_secret: client.credentials[0]!.clientSecret },
  });
  const bearer = { authorization: `Bearer ${token.body.token}` };
  for (const type of ['MONEY_IN', 'STATUS_UPDATE', 'CEP', 'REFUND']) {
    await core(`/v1/clients/${CLIENT_ID}/webhooks`, {
      headers: bearer,
      body: {
        client_id: CLIENT_ID,
        url: `${receiver.url}/${type}`,
        token: 'w'.repeat(40),
        webhook_type: type,
        auth_type: 'AUTH',
      },
    });
  }
  const penny = await core('/v1/transactions/penny_validation', {
    headers: bearer,
    body: {
      client_id: CLIENT_ID,
      source_instrument_id: '66666666-6666-4666-8666-000000000001',
      destination_instrument_id: '66666666-6666-4666-8666-000000000004',
    },
  });
  const transfer = await core('/v1/transactions/money_out', {
    headers: bearer,
    body: {
      client_id: CLIENT_ID,
      source_instrument_id: '66666666-6666-4666-8666-000000000001',
      destination_instrument_id: '66666666-6666-4666-8666-000000000005',
      transaction_request: { amount: '99.90', currency: 'MXN' },
    },
  });
  const credit = await control.triggerIncomingSpei({
    body: { beneficiaryClabe: '646180000000000012', amount: '1234.56' },
  });
  const cash = await control.createCashOperation({
    body: { type: 'cash_in', amount: 500, externalUserId: 'u-1', closedReference: true },
  });
  await control.advanceClock({ body: { seconds: 3600 } });
  const deliveries = await control.listDeliveries({ query: {} });
  return {
    token: token.body.token,
    penny: penny.body.id,
    trackingId: penny.body.trackingId,
    transfer: transfer.body.id,
    credit: credit.body,
    cash: cash.body,
    events:
      deliveries.status === 200
        ? deliveries.body.deliveries.map((d) => ({
            eventType: d.eventType,
            eventId: d.eventId,
            body: d.body,
            state: d.state,
          }))
        : [],
  };
}

describe('a seeded run', () => {
  const opened: { sandboxes: Sandbox[]; receivers: Receiver[] } = { sandboxes: [], receivers: [] };
  afterEach(async () => {
    await Promise.all(opened.sandboxes.splice(0).map((s) => s.close()));
    await Promise.all(opened.receivers.splice(0).map((r) => r.close()));
  });

  it('repeats exactly with the same seed', async () => {
    const first = await scenario('repeatable', opened);
    const second = await scenario('repeatable', opened);
    expect(first.events.length).toBeGreaterThanOrEqual(5);
    expect(first.events.every((e) => e.state === 'delivered')).toBe(true);
    expect(second).toEqual(first);
  });

  it('differs with another seed', async () => {
    const first = await scenario('one', opened);
    const second = await scenario('two', opened);
    expect(second.token).not.toBe(first.token);
    expect(second.penny).not.toBe(first.penny);
    expect(second.events.map((e) => e.eventId)).not.toEqual(first.events.map((e) => e.eventId));
  });
});
