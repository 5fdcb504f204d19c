// The sandbox's real charge_result deliveries (its own process and delivery machinery) into the
// gateway's /webhooks/direct-debit: a charge created through the direct debit client, its outcome
// triggered on the sandbox, delivered with the Authorization value configured on both sides and
// stored once; a delivery with another value is refused 401 and nothing is stored.
import { DIRECT_DEBIT_WEBHOOK_PATH } from '@paykit/contracts';
import { createDirectDebitClient, type ChargeCreateRequest } from '@paykit/direct-debit-client';
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import { declareSecret } from '@paykit/testing/secret-audit';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { databaseKinds, startTestGateway, type TestGateway } from './helpers.ts';

const VALUE = 'Bearer dd-portal-value-sandbox-0123456789abcdef';
const OTHER_ORG = '12121212-1212-4212-8212-000000000001';
/** The documentation's inline charge (packages/contracts/fixtures/documented/direct-debit). */
const INLINE_CHARGE = documentedFixture<{ payload: ChargeCreateRequest }>(
  'direct-debit/request.charges.create.inline.json',
).payload;

describe('the sandbox delivering charge_result to the gateway', () => {
  let sandbox: SandboxProcess;
  let t: TestGateway | undefined;
  let apiKey: string;
  let orgId: string;

  beforeAll(async () => {
    declareSecret(VALUE);
    sandbox = await startSandboxProcess();
    t = await startTestGateway(databaseKinds[0]!, { env: { GATEWAY_DIRECT_DEBIT_TOKENS: VALUE } });
    const seed = await sandbox.control.getSeed();
    if (seed.status !== 200 || !seed.body.directDebit)
      throw new Error('the sandbox seed has no direct debit organisation');
    orgId = seed.body.directDebit.orgId;
    apiKey = seed.body.directDebit.apiKeys[0]!;
    const url = `${t.url}${DIRECT_DEBIT_WEBHOOK_PATH}`;
    expect(
      (
        await sandbox.control.addSeed({
          body: {
            directDebit: {
              orgId,
              apiKeys: [],
              customers: [],
              instruments: [],
              webhook: { url, authorization: VALUE, form: 'current' },
            },
          },
        })
      ).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  it('stores the confirmed charge once, with the charge id as its transaction', async () => {
    const dd = createDirectDebitClient({ environment: 'sandbox', baseUrl: sandbox.urls['direct-debit'], apiKey });
    const charge = await dd.charges.create({ ...INLINE_CHARGE, reference: 'e2e-0001' });
    const triggered = await sandbox.control.triggerChargeResult({
      params: { chargeId: charge.id },
      body: { result: 'confirmed' },
    });
    expect(triggered.status).toBe(200);
    const events = await vi.waitFor(
      async () => {
        const found = (await t!.gateway.events.list({ eventType: 'charge_result', limit: 100 })).filter(
          (e) => e.transactionId === charge.id,
        );
        expect(found).toHaveLength(1);
        return found;
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(events[0]).toMatchObject({ source: 'direct_debit', outcome: 'stored', answerStatus: 200, drift: [] });
    expect((events[0]!.payload as { data: { charge_result: string; charge_reference: string } }).data).toMatchObject({
      charge_result: 'confirmed',
      charge_reference: 'e2e-0001',
    });
    const deliveries = await sandbox.control.listDeliveries({ query: { eventType: 'charge_result' } });
    expect(
      deliveries.status === 200 &&
        deliveries.body.deliveries.find(
          (d) => d.body && (d.body as { data: { charge_id: string } }).data.charge_id === charge.id,
        )?.state,
    ).toBe('delivered');
  });

  it('a delivery with another Authorization value is refused 401 and stored nowhere', async () => {
    const other = 'dd_sandbox_key_other_0000000000001';
    await sandbox.control.addSeed({
      body: {
        directDebit: {
          orgId: OTHER_ORG,
          apiKeys: [other],
          customers: [],
          instruments: [],
          webhook: {
            url: `${t!.url}${DIRECT_DEBIT_WEBHOOK_PATH}`,
            authorization: 'Bearer not-the-configured-value-000000000000',
            form: 'older',
          },
        },
      },
    });
    const dd = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: sandbox.urls['direct-debit'],
      apiKey: other,
    });
    const charge = await dd.charges.create({ ...INLINE_CHARGE, reference: 'e2e-0002' });
    await sandbox.control.triggerChargeResult({ params: { chargeId: charge.id }, body: { result: 'declined' } });
    const deliveries = await sandbox.control.listDeliveries({ query: { clientId: OTHER_ORG } });
    expect(deliveries.status === 200 && deliveries.body.deliveries[0]!.attempts[0]!.status).toBe(401);
    expect(
      (await t!.gateway.events.list({ eventType: 'charge_result', limit: 100 })).filter(
        (e) => e.transactionId === charge.id,
      ),
    ).toEqual([]);
  });
});
