// money_out as the platform documents it, sent once. Against the sandbox behind a real proxy that
// can lose answers: the nested body, the derived UUIDv5 Idempotency-Key, a lost answer retried
// with the same key and the money moved once, internal_transaction never re-sent. Against a real
// replay server answering the documentation's bodies (test/fixtures/fincore-docs.ts): sign-in with
// `deleted_at: "None"`, the typed 409s, the readable 400, strict mode keeping the transaction.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SandboxProcess } from '@paykit/testing/sandbox';
import {
  BadRequestError,
  ConnectionError,
  createCoreClient,
  IdempotencyConflictError,
  PaykitError,
  RequestValidationError,
  TransactionDriftError,
  type CoreClient,
  type CreatedTransaction,
} from '@paykit/core-client';
import { canonicalJson, IDEMPOTENCY_NAMESPACES, uuidV5 } from '@paykit/runtime';
import {
  ACCOUNT_ALREADY_CANCELLED,
  conflictBody,
  DOC_CLIENT_ID,
  MONEY_OUT_REQUEST,
  MONEY_OUT_RESPONSE,
  QUICKSTART_CREDENTIALS,
  QUICKSTART_TOKEN,
  WHILE_TOKEN_VALID,
} from './fixtures/fincore-docs.ts';
import { eventually, startSeededSandbox, type SandboxTime, startReceiver, type CoreSeed } from './helpers.ts';
import { startLossyProxy, type LossyProxy } from './lossy-proxy.ts';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA_SUPPLIER = '66666666-6666-4666-8666-000000000004';
const BODEGA_NORTE = '66666666-6666-4666-8666-000000000002';
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The key money_out's documentation describes, computed here from its parts. */
function expectedKey(clientId: string, body: unknown, namespace: string): string {
  const hash = createHash('sha256').update(canonicalJson(body)).digest('hex');
  return uuidV5(`${clientId}money_out${hash}`, namespace);
}

