// onTransactionIntent: the request is handed over before it is sent, with the key it carries; when
// the hook throws nothing reaches the platform; its id follows the answer to onTransactionCreated;
// a request that produced nothing is reported to onTransactionFailed with whether money may have
// moved. Against the sandbox behind a real proxy that records what arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProcess } from '@paykit/testing/sandbox';
import {
  createCoreClient,
  TransactionIntentError,
  type CoreClientOptions,
  type CreatedTransaction,
  type FailedTransaction,
  type TransactionIntent,
} from '@paykit/core-client';
import { startSeededSandbox, type CoreSeed, type SandboxTime } from './helpers.ts';
import { startLossyProxy, type LossyProxy } from './lossy-proxy.ts';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA_SUPPLIER = '66666666-6666-4666-8666-000000000004';

describe('onTransactionIntent, against the sandbox', () => {
  let sandbox: SandboxProcess;
  let seed: CoreSeed;
  let time: SandboxTime;
  let proxy: LossyProxy;

  beforeAll(async () => {
    ({ sandbox, seed, time } = await startSeededSandbox());
    proxy = await startLossyProxy(sandbox.urls.core);
  });
  afterAll(async () => {
    await proxy?.close();
    await sandbox?.close();
  });

  const client = (hooks: Partial<CoreClientOptions>) =>
    createCoreClient({
      environment: 'staging',
      baseUrl: proxy.url,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      now: () => time.now,
      ...hooks,
    });
  const moneyOuts = () => proxy.forwarded.filter((r) => r.path.endsWith('/money_out'));
  const transfer = (reference: string) => ({
    source_instrument_id: ACME,
    destination_instrument_id: BBVA_SUPPLIER,
    transaction_request: {
      amount: '12.34',
      currency: 'MXN' as const,
      description: 'intent',
      external_reference: reference,
    },
  });

  it('is called before the request leaves, with the key the request carries, and its id reaches onTransactionCreated', async () => {
    const intents: TransactionIntent[] = [];
    const created: CreatedTransaction[] = [];
    let sentWhenAnnounced = -1;
    const core = client({
      onTransactionIntent: (intent) => {
        sentWhenAnnounced = moneyOuts().length;
        intents.push(intent);
        return 'intent-1';
      },
      onTransactionCreated: (tx) => {
        created.push(tx);
      },
    });
    const before = moneyOuts().length;
    const tx = await core.transactions.moneyOut(transfer('1000001'));
    expect(sentWhenAnnounced).toBe(before);
    expect(moneyOuts()).toHaveLength(before + 1);
    const intent = intents[0]!;
    expect(intent.operation).toBe('createMoneyOut');
    expect('idempotencyKey' in intent && intent.idempotencyKey).toBe(moneyOuts().at(-1)!.headers['idempotency-key']);
    expect(intent.body).toEqual(JSON.parse(moneyOuts().at(-1)!.body));
    expect(created).toEqual([
      expect.objectContaining({ operation: 'createMoneyOut', intentId: 'intent-1', transaction: tx }),
    ]);
  });

  it('sends nothing when the hook throws, and says no money moved', async () => {
    const before = moneyOuts().length;
    const core = client({
      onTransactionIntent: () => {
        throw new Error('database unavailable');
      },
    });
    const error = await core.transactions.moneyOut(transfer('1000002')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionIntentError);
    expect((error as Error).message).toMatch(/nothing was sent and no money moved.*database unavailable/);
    expect(moneyOuts()).toHaveLength(before);
  });

  it('reports a request the platform refused as one that moved nothing', async () => {
    const failed: FailedTransaction[] = [];
    const core = client({
      onTransactionIntent: () => 'intent-2',
      onTransactionFailed: (f) => {
        failed.push(f);
      },
    });
    // An instrument the sandbox does not know: a 4xx answer, no transaction.
    const error = await core.transactions
      .moneyOut({ ...transfer('1000003'), destination_instrument_id: '66666666-6666-4666-8666-0000000000ff' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(failed).toEqual([
      expect.objectContaining({ operation: 'createMoneyOut', intentId: 'intent-2', nothingMoved: true }),
    ]);
  });
});
