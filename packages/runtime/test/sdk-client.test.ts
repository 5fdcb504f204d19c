import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import { createSdkClient, type SdkClientShape } from '../src/core/sdk-client.ts';
import { createTransport, requestIdOf } from '../src/core/transport.ts';
import { invoke } from '../src/core/invoke.ts';
import { withResponse } from '../src/core/response-info.ts';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function recording(answer: (seen: Seen) => Response): { fetch: typeof fetch; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const entry: Seen = {
      url: request.url,
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body: request.body === null ? undefined : await request.text(),
    };
    seen.push(entry);
    return answer(entry);
  };
  return { fetch: fetchFn, seen };
}

const json = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createSdkClient (the lean hey-api client)', () => {
  it('sends through the transport: path encoded, query serialised, bearer and api-key auth, JSON body', async () => {
    const server = recording(() => json({ ok: true }));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    const sdk = createSdkClient<SdkClientShape>({
      baseUrl: 'http://127.0.0.1:1/core/',
      fetch: transport.fetch,
      auth: (scheme) => (scheme.type === 'apiKey' ? 'key-1' : 'tok-1'),
    });
    const result = (await sdk.post({
      url: '/v1/things/{id}',
      path: { id: 'a b/c' },
      query: { limit: 5, tags: ['x', 'y'], cursor: undefined, filter: { kind: 'z' } },
      body: { amount: '10.00', big: 12n },
      security: [
        { scheme: 'bearer', type: 'http' },
        { name: 'x-api-key', type: 'apiKey' },
      ],
    })) as { data: unknown; response: Response };
    expect(result.data).toEqual({ ok: true });
    expect(requestIdOf(result.response)).toMatch(/^[0-9a-f-]{36}$/);
    const [sent] = server.seen;
    expect(sent!.url).toBe('http://127.0.0.1:1/core/v1/things/a%20b%2Fc?limit=5&tags=x&tags=y&filter[kind]=z');
    expect(sent!.method).toBe('POST');
    expect(sent!.headers.authorization).toBe('Bearer tok-1');
    expect(sent!.headers['x-api-key']).toBe('key-1');
    expect(sent!.headers['content-type']).toBe('application/json');
    expect(sent!.body).toBe('{"amount":"10.00","big":"12"}');
  });

  it('a GET carries no Content-Type; a caller-set auth header is kept; a non-2xx answers { error: parsed body }', async () => {
    const server = recording(() => json({ code: 404, message: 'nope' }, 404));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    const sdk = createSdkClient<SdkClientShape>({
      baseUrl: 'http://127.0.0.1:1/core',
      fetch: transport.fetch,
      auth: () => 'from-callback',
    });
    const result = (await sdk.get({
      url: '/v1/x',
      headers: { 'X-Api-Key': 'mine' },
      security: [{ name: 'x-api-key', type: 'apiKey' }],
    })) as { error: unknown; response: Response };
    expect(result.error).toEqual({ code: 404, message: 'nope' });
    expect(result.response.status).toBe(404);
    expect(server.seen[0]!.headers['content-type']).toBeUndefined();
    expect(server.seen[0]!.headers['x-api-key']).toBe('mine');
  });

  it('runs requestValidator for a request with a body (a failure sends nothing) and skips it for one without', async () => {
    const server = recording(() => json({}));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    const sdk = createSdkClient<SdkClientShape>({ baseUrl: 'http://127.0.0.1:1/core', fetch: transport.fetch });
    const calls: unknown[] = [];
    const requestValidator = async (data: unknown): Promise<void> => {
      calls.push(data);
      throw new Error('invalid');
    };
    const refused = (await sdk.post({ url: '/v1/x', body: { a: 1 }, requestValidator })) as { error: unknown };
    expect((refused.error as Error).message).toBe('invalid');
    expect(server.seen).toHaveLength(0);
    await sdk.get({ url: '/v1/x', requestValidator });
    expect(calls).toHaveLength(1);
    expect(server.seen).toHaveLength(1);
  });

  it('works with any other fetch too (a Request, as hey-api sends)', async () => {
    const server = recording(() => new Response('plain', { status: 200, headers: { 'content-type': 'text/plain' } }));
    const sdk = createSdkClient<SdkClientShape>({ baseUrl: 'http://127.0.0.1:1/core', fetch: server.fetch });
    const result = (await sdk.get({ url: '/v1/x' })) as { data: unknown; request?: Request };
    expect(result.data).toBe('plain');
    expect(result.request).toBeInstanceOf(Request);
  });

  it('a header value that is not valid fails before sending', async () => {
    const server = recording(() => json({}));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    const sdk = createSdkClient<SdkClientShape>({
      baseUrl: 'http://127.0.0.1:1/core',
      fetch: transport.fetch,
      auth: () => 'bad\nvalue',
    });
    const result = (await sdk.get({ url: '/v1/x', security: [{ scheme: 'bearer', type: 'http' }] })) as {
      error: unknown;
    };
    expect(result.error).toBeInstanceOf(TypeError);
    expect(String(result.error)).not.toContain('bad');
    expect(server.seen).toHaveLength(0);
  });

  it('sends the token and path values of each call: a changed token or id is not taken for the one before', async () => {
    const server = recording(() => json({}));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    let token = 'tok-1';
    const sdk = createSdkClient<SdkClientShape>({
      baseUrl: 'http://127.0.0.1:1/core',
      fetch: transport.fetch,
      auth: () => token,
    });
    const get = (id: string) =>
      sdk.get({ url: '/v1/things/{id}', path: { id }, security: [{ scheme: 'bearer', type: 'http' }] });
    await get('a b');
    await get('a b');
    token = 'tok-2';
    await get('c/d');
    await get('a b');
    token = 'bad\nvalue';
    const refused = (await get('a b')) as { error: unknown };
    expect(refused.error).toBeInstanceOf(TypeError);
    expect(
      server.seen.map((seen) => [seen.url.slice('http://127.0.0.1:1/core'.length), seen.headers.authorization]),
    ).toEqual([
      ['/v1/things/a%20b', 'Bearer tok-1'],
      ['/v1/things/a%20b', 'Bearer tok-1'],
      ['/v1/things/c%2Fd', 'Bearer tok-2'],
      ['/v1/things/a%20b', 'Bearer tok-2'],
    ]);
  });
});