describe('against the sandbox, through a proxy that can lose answers', () => {
  let sandbox: SandboxProcess;
  let seed: CoreSeed;
  let time: SandboxTime;
  let proxy: LossyProxy;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let core: CoreClient;
  const created: CreatedTransaction[] = [];

  beforeAll(async () => {
    ({ sandbox, seed, time } = await startSeededSandbox());
    proxy = await startLossyProxy(sandbox.urls.core);
    receiver = await startReceiver();
    core = createCoreClient({
      environment: 'staging',
      baseUrl: proxy.url,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      now: () => time.now,
      onTransactionCreated: (tx) => {
        created.push(tx);
      },
    });
    await core.webhooks.register({ webhookType: 'STATUS_UPDATE', url: `${receiver.url}/status` });
  });

  afterAll(async () => {
    await proxy?.close();
    await receiver?.close();
    await sandbox?.close();
  });

  const statusUpdateIds = (): Set<string> =>
    new Set(
      receiver.received
        .filter((r) => r.path === '/status')
        .map((r) => (JSON.parse(r.body) as { body: { id: string } }).body.id),
    );
  const sentTo = (suffix: string) => proxy.forwarded.filter((f) => f.path.endsWith(suffix));

  it('sends the documented nested body with a UUIDv5 Idempotency-Key of client_id + method + SHA-256(body), and returns the camelCase transaction', async () => {
    const input = {
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: {
        amount: '1.95',
        currency: 'MXN' as const,
        description: 'Invoice 7',
        external_reference: '7654329',
      },
    };
    const tx = await core.transactions.moneyOut(input);
    const [request] = sentTo('/money_out');
    const body: unknown = JSON.parse(request!.body);
    expect(body).toEqual({ client_id: seed.clientId, ...input });
    const key = request!.headers['idempotency-key'];
    expect(key).toMatch(UUID_V5);
    expect(key).toBe(expectedKey(seed.clientId, body, IDEMPOTENCY_NAMESPACES.staging));
    expect(tx).toMatchObject({
      amount: '1.95',
      currency: 'MXN',
      category: 'DEBIT_TRANS',
      subCategory: 'SPEI_DEBIT',
      externalReference: '7654329',
      description: 'Invoice 7',
      transactionStatus: 'IN_PROGRESS',
    });
    expect(created.at(-1)).toEqual({ operation: 'createMoneyOut', transaction: tx, idempotencyKey: key });
  });

  it('the same transfer with its keys in another order gets the same key; a configured namespace gives another', async () => {
    const a = {
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: { amount: '2.00', currency: 'MXN' as const },
    };
    const b = {
      transaction_request: { currency: 'MXN' as const, amount: '2.00' },
      destination_instrument_id: BBVA_SUPPLIER,
      source_instrument_id: ACME,
    };
    const first = await core.transactions.moneyOut(a);
    const second = await core.transactions.moneyOut(b);
    expect(second.id).toBe(first.id); // the sandbox replayed the first answer: one transfer
    const keys = sentTo('/money_out')
      .slice(-2)
      .map((f) => f.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    const namespace = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';
    const other = createCoreClient({
      environment: 'staging',
      baseUrl: proxy.url,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      now: () => time.now,
      idempotencyNamespace: namespace,
      onTransactionCreated: (tx) => void created.push(tx),
    });
    await other.transactions.moneyOut(a);
    const otherKey = sentTo('/money_out').at(-1)!.headers['idempotency-key'];
    expect(otherKey).toBe(expectedKey(seed.clientId, { client_id: seed.clientId, ...a }, namespace));
    expect(otherKey).not.toBe(keys[0]);
  });

  it('a lost answer is retried with the same key and body; the sandbox replays it and the money moves once', async () => {
    const before = sentTo('/money_out').length;
    proxy.loseAnswers('/money_out', 1);
    const tx = await core.transactions.moneyOut({
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: { amount: '3.33', currency: 'MXN' },
    });
    const attempts = sentTo('/money_out').slice(before);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.headers['idempotency-key']).toBe(attempts[0]!.headers['idempotency-key']);
    expect(attempts[1]!.body).toBe(attempts[0]!.body);
    // Every transfer the sandbox booked sends a STATUS_UPDATE: had the lost attempt been booked
    // apart from the replayed one, its id would be there and in no answer the client got.
    const answered = new Set(created.filter((c) => c.operation === 'createMoneyOut').map((c) => c.transaction.id!));
    expect(answered.has(tx.id!)).toBe(true);
    await eventually(
      () => (statusUpdateIds().size >= answered.size ? true : undefined),
      'a STATUS_UPDATE per transfer',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statusUpdateIds()).toEqual(answered);
  });

  it('internalTransaction is never re-sent once it may have reached the platform, with or without a caller key', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    try {
      const body = {
        source_instrument_id: ACME,
        destination_instrument_id: BODEGA_NORTE,
        transaction_request: { amount: '4.00', currency: 'MXN' as const },
      };
      for (const headers of [undefined, { 'Idempotency-Key': '0b7a3c5e-1f2d-5a4b-8c9d-0e1f2a3b4c5d' }]) {
        const before = sentTo('/internal_transaction').length;
        proxy.loseAnswers('/internal_transaction', 1);
        const error = await core.transactions
          .internalTransaction(body, headers ? { headers } : undefined)
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConnectionError);
        expect((error as Error).message).toContain('not retried');
        expect(sentTo('/internal_transaction').length - before).toBe(1);
      }
    } finally {
      warn.mockRestore();
    }
  });

  it('a flat body is refused before anything is sent, naming transaction_request and the codemod', async () => {
    const before = sentTo('/money_out').length;
    const flat = {
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      amount: '1.00',
    } as unknown as Parameters<CoreClient['transactions']['moneyOut']>[0];
    const error = (await core.transactions.moneyOut(flat).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error).toBeInstanceOf(PaykitError);
    expect(error.message).toContain('transaction_request');
    expect(error.message).toContain('paykit migrate');
    expect(sentTo('/money_out')).toHaveLength(before);
  });

  it('the same explicit key with another body is a typed conflict (different-payload)', async () => {
    const idempotencyKey = '9b2e6c1a-4d3f-5a7b-8c9d-0e1f2a3b4c5d';
    const body = {
      source_instrument_id: ACME,
      destination_instrument_id: BBVA_SUPPLIER,
      transaction_request: { amount: '5.00', currency: 'MXN' as const },
    };
    await core.transactions.moneyOut(body, { idempotencyKey });
    const error = (await core.transactions
      .moneyOut({ ...body, transaction_request: { amount: '6.00', currency: 'MXN' } }, { idempotencyKey })
      .catch((e: unknown) => e)) as IdempotencyConflictError;
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error.case).toBe('different-payload');
    expect(error.idempotencyKey).toBe(idempotencyKey);
    expect(error.derivedKey).toBe(false);
    expect(error.message).toMatch(/^core createMoneyOut: HTTP 409/);
  });
});

