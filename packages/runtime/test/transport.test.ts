import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionError, TimeoutError, UserAbortError } from '../src/core/errors.ts';
import type { LogEntry } from '../src/core/logger.ts';
import { createTransport, requestIdOf } from '../src/core/transport.ts';
import {
  closedPort,
  recordingSleep,
  startScriptedServer,
  type ScriptedServer,
} from '@paykit/test-basics/scripted-server';

const SECRET_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2VuLXBheWxvYWQ.s1gn4tur3-value';
const CLIENT_SECRET = 'cs_live_9f8e7d6c5b4a39281706';
const API_KEY = 'ak_3b1f0c2d4e5f60718293a4b5c6d7e8f9';

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('retries', () => {
  it('retries a GET on 503 and returns the 200, with the same request id on every attempt', async () => {
    server = await startScriptedServer((_req, i) =>
      i < 2 ? { status: 503, body: { message: 'busy' } } : { status: 200, body: { ok: true } },
    );
    const { sleep, delays } = recordingSleep();
    const transport = createTransport({ product: 'core', sleep, random: () => 0.5 });
    const response = await transport.fetch(`${server.url}/v1/things`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.received).toHaveLength(3);
    const ids = server.received.map((r) => r.headers['x-request-id']);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(1);
    expect(requestIdOf(response)).toBe(ids[0]);
    // full jitter with random 0.5: floor(0.5 · (500·2^k + 1))
    expect(delays).toEqual([250, 500]);
  });

  it('returns the last 503 when the retries run out (maxRetries + 1 attempts)', async () => {
    server = await startScriptedServer(() => ({ status: 503, body: { message: 'down' } }));
    const { sleep, delays } = recordingSleep();
    const transport = createTransport({ product: 'core', sleep, retry: { maxRetries: 3 } });
    const response = await transport.fetch(`${server.url}/x`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ message: 'down' });
    expect(server.received).toHaveLength(4);
    expect(delays).toHaveLength(3);
  });

  it('retries 429 on a GET and does not retry 4xx answers such as 404 or 409', async () => {
    server = await startScriptedServer((req, i) => {
      if (req.path === '/limited') return i === 0 ? { status: 429 } : { status: 200, body: {} };
      return { status: req.path === '/missing' ? 404 : 409, body: {} };
    });
    const transport = createTransport({ product: 'core', sleep: recordingSleep().sleep });
    expect((await transport.fetch(`${server.url}/limited`)).status).toBe(200);
    expect((await transport.fetch(`${server.url}/missing`)).status).toBe(404);
    expect((await transport.fetch(`${server.url}/conflict`, { method: 'DELETE' })).status).toBe(409);
    expect(server.received.map((r) => r.path)).toEqual(['/limited', '/limited', '/missing', '/conflict']);
  });

  it('never retries a POST without an Idempotency-Key: not on 503, not on a network error', async () => {
    server = await startScriptedServer((req) =>
      req.path === '/cut' ? 'destroy' : { status: 503, body: { message: 'busy' } },
    );
    const { sleep, delays } = recordingSleep();
    const transport = createTransport({ product: 'core', sleep, retry: { maxRetries: 5 } });
    const response = await transport.fetch(`${server.url}/v1/transactions/money_out`, {
      method: 'POST',
      body: '{"amount":"10.00"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(1);

    const error = await transport.fetch(`${server.url}/cut`, { method: 'POST', body: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(
      'not retried: a POST the platform does not dedupe may already have been applied',
    );
    expect(server.received).toHaveLength(2);
    expect(delays).toEqual([]);
  });

  it('retries a POST that carries an Idempotency-Key, re-sending the same body bytes', async () => {
    server = await startScriptedServer((_req, i) =>
      i === 0
        ? { status: 500, body: { message: 'oops' } }
        : i === 1
          ? 'destroy'
          : { status: 200, body: { id: 'tx-1' } },
    );
    const transport = createTransport({ product: 'core', sleep: recordingSleep().sleep });
    const body = JSON.stringify({ client_id: 'c', description: 'Penny Validation ñ' });
    // The retry table names the operation: penny validation is deduped by its key.
    const response = await transport.with({ operation: 'createPennyValidation' })(
      `${server.url}/v1/transactions/penny_validation`,
      {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'Idempotency-Key': '0b7a3c5e-1f2d-5a4b-8c9d-0e1f2a3b4c5d' },
      },
    );
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(3);
    expect(server.received.map((r) => r.body)).toEqual([body, body, body]);
    expect(server.received.map((r) => r.headers['idempotency-key'])).toEqual(
      Array(3).fill('0b7a3c5e-1f2d-5a4b-8c9d-0e1f2a3b4c5d'),
    );
  });

  it('also re-sends the body of a Request object passed as input (as the generated client does)', async () => {
    server = await startScriptedServer((_req, i) => (i === 0 ? { status: 502 } : { status: 204 }));
    const transport = createTransport({ product: 'core', sleep: recordingSleep().sleep });
    const request = new Request(`${server.url}/v1/clients/c/accounts/a/block`, {
      method: 'PUT',
      body: '{"why":"fraud"}',
    });
    const response = await transport.fetch(request);
    expect(response.status).toBe(204);
    expect(server.received.map((r) => [r.method, r.body])).toEqual([
      ['PUT', '{"why":"fraud"}'],
      ['PUT', '{"why":"fraud"}'],
    ]);
  });

  it('honours Retry-After in seconds and as an HTTP date, capped at 4 × maxDelayMs', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    server = await startScriptedServer((req, i) => {
      if (req.path === '/seconds')
        return i === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200, body: {} };
      if (req.path === '/date') return { status: 503, headers: { 'retry-after': inTenSeconds } };
      return { status: 503, headers: { 'retry-after': '3600' } };
    });
    const { sleep, delays } = recordingSleep();
    const transport = createTransport({ product: 'direct-debit', sleep, retry: { maxRetries: 1, maxDelayMs: 8000 } });
    await transport.fetch(`${server.url}/seconds`);
    expect(delays).toEqual([3000]);
    await transport.fetch(`${server.url}/date`);
    expect(delays[1]).toBeGreaterThan(7000);
    expect(delays[1]).toBeLessThanOrEqual(10_000);
    await transport.fetch(`${server.url}/capped`);
    expect(delays[2]).toBe(32_000);
  });
});