describe('a JSON 2xx through invoke over the default sender', () => {
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-request-id': 'srv-7',
        'x-api-key': 'echoed-key-value',
      });
      // Several writes: the body reaches the client in more than one chunk.
      const items = JSON.stringify(Array.from({ length: 2_000 }, (_, n) => ({ n, name: `item ${n}` })));
      res.write('{"items":');
      setImmediate(() => {
        res.write(items.slice(0, 20_000));
        setImmediate(() => res.end(`${items.slice(20_000)}}`));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('returns the whole body, and withResponse gives its status, redacted headers and request id without the body showing any of it', async () => {
    const transport = createTransport({ product: 'core' });
    const sdk = createSdkClient<SdkClientShape>({ baseUrl, fetch: transport.fetch });
    const ctx = { product: 'core' as const, transport };
    const call = () =>
      invoke(
        ctx,
        'listThings',
        z.unknown(),
        (extra) => sdk.get({ url: '/v1/things', ...extra }) as Promise<{ data?: unknown; response?: Response }>,
      );
    const { data, response } = await withResponse(call());
    const items = (data as { items: { n: number; name: string }[] }).items;
    expect(items).toHaveLength(2_000);
    expect(items[1_999]).toEqual({ n: 1_999, name: 'item 1999' });
    expect(response.status).toBe(200);
    expect(response.requestId).toBe('srv-7');
    expect(response.headers['x-request-id']).toBe('srv-7');
    expect(response.headers['x-api-key']).not.toContain('echoed-key-value');
    // The answer is kept out of sight: keys, JSON, a copy and deep equality see the body as it came.
    expect(Object.keys(data as object)).toEqual(['items']);
    expect(JSON.stringify(data)).toBe(JSON.stringify({ items }));
    expect(data).toStrictEqual({ items });
    await expect(withResponse(Promise.resolve({ ...(data as object) }))).rejects.toThrow(
      /not the result of a paykit operation/,
    );
  });
});
