// The CEP lookup of a penny validation on the sandbox clock (INITIALIZED → PENDING → outcome),
// the control API's DELAYED / COMPLETED / FAILED, and the CEP events a real receiver gets.
import { zCepEvent, zCreatePennyValidationResponse } from '@paykit/core-client/zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../src/index.ts';
import {
  ACME,
  at,
  bootCore,
  CLIENT,
  deliveriesAt,
  SUPPLIER_BBVA,
  transferBody,
  UNKNOWN,
  type CoreHarness,
} from './core-helpers.ts';
import { call, T0, type Receiver } from './helpers.ts';

const KEY = '5d0c8b1e-2f4a-5b6c-8d7e-9f0a1b2c3d4e';

let core: CoreHarness;
let receiver: Receiver;

/** A sandbox with a token from the real routes and a CEP webhook at a real receiver. */
async function start(options: SandboxOptions = {}): Promise<void> {
  core = await bootCore(options);
  receiver = await core.receiver();
  await core.registerWebhook('CEP', `${receiver.url}/cep`);
}
afterEach(() => core.close());

/** Creates (or, with the same key and payload, reads again) the penny validation. */
const penny = () =>
  call(`${core.sandbox.urls.core}/v1/transactions/penny_validation`, {
    method: 'POST',
    headers: { ...core.bearer(), 'idempotency-key': KEY },
    body: { client_id: CLIENT, source_instrument_id: ACME, destination_instrument_id: SUPPLIER_BBVA },
  });

/** The CEP events received, each checked for the registered bearer token and against zCepEvent. */
function cepEvents() {
  for (const r of receiver.requests) expect(r.url).toBe('/cep');
  return deliveriesAt(receiver, '/cep', zCepEvent);
}

describe('CEP lookup on the sandbox clock', () => {
  it('PENDING after cepPendingAfterSeconds, COMPLETED cepOutcomeAfterSeconds later, with processed_at and a CEP document URL', async () => {
    await start();
    const created = await penny();
    expect(created.status).toBe(200);
    const { id, trackingId } = created.body;
    const validationId = created.body.metadata.dataCep.validationId as string;

    await core.advance(1);
    expect(receiver.requests).toEqual([]);
    await core.advance(1);
    const base = {
      id,
      tracking_key: trackingId,
      beneficiary_account: '012180000045678907',
      beneficiary_name: 'PROVEEDORA DEL BAJIO SA DE CV',
      beneficiary_rfc: 'PBA030303EF4',
    };
    expect(cepEvents().map((e) => e.body)).toEqual([{ ...base, status: 'PENDING', processed_at: null }]);
    const pending = await penny();
    expect(pending.body.transactionStatus).toBe('IN_PROGRESS');
    expect(pending.body.metadata.dataCep).toMatchObject({ status: 'PENDING', processedAt: null });

    await core.advance(29);
    expect(cepEvents()).toHaveLength(1);
    await core.advance(1);
    const events = cepEvents();
    expect(events.map((e) => e.body)).toEqual([
      { ...base, status: 'PENDING', processed_at: null },
      { ...base, status: 'COMPLETED', processed_at: at(32) },
    ]);
    expect(events[1]!.msg_name).toBe('CEP');
    expect(events[0]!.id_msg).not.toBe(events[1]!.id_msg);

    const done = await penny();
    expect(zCreatePennyValidationResponse.safeParse(done.body).success).toBe(true);
    expect(done.body.transactionStatus).toBe('LIQUIDATED');
    expect(done.body.metadata.dataCep).toEqual({
      cepUrl: `https://sandbox.invalid/cep/${validationId}.pdf`,
      validationId,
      beneficiaryName: 'PROVEEDORA DEL BAJIO SA DE CV',
      beneficiaryRfc: 'PBA030303EF4',
      status: 'COMPLETED',
      createdAt: T0,
      processedAt: at(32),
    });
    await core.advance(3600);
    expect(cepEvents()).toHaveLength(2);
  });

  it('ends FAILED when settings.core.cepDefaultOutcome is FAILED (no CEP document)', async () => {
    await start({
      settings: { core: { cepDefaultOutcome: 'FAILED', cepPendingAfterSeconds: 5, cepOutcomeAfterSeconds: 10 } },
    });
    await penny();
    await core.advance(5);
    await core.advance(10);
    expect(cepEvents().map((e) => [e.body.status, e.body.processed_at])).toEqual([
      ['PENDING', null],
      ['FAILED', at(15)],
    ]);
    const read = await penny();
    expect(read.body.metadata.dataCep).toMatchObject({ status: 'FAILED', processedAt: at(15) });
    expect(read.body.metadata.dataCep.cepUrl).toBeUndefined();
  });
});