describe('against a replay server answering the documentation', () => {
  let server: Server;
  let baseUrl: string;
  let answer: (path: string) => { status: number; body: unknown };
  const seen: { path: string; headers: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const path = req.url ?? '';
        seen.push({ path, headers: req.headers });
        const { status, body } = path.endsWith('/credentials')
          ? { status: 200, body: QUICKSTART_CREDENTIALS }
          : path.endsWith('/credential-tokens')
            ? { status: 200, body: QUICKSTART_TOKEN }
            : answer(path);
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const client = (extra: Partial<Parameters<typeof createCoreClient>[0]> = {}) =>
    createCoreClient({
      environment: 'staging',
      baseUrl,
      clientId: DOC_CLIENT_ID,
      apiKey: 'pk_doc_key_0001',
      now: () => WHILE_TOKEN_VALID,
      ...extra,
    });

  it('signs in without clientSecret when the credential answers deleted_at "None", and sends the documented money_out', async () => {
    answer = () => ({ status: 200, body: MONEY_OUT_RESPONSE });
    const { client_id: _own, ...input } = MONEY_OUT_REQUEST;
    const tx = await client().transactions.moneyOut(input);
    expect(tx).toEqual(MONEY_OUT_RESPONSE);
    expect(seen.map((s) => s.path)).toEqual([
      '/v1/clients/c2d1d1e3-3340-4170-980e-e9269bbbc551/credentials',
      '/v1/clients/c2d1d1e3-3340-4170-980e-e9269bbbc551/auth/credential-tokens',
      '/v1/transactions/money_out',
    ]);
    expect(seen[2]!.headers.authorization).toBe(`Bearer ${QUICKSTART_TOKEN.token}`);
    expect(seen[2]!.headers['idempotency-key']).toBe(
      expectedKey(DOC_CLIENT_ID, MONEY_OUT_REQUEST, IDEMPOTENCY_NAMESPACES.staging),
    );
  });

  it.each([
    ['Idempotency key payload mismatch.', 'different-payload'],
    ['operation_in_progress: Operation money_out in progress.', 'in-progress'],
  ])('a 409 "%s" is IdempotencyConflictError %s', async (detail, which) => {
    answer = () => ({ status: 409, body: conflictBody(detail) });
    const error = (await client()
      .transactions.moneyOut(MONEY_OUT_REQUEST)
      .catch((e: unknown) => e)) as IdempotencyConflictError;
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error.case).toBe(which);
    expect(error.derivedKey).toBe(true);
    expect(seen.filter((s) => s.path.endsWith('/money_out'))).toHaveLength(1);
  });

  it('an idempotencyKey that is not a UUID is refused before anything is sent', async () => {
    const error = (await client()
      .transactions.moneyOut(MONEY_OUT_REQUEST, { idempotencyKey: 'retry-1' })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.message).toContain('idempotencyKey must be a UUID');
    expect(seen.filter((s) => s.path.endsWith('/money_out'))).toEqual([]);
  });

  it('the documented 400 names error_detail, reason and domain', async () => {
    answer = () => ({ status: 400, body: ACCOUNT_ALREADY_CANCELLED });
    const error = (await client()
      .accounts.cancel('a7c1e0f2-0000-4000-8000-000000000001')
      .catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toContain('FAILED_PRECONDITION (domain CORE): Account is already cancelled');
    expect([error.reason, error.domain, error.errorDetail]).toEqual([
      'FAILED_PRECONDITION',
      'CORE',
      'Account is already cancelled',
    ]);
  });

  it('strict mode never loses a created transaction: the error carries it, says money moved, and the hook got it', async () => {
    const drifted = { ...MONEY_OUT_RESPONSE, amount: 1.95, newField: 'x' };
    answer = () => ({ status: 200, body: drifted });
    const created: CreatedTransaction[] = [];
    const error = (await client({ strict: true, onTransactionCreated: (c) => void created.push(c) })
      .transactions.moneyOut(MONEY_OUT_REQUEST)
      .catch((e: unknown) => e)) as TransactionDriftError;
    expect(error).toBeInstanceOf(TransactionDriftError);
    expect(error.transaction).toEqual(drifted);
    expect(error.moneyMoved).toBe(true);
    expect(error.message).toContain('money moved');
    expect(error.message).toContain(MONEY_OUT_RESPONSE.id);
    expect(error.reports.map((r) => r.path.join('.'))).toEqual(expect.arrayContaining(['amount']));
    expect(created).toEqual([
      { operation: 'createMoneyOut', transaction: drifted, idempotencyKey: expect.stringMatching(UUID_V5) },
    ]);
  });
});
