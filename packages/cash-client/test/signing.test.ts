// Cash request signing, checked by a scripted node:http server that recomputes the signature
// over the bytes it received: per attempt (retries get a fresh timestamp), over the exact bytes,
// on the configurable paths of the two operations the reference does not show.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  createCashClient,
  RequestValidationError,
  type CashClientOptions,
} from '@paykit/cash-client';

const API_KEY = 'k'.repeat(32);
const API_SECRET = 'test-secret-not-a-real-one-000001';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

const seen: Seen[] = [];
/** What the server answers, in order; the last one repeats. */
let script: Answer[] = [];
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        raw: Buffer.concat(chunks),
      });
      const answer = script.length > 1 ? script.shift()! : script[0]!;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  seen.length = 0;
  script = [];
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(overrides: Partial<CashClientOptions> = {}) {
  return createCashClient({ environment: 'sandbox', baseUrl, apiKey: API_KEY, apiSecret: API_SECRET, ...overrides });
}

/** A clock that moves 7 s every time it is read, starting at 2026-05-07T18:00:00Z. */
function steppingClock(): () => Date {
  let ms = Date.parse('2026-05-07T18:00:00Z');
  return () => new Date((ms += 7000) - 7000);
}

function expectSignedOverReceivedBytes(request: Seen): void {
  expect(request.headers['x-client-id']).toBe(API_KEY);
  const timestamp = request.headers['x-timestamp'] as string;
  expect(timestamp).toMatch(/^\d+$/);
  const expected = createHmac('sha256', API_SECRET)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), request.raw]))
    .digest('hex');
  expect(request.headers['x-signature']).toBe(expected);
}

const config = { id: 3, endpoint_url: 'https://hooks.example.com/cash', created_at: '2026-05-07T18:00:00Z' };

describe('cash request signing', () => {
  it('signs X-Timestamp + "." + the exact UTF-8 bytes of the body with the api_secret', async () => {
    script = [{ status: 201, body: { ...config, secret_token: 'ab'.repeat(32), event: 'webhook.created' } }];
    const created = await client({ now: () => new Date('2026-05-07T18:00:00.900Z') }).webhooks.create(
      'https://hooks.example.com/cash?owner=José Pérez',
    );
    expect(created.secret_token).toBe('ab'.repeat(32));
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/api/v1/cash/webhooks');
    // Whole seconds, rounded down.
    expect(request!.headers['x-timestamp']).toBe(String(Date.parse('2026-05-07T18:00:00Z') / 1000));
    expect(request!.raw.toString('utf8')).toBe('{"endpoint_url":"https://hooks.example.com/cash?owner=José Pérez"}');
    expectSignedOverReceivedBytes(request!);
  });

  it('signs every retry attempt again, with the time of that attempt', async () => {
    script = [
      { status: 503, body: { error: 'busy' }, headers: { 'retry-after': '0' } },
      { status: 503, body: { error: 'busy' }, headers: { 'retry-after': '0' } },
      { status: 200, body: config },
    ];
    const active = await client({ now: steppingClock(), maxRetries: 2 }).webhooks.getActive();
    expect(active).toEqual(config);
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET', 'GET']);
    const timestamps = seen.map((s) => Number(s.headers['x-timestamp']));
    expect(new Set(timestamps).size).toBe(3);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    // A GET has no body: the signature covers the timestamp and the dot.
    for (const request of seen) {
      expect(request.raw.byteLength).toBe(0);
      expectSignedOverReceivedBytes(request);
    }
  });

  it('create is a POST without an Idempotency-Key: a 503 is not repeated', async () => {
    script = [{ status: 503, body: { error: 'busy' }, headers: { 'retry-after': '0' } }];
    await expect(client({ maxRetries: 3 }).webhooks.create('https://hooks.example.com/cash')).rejects.toMatchObject({
      status: 503,
    });
    expect(seen).toHaveLength(1);
  });

  it('get-active and update use the sandbox’s paths by default', async () => {
    script = [{ status: 200, body: config }];
    await client().webhooks.getActive();
    const updated = await client().webhooks.update(3, 'https://hooks.example.com/cash-v2');
    expect(updated).toEqual(config);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /api/v1/cash/webhooks/active',
      'PATCH /api/v1/cash/webhooks/3',
    ]);
    expect(seen[1]!.raw.toString('utf8')).toBe('{"endpoint_url":"https://hooks.example.com/cash-v2"}');
    expect(seen[1]!.headers['content-type']).toMatch(/^application\/json/);
    for (const request of seen) expectSignedOverReceivedBytes(request);
  });

  it('the paths and the update method are configurable (the reference does not show them)', async () => {
    script = [{ status: 200, body: config }];
    const cash = client({
      paths: {
        getActiveWebhook: '/v9/hooks/current',
        updateWebhook: '/v9/hooks/{id}/endpoint',
        updateWebhookMethod: 'PUT',
      },
    });
    await cash.webhooks.getActive();
    await cash.webhooks.update(41, 'https://hooks.example.com/cash-v3');
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v9/hooks/current', 'PUT /v9/hooks/41/endpoint']);
    for (const request of seen) expectSignedOverReceivedBytes(request);
  });

  it('an endpoint_url that is not http(s) is refused before anything is signed or sent', async () => {
    script = [{ status: 200, body: config }];
    await expect(client().webhooks.update(3, 'ftp://hooks.example.com')).rejects.toBeInstanceOf(RequestValidationError);
    await expect(client().webhooks.create('hooks.example.com/cash')).rejects.toBeInstanceOf(RequestValidationError);
    expect(seen).toHaveLength(0);
  });
});

describe('cash client configuration', () => {
  it('refuses a missing key or secret, an api_key that is not 32 characters, and an update path without {id}', () => {
    expect(() => client({ apiKey: '' })).toThrow(ConfigurationError);
    expect(() => client({ apiSecret: '' })).toThrow(ConfigurationError);
    expect(() => client({ paths: { updateWebhook: '/api/v1/cash/webhooks' } })).toThrow(/\{id\}/);
    const short = 'short-key-that-is-secret';
    let error: unknown;
    try {
      client({ apiKey: short });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('32');
    expect((error as Error).message).not.toContain(short);
  });
});
