// One test per row of the retry table, against a real server over a real socket: what is sent
// again, with which key, and what is never repeated once the request may have reached the server.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError } from '../src/core/errors.ts';
import { RETRY_TABLE, mayRepeat, retryRowFor } from '../src/core/retry-table.ts';
import { createTransport, type Transport } from '../src/core/transport.ts';
import { startScriptedServer, type ScriptedServer } from '@paykit/test-basics/scripted-server';

let server: ScriptedServer | undefined;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const noWait = { sleep: () => Promise.resolve(), retry: { maxRetries: 2 } };
const KEY = '66c0b04f-97d6-592d-8396-199819064afa';
const json = { 'content-type': 'application/json' };

/** The first answer is lost (the connection is cut after the request arrived), then 200. */
const lostThenOk = (): Promise<ScriptedServer> =>
  startScriptedServer((_req, i) => (i === 0 ? 'destroy' : { status: 200, body: { id: 'tx-1' } }));

/** A port with nothing listening: the connection is refused, so no byte of the request left. */
async function refusedUrl(): Promise<string> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A core transport (no waits between attempts) over `send`, counting the attempts it makes. */
function countingTransport(send: typeof fetch): { transport: Transport; sent: { attempts: number } } {
  const sent = { attempts: 0 };
  const transport = createTransport({
    product: 'core',
    ...noWait,
    fetch: (input, init) => {
      sent.attempts++;
      return send(input, init);
    },
  });
  return { transport, sent };
}

/**
 * A port whose connections never complete: a listening socket (in a child process that blocks
 * before accepting anything) with its accept queue filled, so the kernel drops every further SYN
 * and a connect waits until the client's connect timeout. No byte of a request can reach it.
 */
