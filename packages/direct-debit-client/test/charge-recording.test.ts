// onChargeCreated: every charge the platform created reaches the recorder before charges.create
// returns; a recorder that fails, or a strict client's drifting answer, never drops the charge.
// Against a real HTTP server answering with the documentation's charge.
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChargeRecordingError,
  createDirectDebitClient,
  DriftError,
  type CreatedCharge,
  RequestValidationError,
} from '@paykit/direct-debit-client';
import { startScriptedServer, type ScriptedServer } from '@paykit/test-basics/scripted-server';

const API_KEY = 'dd_sandbox_key_acme_00000000000001';
const fixture = (name: string) => documentedFixture(`direct-debit/${name}`).payload;
const REQUEST = fixture('request.charges.create.inline.json') as Parameters<
  ReturnType<typeof createDirectDebitClient>['charges']['create']
>[0];
const ANSWER = fixture('answer.charges.create.inline.json');

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function platform(answer: unknown): Promise<string> {
  server = await startScriptedServer(() => ({
    status: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(answer),
  }));
  return server.url;
}

describe('onChargeCreated', () => {
  it('hands over the created charge before charges.create returns', async () => {
    const seen: CreatedCharge[] = [];
    let returned = false;
    const dd = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: await platform(ANSWER),
      apiKey: API_KEY,
      onChargeCreated: async (created) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(returned).toBe(false);
        seen.push(created);
      },
    });
    const charge = await dd.charges.create(REQUEST);
    returned = true;
    expect(charge).toMatchObject({ id: ANSWER.id, amount: 100 });
    expect(seen).toEqual([{ charge }]);
  });

  it('throws ChargeRecordingError carrying the charge when the recorder fails', async () => {
    const failure = new Error('the ledger is down');
    const dd = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: await platform(ANSWER),
      apiKey: API_KEY,
      onChargeCreated: () => {
        throw failure;
      },
    });
    const error = await dd.charges.create(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChargeRecordingError);
    expect((error as ChargeRecordingError).charge).toMatchObject({ id: ANSWER.id });
    expect((error as Error).cause).toBe(failure);
    expect((error as Error).message).toContain(`created charge ${String(ANSWER.id)}, but onChargeCreated failed`);
  });

  it("records a strict client's drifting answer, then throws the DriftError", async () => {
    const seen: CreatedCharge[] = [];
    const drifting = { ...ANSWER, amount: '100.00' };
    const dd = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: await platform(drifting),
      apiKey: API_KEY,
      strict: true,
      onChargeCreated: (created) => {
        seen.push(created);
      },
    });
    await expect(dd.charges.create(REQUEST)).rejects.toBeInstanceOf(DriftError);
    expect(seen.map((c) => c.charge)).toEqual([drifting]);
  });

  it('is not called for a body refused before sending', async () => {
    const seen: CreatedCharge[] = [];
    const dd = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: await platform(ANSWER),
      apiKey: API_KEY,
      onChargeCreated: (created) => {
        seen.push(created);
      },
    });
    await expect(dd.charges.create({ ...REQUEST, amount: '100' as unknown as number })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(seen).toEqual([]);
    expect(server!.received).toHaveLength(0);
  });
});