describe('timeouts, network errors and aborts', () => {
  it('times out each attempt and throws TimeoutError after the retries', async () => {
    server = await startScriptedServer(() => 'hang');
    const { sleep, delays } = recordingSleep();
    // 500 ms an attempt, not less: each request must reach the server before its deadline on a loaded machine.
    const transport = createTransport({ product: 'core', timeoutMs: 500, sleep });
    const error = await transport
      .with({ operation: 'listWebhooks' })(`${server.url}/v1/clients/c/webhooks`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    const timeout = error as TimeoutError;
    expect(timeout.timeoutMs).toBe(500);
    expect(timeout.message).toContain('core listWebhooks: no response from');
    expect(timeout.message).toContain('within 500 ms (3 attempts)');
    expect(server.received).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(timeout.requestId).toBe(server.received[0]!.headers['x-request-id']);
  });

  it('a per-request timeoutMs and maxRetries override the transport defaults', async () => {
    server = await startScriptedServer(() => 'hang');
    const transport = createTransport({ product: 'core', timeoutMs: 30_000, sleep: recordingSleep().sleep });
    // 500 ms, not less: the request must reach the server before the deadline on a loaded machine.
    const error = await transport
      .with({ timeoutMs: 500, maxRetries: 0 })(`${server.url}/slow`)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(500);
    expect(server.received).toHaveLength(1);
  });

  it('connection refused → ConnectionError after the retries, with a sanitized cause', async () => {
    const port = await closedPort();
    const { sleep, delays } = recordingSleep();
    const transport = createTransport({ product: 'cash', sleep });
    const error = await transport
      .fetch(`http://127.0.0.1:${port}/api/v1/cash/webhooks`, {
        headers: { 'X-Client-Id': API_KEY, authorization: `Bearer ${SECRET_TOKEN}` },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const connection = error as ConnectionError;
    expect(connection.message).toContain('ECONNREFUSED');
    expect(connection.message).toContain('(3 attempts)');
    expect(delays).toHaveLength(2);
    expect(connection.cause).toBeInstanceOf(Error);
    expect(connection.cause).not.toBeInstanceOf(Request);
    const everything = [
      connection.message,
      String(connection),
      JSON.stringify(connection),
      String(connection.cause),
      JSON.stringify(Object.entries(connection.cause as object)),
    ].join('\n');
    expect(everything).not.toContain(API_KEY);
    expect(everything).not.toContain(SECRET_TOKEN);
    expect(Object.keys(connection.cause as object).sort()).toEqual(['code', 'name']);
  });

  it('a caller abort stops at once as a UserAbortError whose cause is the abort reason, and is not retried', async () => {
    server = await startScriptedServer(() => 'hang');
    const controller = new AbortController();
    const transport = createTransport({ product: 'core', sleep: recordingSleep().sleep });
    const pending = transport.with({ signal: controller.signal })(`${server.url}/hang`);
    while (server.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const reason = new Error('user cancelled');
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({
      cause: reason,
      stage: 'in-flight',
      requestId: server.received[0]?.headers['x-request-id'],
    });
    expect(server.received).toHaveLength(1);
  });

  it('an abort during the backoff wait stops before the next attempt; an aborted signal sends nothing', async () => {
    server = await startScriptedServer(() => ({ status: 503 }));
    const controller = new AbortController();
    const transport = createTransport({
      product: 'core',
      signal: controller.signal,
      sleep: () => {
        controller.abort();
        return new Promise(() => {});
      },
    });
    const error = await transport.fetch(`${server.url}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({ stage: 'between-attempts', cause: { name: 'AbortError' } });
    expect(server.received).toHaveLength(1);
    await expect(transport.fetch(`${server.url}/y`)).rejects.toMatchObject({
      name: 'UserAbortError',
      stage: 'before-sending',
      cause: { name: 'AbortError' },
    });
    expect(server.received).toHaveLength(1);
  });
});

describe('request ids, per-request options, custom fetch', () => {
  it('keeps a request id the caller set, and prefers the id the server answers with', async () => {
    server = await startScriptedServer((req) =>
      req.path === '/echo'
        ? { status: 200, body: {}, headers: { 'x-request-id': 'srv-123' } }
        : { status: 200, body: {} },
    );
    const transport = createTransport({ product: 'core' });
    const own = await transport.fetch(`${server.url}/mine`, { headers: { 'x-request-id': 'caller-1' } });
    expect(server.received[0]!.headers['x-request-id']).toBe('caller-1');
    expect(requestIdOf(own)).toBe('caller-1');
    const echoed = await transport.fetch(`${server.url}/echo`);
    expect(requestIdOf(echoed)).toBe('srv-123');
    expect(requestIdOf(new Response('x'))).toBeUndefined();
  });

  it('send answers with the status, headers, request id and bytes; its Response, made when read, is one object with the same answer', async () => {
    server = await startScriptedServer(() => ({
      status: 201,
      body: { id: 'tx-1' },
      headers: { 'x-request-id': 'srv-9', 'x-extra': 'yes' },
    }));
    const result = await createTransport({ product: 'core' }).send({
      url: `${server.url}/v1/things`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(result.status).toBe(201);
    expect(result.requestId).toBe('srv-9');
    expect(result.header('x-extra')).toBe('yes');
    expect(result.header('content-type')).toMatch(/^application\/json/);
    expect(result.header('x-absent')).toBeNull();
    expect(JSON.parse(new TextDecoder().decode(result.bytes))).toEqual({ id: 'tx-1' });
    const response = result.response;
    expect(result.response).toBe(response);
    expect(response.status).toBe(201);
    expect(response.headers.get('x-extra')).toBe('yes');
    expect(requestIdOf(response)).toBe('srv-9');
    expect(await response.json()).toEqual({ id: 'tx-1' });
  });

  it('with() adds headers and an operation name; userAgent and requestIdHeader are honoured', async () => {
    server = await startScriptedServer(() => ({ status: 200, body: {} }));
    const entries: LogEntry[] = [];
    const transport = createTransport({
      product: 'lottery',
      userAgent: 'paykit-test/1.0',
      requestIdHeader: 'X-Correlation-Id',
      logger: (e) => entries.push(e),
    });
    await transport.with({ headers: { 'x-extra': 'yes' }, operation: 'getClientAccount' })(
      `${server.url}/api/v1/client/account`,
    );
    const seen = server.received[0]!.headers;
    expect(seen['x-extra']).toBe('yes');
    expect(seen['user-agent']).toBe('paykit-test/1.0');
    expect(seen['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen['x-request-id']).toBeUndefined();
    expect(entries.map((e) => [e.event, e.operation, e.product])).toEqual([
      ['request', 'getClientAccount', 'lottery'],
      ['response', 'getClientAccount', 'lottery'],
    ]);
  });

  it('sends every attempt through the custom fetch, each time as a fresh Request', async () => {
    server = await startScriptedServer((_req, i) => (i === 0 ? { status: 503 } : { status: 200, body: { n: i } }));
    const seen: Request[] = [];
    const transport = createTransport({
      product: 'core',
      sleep: recordingSleep().sleep,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        seen.push(request);
        return globalThis.fetch(request);
      },
    });
    const response = await transport.fetch(`${server.url}/v1/a`, { method: 'DELETE' });
    expect(await response.json()).toEqual({ n: 1 });
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen.map((r) => r.method)).toEqual(['DELETE', 'DELETE']);
  });

  it('rejects impossible options with a ConfigurationError', () => {
    expect(() => createTransport({ product: 'core', timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number/);
    expect(() => createTransport({ product: 'core', retry: { maxRetries: -1 } })).toThrow(/retry.maxRetries/);
    expect(() => createTransport({ product: 'core' }).with({ maxRetries: 1.5 })).toThrow(
      /maxRetries must be an integer/,
    );
  });
});

describe('logging', () => {
  it('the logger only ever sees redacted headers and bodies', async () => {
    server = await startScriptedServer((_req, i) =>
      i === 0
        ? { status: 503, body: { message: 'retry me' } }
        : {
            status: 200,
            headers: { 'set-cookie': `session=${CLIENT_SECRET}` },
            body: { data: [{ client_id: 'c1', client_secret: CLIENT_SECRET, api_key: API_KEY }], token: SECRET_TOKEN },
          },
    );
    const entries: LogEntry[] = [];
    const transport = createTransport({
      product: 'core',
      logger: (e) => entries.push(e),
      sleep: recordingSleep().sleep,
    });
    const response = await transport.with({ operation: 'createCredentialToken' })(
      `${server.url}/v1/clients/c/auth/credential-tokens?api_key=${API_KEY}`,
      {
        method: 'PUT',
        headers: { authorization: `Bearer ${SECRET_TOKEN}`, 'x-api-key': API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify({
          client_id: 'c1',
          client_secret: CLIENT_SECRET,
          nested: { webhook: { token: SECRET_TOKEN } },
        }),
      },
    );
    // the caller still gets the real body
    expect(((await response.json()) as { token: string }).token).toBe(SECRET_TOKEN);

    expect(entries.map((e) => [e.event, e.attempt, e.status])).toEqual([
      ['request', 1, undefined],
      ['response', 1, 503],
      ['retry', 1, 503],
      ['request', 2, undefined],
      ['response', 2, 200],
    ]);
    const all = JSON.stringify(entries);
    for (const secret of [SECRET_TOKEN, CLIENT_SECRET, API_KEY]) expect(all).not.toContain(secret);
    const request = entries[0]!;
    expect(request.headers.authorization).toBe('Bearer [redacted]');
    expect(request.headers['x-api-key']).toBe('[redacted]');
    expect(request.body).toEqual({
      client_id: 'c1',
      client_secret: '[redacted]',
      nested: { webhook: { token: '[redacted]' } },
    });
    expect(request.url).toContain('api_key=[redacted]');
    expect(entries[4]!.body).toEqual({
      data: [{ client_id: 'c1', client_secret: '[redacted]', api_key: '[redacted]' }],
      token: '[redacted]',
    });
    expect(entries[4]!.headers['set-cookie']).toBe('[redacted]');
    expect(entries[2]!.delayMs).toBeGreaterThanOrEqual(0);
  });

  it('logs large or non-JSON bodies by size only, and survives a logger that throws', async () => {
    const big = { blob: 'x'.repeat(70 * 1024), client_secret: CLIENT_SECRET };
    server = await startScriptedServer(() => ({ status: 200, body: big }));
    const entries: LogEntry[] = [];
    const transport = createTransport({
      product: 'core',
      logger: (e) => {
        entries.push(e);
        throw new Error('logger broken');
      },
    });
    const response = await transport.fetch(`${server.url}/big`, {
      method: 'POST',
      body: `client_secret=${CLIENT_SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(200);
    expect(entries[0]!.body).toBe(`[body: ${`client_secret=${CLIENT_SECRET}`.length} bytes]`);
    expect(entries[1]!.body).toBe(`[body: ${JSON.stringify(big).length} bytes]`);
    expect(JSON.stringify(entries)).not.toContain(CLIENT_SECRET);
  });

  it('logs the final error of a request that could not be completed', async () => {
    const port = await closedPort();
    const entries: LogEntry[] = [];
    const transport = createTransport({
      product: 'remittance',
      logger: (e) => entries.push(e),
      retry: { maxRetries: 0 },
    });
    await expect(
      transport.fetch(`http://127.0.0.1:${port}/v2/remittances/receive`, { method: 'POST', body: '{}' }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(entries.map((e) => e.event)).toEqual(['request', 'error']);
    expect(entries[1]!.error).toContain('ECONNREFUSED');
  });
});
