// Penny validation's Idempotency-Key against the sandbox: derived from the request, the same on a
// transport retry (one transaction), and a 409 surfaced as IdempotencyConflictError.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProcess } from '@paykit/testing/sandbox';
import { ConflictError, IdempotencyConflictError, type CreatedTransaction } from '@paykit/core-client';
import { startSeededSandbox, requestCount, type SandboxTime, stagingClient, type CoreSeed } from './helpers.ts';

let sandbox: SandboxProcess;
let seed: CoreSeed;
let time: SandboxTime;

const PENNY = 'POST /core/v1/transactions/penny_validation';
const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA_SUPPLIER = '66666666-6666-4666-8666-000000000004';
const BANORTE_PAYROLL = '66666666-6666-4666-8666-000000000005';

beforeAll(async () => {
  ({ sandbox, seed, time } = await startSeededSandbox());
});

afterAll(async () => {
  await sandbox?.close();
});

const isPenny = (input: RequestInfo | URL): boolean => {
  const url = input instanceof Request ? input.url : String(input);
  return url.endsWith('/v1/transactions/penny_validation');
};

describe('penny validation idempotency', () => {
  it('a retried penny validation sends the same Idempotency-Key and creates one transaction', async () => {
    const sent: { key: string | null; status: number; id?: string }[] = [];
    let dropped = false;
    // Loses the first answer after the sandbox has processed the request, as a reset connection would.
    const dropFirstAnswer: typeof fetch = async (input, init) => {
      const request = new Request(input instanceof Request ? input.clone() : input, init);
      const response = await fetch(request);
      if (!isPenny(request)) return response;
      const body = (await response.clone().json()) as { id?: string };
      sent.push({ key: request.headers.get('idempotency-key'), status: response.status, id: body.id });
      if (!dropped) {
        dropped = true;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        });
      }
      return response;
    };
    const recorded: CreatedTransaction[] = [];
    const core = stagingClient(sandbox, seed, time, {
      fetch: dropFirstAnswer,
      onTransactionCreated: (tx) => void recorded.push(tx),
    });
    const before = await requestCount(sandbox, PENNY);

    const tx = await core.transactions.pennyValidation({
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
    });

    expect(await requestCount(sandbox, PENNY)).toBe(before + 2);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]!.key).toBe(sent[0]!.key);
    // The retry was answered with the transaction the lost answer carried: one transaction.
    expect(sent[0]!.id).toBe(tx.id);
    expect(sent[1]!.id).toBe(tx.id);
    expect(recorded).toHaveLength(1);

    // The same request later (a user's second click) derives the same key and gets the same transaction.
    const again = await core.transactions.pennyValidation({
      destination_instrument_id: BBVA_SUPPLIER,
      source_instrument_id: ACME,
      description: 'Penny Validation',
    });
    expect(again.id).toBe(tx.id);
    expect(sent[2]!.key).toBe(sent[0]!.key);
  });

  it('derives another key for another request', async () => {
    const core = stagingClient(sandbox, seed, time);
    const a = await core.transactions.pennyValidation({
      source_instrument_id: ACME,
      destination_instrument_id: BANORTE_PAYROLL,
      external_reference: '1',
    });
    const b = await core.transactions.pennyValidation({
      source_instrument_id: ACME,
      destination_instrument_id: BANORTE_PAYROLL,
      external_reference: '2',
    });
    expect(a.id).not.toBe(b.id);
  });

  it('surfaces a 409 for a key reused with another payload as IdempotencyConflictError (different-payload)', async () => {
    const core = stagingClient(sandbox, seed, time);
    const idempotencyKey = '0b7c3c39-4a8e-4f43-9a55-3d7e0c1d2f10';
    const first = await core.transactions.pennyValidation(
      { source_instrument_id: ACME, destination_instrument_id: BBVA_SUPPLIER, external_reference: '77' },
      { idempotencyKey },
    );
    const replay = await core.transactions.pennyValidation(
      { source_instrument_id: ACME, destination_instrument_id: BBVA_SUPPLIER, external_reference: '77' },
      { idempotencyKey },
    );
    expect(replay.id).toBe(first.id);

    const error = await core.transactions
      .pennyValidation(
        { source_instrument_id: ACME, destination_instrument_id: BANORTE_PAYROLL, external_reference: '77' },
        { idempotencyKey },
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error).toBeInstanceOf(ConflictError);
    const conflict = error as IdempotencyConflictError;
    expect(conflict.case).toBe('different-payload');
    expect(conflict.status).toBe(409);
    expect(conflict.idempotencyKey).toBe(idempotencyKey);
    expect(conflict.derivedKey).toBe(false);
    expect(conflict.message).toContain('different payload');
    expect(conflict.message).toContain(idempotencyKey);
    expect(conflict.toJSON()).toMatchObject({ case: 'different-payload', status: 409, idempotencyKey });
  });
});
