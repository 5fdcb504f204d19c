// charge_result deliveries: a charge created over the API reaches its outcome through the control
// API, and its event goes to the organisation's webhook with the configured Authorization value,
// in the current documented form (every field, unrelated ones null) or the older one; the
// delivery machinery redelivers an answer other than 2xx.
import { zChargeResultEvent } from '@paykit/direct-debit-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/index.ts';
import { call, controlClient, startReceiver, startTestSandbox, type Receiver } from './helpers.ts';

const KEY = 'dd_sandbox_key_acme_00000000000001';
const ORG = '77777777-7777-4777-8777-000000000001';
const AUTHORIZATION = 'Bearer dd-portal-value-0123456789abcdef0123';
const INLINE = {
  currency: 'mxn',
  amount: 100,
  reference: 'subscription-0235',
  inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
  inline_customer: { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' },
};

describe('direct debit charge_result deliveries', () => {
  let sandbox: Sandbox;
  let hooks: Receiver;
  const control = () => controlClient(sandbox);
  const charge = async (): Promise<string> => {
    const response = await call(`${sandbox.urls['direct-debit']}/charges`, {
      headers: { 'x-api-key': KEY },
      body: INLINE,
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  const configure = async (form: 'current' | 'older' = 'current') =>
    expect(
      (
        await control().addSeed({
          body: {
            directDebit: {
              orgId: ORG,
              apiKeys: [],
              customers: [],
              instruments: [],
              webhook: { url: `${hooks.url}/dd`, authorization: AUTHORIZATION, form },
            },
          },
        })
      ).status,
    ).toBe(200);

  beforeEach(async () => {
    sandbox = await startTestSandbox();
    hooks = await startReceiver();
  });
  afterEach(async () => {
    await sandbox.close();
    await hooks.close();
  });

  it.each(['confirmed', 'declined', 'canceled'] as const)(
    'delivers a %s charge_result with every field, unrelated ones null, and the Authorization value',
    async (result) => {
      await configure();
      const id = await charge();
      const answer = await control().triggerChargeResult({
        params: { chargeId: id },
        body: { result, ...(result === 'canceled' ? { ownershipVerificationResult: 'NO_MATCH' } : {}) },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ chargeId: id, status: result, deliveryIds: [expect.any(String)] });
      expect(hooks.requests).toHaveLength(1);
      const [request] = hooks.requests;
      expect(request!.headers.authorization).toBe(AUTHORIZATION);
      expect(zChargeResultEvent.safeParse(request!.json).success).toBe(true);
      const data = (request!.json as { data: Record<string, unknown> }).data;
      expect(Object.keys(data).sort()).toEqual(
        [
          'charge_id',
          'charge_result',
          'charge_reference',
          'debt_id',
          'declined_reason',
          'risk_status',
          'risk_reason',
          'ownership_verification_result',
          'ownership_verification_result_at',
          'ownership_information',
        ].sort(),
      );
      expect(data).toMatchObject({
        charge_id: id,
        charge_result: result,
        charge_reference: 'subscription-0235',
        declined_reason: result === 'declined' ? 'insufficient_funds' : null,
      });
      expect(data.ownership_verification_result).toBe(result === 'canceled' ? 'NO_MATCH' : null);
    },
  );

  it('sends the older form when the webhook asks for it', async () => {
    await configure('older');
    const id = await charge();
    await control().triggerChargeResult({ params: { chargeId: id }, body: { result: 'confirmed' } });
    expect(hooks.requests[0]!.json).toEqual({
      event: 'charge_result',
      timestamp: expect.any(String),
      data: { charge_id: id, charge_result: 'confirmed', charge_reference: 'subscription-0235' },
    });
  });

  it('redelivers after an answer other than 2xx, and refuses a second outcome (409) or an unknown charge (404)', async () => {
    await configure();
    hooks.answer = () => ({ status: 503 });
    const id = await charge();
    await control().triggerChargeResult({ params: { chargeId: id }, body: { result: 'confirmed' } });
    expect(hooks.requests).toHaveLength(1);
    hooks.answer = () => ({ status: 200 });
    await control().advanceClock({ body: { seconds: 10 } });
    expect(hooks.requests).toHaveLength(2);
    expect(hooks.requests[1]!.raw.equals(hooks.requests[0]!.raw)).toBe(true);
    expect(
      (await control().triggerChargeResult({ params: { chargeId: id }, body: { result: 'canceled' } })).status,
    ).toBe(409);
    expect(
      (
        await control().triggerChargeResult({
          params: { chargeId: '99999999-9999-4999-8999-999999999999' },
          body: { result: 'confirmed' },
        })
      ).status,
    ).toBe(404);
  });

  it('records the outcome on the charge and delivers nothing when no webhook is configured', async () => {
    const id = await charge();
    const answer = await control().triggerChargeResult({
      params: { chargeId: id },
      body: { result: 'declined', declinedReason: 'account_closed' },
    });
    expect(answer.body).toMatchObject({ status: 'declined', deliveryIds: [] });
    expect(sandbox.products.directDebit.charges.get(id)).toMatchObject({
      status: 'declined',
      declined_reason: 'account_closed',
      result_at: expect.any(String),
    });
    expect(hooks.requests).toHaveLength(0);
  });
});