async function fullBacklogUrl(): Promise<string> {
  const listener: ChildProcess = spawn(
    process.execPath,
    [
      '-e',
      `const server = require('node:net').createServer();
       server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () =>
         process.stdout.write(server.address().port + '\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  cleanups.push(() => listener.kill('SIGKILL'));
  const port = await new Promise<number>((resolve, reject) => {
    listener.once('error', reject);
    listener.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // Backlog 1 queues two connections; the rest wait on a dropped SYN. Fill it, and see it full.
  const fillers = Array.from({ length: 4 }, () => net.connect(port, '127.0.0.1').on('error', () => undefined));
  cleanups.push(() => fillers.forEach((socket) => socket.destroy()));
  const deadline = Date.now() + 5_000;
  while (fillers.filter((socket) => socket.readyState === 'open').length < 2) {
    if (Date.now() > deadline) throw new Error('the listener did not queue the filler connections');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return `http://127.0.0.1:${port}`;
}

describe('the retry table', () => {
  it('lists money_out and penny validation as deduped by key, internal_transaction as never repeated once sent', () => {
    expect(RETRY_TABLE['core.createMoneyOut']?.rule).toBe('with-key');
    expect(RETRY_TABLE['core.createPennyValidation']?.rule).toBe('with-key');
    expect(RETRY_TABLE['core.createInternalTransaction']?.rule).toBe('never-after-sent');
    expect(retryRowFor('cash', 'createCashIn', 'POST').rule).toBe('never-after-sent');
    expect(retryRowFor('core', 'getWebhook', 'GET').rule).toBe('idempotent-method');
  });

  it('row idempotent-method: a GET whose answer was lost is sent again', async () => {
    server = await lostThenOk();
    const transport = createTransport({ product: 'core', ...noWait });
    const response = await transport.with({ operation: 'getWebhook' })(`${server.url}/v1/clients/c/webhooks/w`);
    expect(response.status).toBe(200);
    expect(server.received.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('row with-key (money_out): a lost answer is retried with the same key and the same body', async () => {
    server = await lostThenOk();
    const transport = createTransport({ product: 'core', ...noWait });
    const body = JSON.stringify({ client_id: 'c', transaction_request: { amount: '1.95', currency: 'MXN' } });
    const response = await transport.with({ operation: 'createMoneyOut' })(`${server.url}/v1/transactions/money_out`, {
      method: 'POST',
      body,
      headers: { ...json, 'Idempotency-Key': KEY },
    });
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(2);
    expect(server.received.map((r) => r.headers['idempotency-key'])).toEqual([KEY, KEY]);
    expect(server.received.map((r) => r.body)).toEqual([body, body]);
  });

  it('row with-key (money_out) without a key: a lost answer is not sent again', async () => {
    server = await lostThenOk();
    const transport = createTransport({ product: 'core', ...noWait });
    const error = await transport
      .with({ operation: 'createMoneyOut' })(`${server.url}/v1/transactions/money_out`, {
        method: 'POST',
        body: '{}',
        headers: json,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(server.received).toHaveLength(1);
  });

  it('row never-after-sent (internal_transaction): with a caller key, neither a lost answer nor a 503 is sent again', async () => {
    server = await startScriptedServer((req) => (req.path.endsWith('/cut') ? 'destroy' : { status: 503, body: {} }));
    const transport = createTransport({ product: 'core', ...noWait });
    const send = transport.with({ operation: 'createInternalTransaction' });
    const init = { method: 'POST', body: '{}', headers: { ...json, 'Idempotency-Key': KEY } };
    const error = await send(`${server.url}/v1/transactions/internal_transaction/cut`, init).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(
      'not retried: internal_transaction is not documented to honour an Idempotency-Key',
    );
    expect(server.received).toHaveLength(1);
    const busy = await send(`${server.url}/v1/transactions/internal_transaction`, init);
    expect(busy.status).toBe(503);
    expect(server.received).toHaveLength(2);
  });

  it('row never-after-sent: a refused connection (nothing left) is tried again, up to the budget', async () => {
    const url = await refusedUrl();
    const { transport, sent } = countingTransport(globalThis.fetch);
    const error = await transport
      .with({ operation: 'createInternalTransaction' })(`${url}/v1/transactions/internal_transaction`, {
        method: 'POST',
        body: '{}',
        headers: json,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(sent.attempts).toBe(3);
  });

  it('row with-key (money_out) without a key: a connect that timed out (nothing sent) is tried again, a lost answer is not', async () => {
    const url = await fullBacklogUrl();
    const agent = new Agent({ connect: { timeout: 100 } });
    cleanups.push(() => agent.close());
    const { transport, sent } = countingTransport(
      (input, init) =>
        undiciFetch(input as string, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>,
    );
    const moneyOut = transport.with({ operation: 'createMoneyOut' });
    const error = await moneyOut(`${url}/v1/transactions/money_out`, {
      method: 'POST',
      body: '{}',
      headers: json,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('UND_ERR_CONNECT_TIMEOUT');
    expect(sent.attempts).toBe(3);
    // The same call whose request reached the server and whose answer was lost: sent once.
    server = await lostThenOk();
    sent.attempts = 0;
    const lost = await moneyOut(`${server.url}/v1/transactions/money_out`, {
      method: 'POST',
      body: '{}',
      headers: json,
    }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(sent.attempts).toBe(1);
    expect(server.received).toHaveLength(1);
  });

  it('mayRepeat: a key only counts for an operation the platform dedupes; a timeout is never "not sent"', () => {
    const internal = retryRowFor('core', 'createInternalTransaction', 'POST');
    expect(mayRepeat(internal, KEY, { kind: 'answer' })).toBe(false);
    expect(mayRepeat(internal, KEY, { kind: 'failure' })).toBe(false);
    expect(mayRepeat(internal, undefined, { kind: 'failure', code: 'ECONNRESET' })).toBe(false);
    expect(mayRepeat(internal, undefined, { kind: 'failure', code: 'ECONNREFUSED' })).toBe(true);
    expect(mayRepeat(internal, undefined, { kind: 'failure', code: 'UND_ERR_CONNECT_TIMEOUT' })).toBe(true);
    const moneyOut = retryRowFor('core', 'createMoneyOut', 'POST');
    expect(mayRepeat(moneyOut, KEY, { kind: 'failure' })).toBe(true);
    expect(mayRepeat(moneyOut, ' ', { kind: 'failure' })).toBe(false);
  });
});
