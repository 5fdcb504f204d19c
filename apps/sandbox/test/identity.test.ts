// Identity across sandbox processes: a store (the gateway's, the ledger) outlives a sandbox, so
// whatever a receiver deduplicates on (id_msg, transaction ids, `<operation_id>:<event>` for
// cash, a REPORT's file_name) must never come back from a later start, nor after a reset.
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, DEFAULT_SEED, startSandbox, type Sandbox } from '../src/index.ts';
import { call, controlClient, startReceiver, T0, type Receiver } from './helpers.ts';

const client = DEFAULT_SEED.core.clients[0]!;

/** What one run issues that a receiver deduplicates on. */
async function issue(sandbox: Sandbox, receiver: Receiver): Promise<string[]> {
  const control = controlClient(sandbox);
  const core = (path: string, init: Parameters<typeof call>[1] = {}) => call(`${sandbox.urls.core}${path}`, init);
  const token = await core(`/v1/clients/${CLIENT_ID}/auth/credential-tokens`, {
    headers: { 'x-api-key': client.apiKeys.staging },
    body: { client_id: CLIENT_ID, client_secret: client.credentials[0]!.clientSecret },
  });
  for (const type of ['MONEY_IN', 'REPORT']) {
    await core(`/v1/clients/${CLIENT_ID}/webhooks`, {
      headers: { authorization: `Bearer ${token.body.token}` },
      body: {
        client_id: CLIENT_ID,
        url: `${receiver.url}/${type}`,
        token: 'w'.repeat(40),
        webhook_type: type,
        auth_type: 'AUTH',
      },
    });
  }
  const ids: string[] = [];
  const credit = await control.triggerIncomingSpei({
    body: { beneficiaryClabe: '646180000000000012', amount: '10.00' },
  });
  if (credit.status !== 200) throw new Error(`incoming SPEI: ${credit.status}`);
  ids.push(`tx ${credit.body.transactionId}`, `tracking ${credit.body.trackingKey}`);
  const report = await control.triggerReport({
    body: { clientId: CLIENT_ID, fileType: 'TRANSACTIONS', period: 'DAILY' },
  });
  if (report.status !== 200) throw new Error(`report: ${report.status}`);
  ids.push(`report ${report.body.fileName}`);
  const cash = await control.createCashOperation({
    body: { type: 'cash_in', amount: 500, externalUserId: 'u-1', closedReference: true },
  });
  if (cash.status !== 200) throw new Error(`cash operation: ${cash.status}`);
  ids.push(`cash ${cash.body.operation_id}`);
  const deliveries = await control.listDeliveries({ query: {} });
  if (deliveries.status !== 200) throw new Error(`deliveries: ${deliveries.status}`);
  ids.push(...deliveries.body.deliveries.map((d) => `event ${d.eventId}`));
  return ids;
}

describe('ids across sandbox processes', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((o) => o.close()));
  });
  const start = async (randomSeed?: string) => {
    const sandbox = await startSandbox({
      port: 0,
      clock: { mode: 'manual', start: T0 },
      ...(randomSeed ? { randomSeed } : {}),
    });
    opened.push(sandbox);
    const receiver = await startReceiver();
    opened.push(receiver);
    return { sandbox, receiver };
  };

  it('never repeat between two starts on the default seed, on the same day', async () => {
    const first = await start();
    const second = await start();
    expect(second.sandbox.randomSeed).not.toBe(first.sandbox.randomSeed);
    const a = await issue(first.sandbox, first.receiver);
    const b = await issue(second.sandbox, second.receiver);
    expect(a.filter((id) => id.startsWith('event ')).length).toBe(2);
    expect(b.filter((id) => b.includes(id) && a.includes(id))).toEqual([]);
  });

  it('never repeat after a reset, even on a fixed seed', async () => {
    const { sandbox, receiver } = await start('fixed');
    const a = await issue(sandbox, receiver);
    const reset = await controlClient(sandbox).reset({ body: {} });
    expect(reset.status).toBe(200);
    const b = await issue(sandbox, receiver);
    expect(b.filter((id) => a.includes(id))).toEqual([]);
  });

  it('counts cash operation ids up from a start of their own, a safe integer', async () => {
    const { sandbox } = await start();
    const control = controlClient(sandbox);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await control.createCashOperation({ body: { type: 'cash_in', amount: 1, externalUserId: 'u' } });
      if (answer.status !== 200) throw new Error(`cash operation: ${answer.status}`);
      ids.push(answer.body.operation_id);
    }
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect(ids).toEqual([ids[0], ids[0]! + 1, ids[0]! + 2]);
  });
});