describe('control API: POST /_sandbox/core/transactions/:id/cep', () => {
  it('COMPLETED now, before PENDING: one CEP event, scheduled steps cancelled', async () => {
    await start();
    const { body } = await penny();
    const answer = await core.control.triggerCepOutcome({
      params: { transactionId: body.id },
      body: { status: 'COMPLETED' },
    });
    expect(answer).toMatchObject({ status: 200, body: { status: 'COMPLETED' } });
    await core.advance(3600);
    expect(cepEvents().map((e) => [e.body.status, e.body.processed_at])).toEqual([['COMPLETED', T0]]);
  });

  it('FAILED with a name and RFC override simulates an ownership mismatch', async () => {
    await start();
    const { body } = await penny();
    await core.advance(2);
    const answer = await core.control.triggerCepOutcome({
      params: { transactionId: body.id },
      body: { status: 'FAILED', beneficiaryName: 'OTRA PERSONA', beneficiaryRfc: null },
    });
    expect(answer).toMatchObject({ status: 200, body: { status: 'FAILED' } });
    const events = cepEvents();
    expect(events.map((e) => e.body.status)).toEqual(['PENDING', 'FAILED']);
    expect(events[1]!.body).toMatchObject({
      beneficiary_name: 'OTRA PERSONA',
      beneficiary_rfc: null,
      processed_at: at(2),
    });
    const read = await penny();
    expect(zCreatePennyValidationResponse.safeParse(read.body).success).toBe(true);
    expect(read.body.metadata.dataCep.beneficiaryName).toBe('OTRA PERSONA');
    expect(read.body.metadata.dataCep.beneficiaryRfc).toBeUndefined();
  });

  it('DELAYED keeps the lookup pending and reschedules the outcome from now', async () => {
    await start();
    const { body } = await penny();
    const control = core.control;
    await core.advance(12);
    expect(
      (await control.triggerCepOutcome({ params: { transactionId: body.id }, body: { status: 'DELAYED' } })).body,
    ).toEqual({ status: 'DELAYED' });
    const delayed = await penny();
    expect(delayed.body.metadata.dataCep).toMatchObject({ status: 'DELAYED', processedAt: null });
    // The outcome first due at 32 s no longer comes…
    await core.advance(25);
    expect(cepEvents().map((e) => e.body.status)).toEqual(['PENDING', 'DELAYED']);
    // …it comes cepOutcomeAfterSeconds (30) after the delay, at 42 s.
    await core.advance(5);
    const events = cepEvents();
    expect(events.map((e) => [e.body.status, e.body.processed_at])).toEqual([
      ['PENDING', null],
      ['DELAYED', null],
      ['COMPLETED', at(42)],
    ]);
  });

  it('404 for an unknown id or a transaction that is not a penny validation; 409 once the lookup ended', async () => {
    await start();
    const control = core.control;
    const unknown = await control.triggerCepOutcome({
      params: { transactionId: UNKNOWN },
      body: { status: 'COMPLETED' },
    });
    expect(unknown.status).toBe(404);
    const transfer = await call(`${core.sandbox.urls.core}/v1/transactions/money_out`, {
      method: 'POST',
      headers: core.bearer(),
      body: transferBody({
        client_id: CLIENT,
        source_instrument_id: ACME,
        destination_instrument_id: SUPPLIER_BBVA,
        amount: '1.00',
      }),
    });
    expect(transfer.status).toBe(200);
    expect(
      (await control.triggerCepOutcome({ params: { transactionId: transfer.body.id }, body: { status: 'COMPLETED' } }))
        .status,
    ).toBe(404);

    const { body } = await penny();
    expect(
      (await control.triggerCepOutcome({ params: { transactionId: body.id }, body: { status: 'COMPLETED' } })).status,
    ).toBe(200);
    const again = await control.triggerCepOutcome({ params: { transactionId: body.id }, body: { status: 'DELAYED' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: expect.stringMatching(/already ended COMPLETED/) });
    expect(cepEvents()).toHaveLength(1);
  });

  it('CEP webhook absent: the lookup still moves, nothing is delivered', async () => {
    await start();
    const hooks = [...core.state.webhooks.values()];
    for (const hook of hooks) hook.webhookStatus = 'INACTIVE';
    const { body } = await penny();
    await core.advance(40);
    expect(receiver.requests).toEqual([]);
    expect(core.state.transactions.get(body.id)!.cep!.status).toBe('COMPLETED');
  });
});
