// The control API over real HTTP, through its typed ts-rest client.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, type Sandbox } from '../src/index.ts';
import { call, controlClient, startTestSandbox } from './helpers.ts';

describe('the control API', () => {
  let sandbox: Sandbox;
  let control: ReturnType<typeof controlClient>;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
    control = controlClient(sandbox);
  });
  afterEach(() => sandbox.close());

  const billpayAccount = (token = 'bp_sandbox_token_acme_000000000001') =>
    call(`${sandbox.urls.billpay}/api/v1/client/account`, { headers: { authorization: `Bearer ${token}` } });

  it('returns the seed the sandbox was started with', async () => {
    const { status, body } = await control.getSeed();
    expect(status).toBe(200);
    if (status !== 200) return;
    expect(body.core.clients.map((c) => c.clientId)).toEqual([CLIENT_ID]);
    expect(body.bearer.billpay).toEqual(['bp_sandbox_token_acme_000000000001']);
  });

  it('moves the clock forward, and refuses to move it back', async () => {
    const before = await control.getClock();
    expect(before.body).toMatchObject({ now: '2026-05-07T18:00:00.000Z', mode: 'manual' });
    const advanced = await control.advanceClock({ body: { seconds: 90 } });
    expect(advanced.body).toMatchObject({ now: '2026-05-07T18:01:30.000Z' });
    const set = await control.setClock({ body: { at: '2026-05-08T00:00:00-06:00' } });
    expect(set.body).toMatchObject({ now: '2026-05-08T06:00:00.000Z' });
    const back = await control.setClock({ body: { at: '2026-05-07T00:00:00Z' } });
    expect(back.status).toBe(400);
    expect(back.body).toMatchObject({ error: expect.stringContaining('only moves forward') });
  });

  it('rejects a malformed control request with 400 and says what is wrong', async () => {
    const response = await call(`${sandbox.url}/_sandbox/clock/advance`, { body: { seconds: -5 } });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('seconds');
  });

  it('injects 5xx into the products it names, and only those', async () => {
    await control.setFaults({
      body: {
        api: { errorRate: 1, latencyMs: 0, products: ['billpay'] },
        deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
      },
    });
    const failed = await billpayAccount();
    expect(failed.status).toBe(500);
    expect(failed.body.error).toContain('Injected fault');
    const lottery = await call(`${sandbox.urls.lottery}/api/v1/client/account`, {
      headers: { authorization: 'Bearer lt_sandbox_token_acme_000000000001' },
    });
    expect(lottery.status).toBe(200);
    await control.setFaults({
      body: {
        api: { errorRate: 0, latencyMs: 0 },
        deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
      },
    });
    expect((await billpayAccount()).status).toBe(200);
  });

  it('adds latency to the platform API', async () => {
    await control.setFaults({
      body: {
        api: { errorRate: 0, latencyMs: 150 },
        deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
      },
    });
    const started = performance.now();
    expect((await billpayAccount()).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('counts requests per operation', async () => {
    await billpayAccount();
    await billpayAccount('wrong-token-0000000000');
    const { body } = await control.getCounters();
    expect(body).toMatchObject({ requests: { 'GET /billpay/api/v1/client/account': 2 } });
  });

  it('adds to the seed without forgetting state, and reset goes back to the start seed', async () => {
    expect((await billpayAccount('bp_added_token_00000000000000001')).status).toBe(401);
    const added = await control.addSeed({
      body: { bearer: { billpay: ['bp_added_token_00000000000000001'], 'gift-cards': [], lottery: [] } },
    });
    expect(added.status).toBe(200);
    expect((await billpayAccount('bp_added_token_00000000000000001')).status).toBe(200);
    expect((await billpayAccount()).status).toBe(200);
    await control.reset({ body: {} });
    expect((await billpayAccount('bp_added_token_00000000000000001')).status).toBe(401);
    expect((await control.getSeed()).body).toMatchObject({
      bearer: { billpay: ['bp_sandbox_token_acme_000000000001'] },
    });
  });

  it('lists deliveries, empty at start', async () => {
    const { status, body } = await control.listDeliveries({ query: {} });
    expect(status).toBe(200);
    expect(body).toEqual({ deliveries: [] });
  });
});
