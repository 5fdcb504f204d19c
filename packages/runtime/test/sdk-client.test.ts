import { describe, expect, it } from 'vitest';
import { createSdkClient, createTransport, requestIdOf, type SdkClientShape } from '../src/index.ts';

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

const json = (body: unknown, status = 200): Response => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createSdkClient (the lean hey-api client)', () => {
  it('sends through the transport: path encoded, query serialised, bearer and api-key auth, JSON body', async () => {
    const server = recording(() => json({ ok: true }));
    const transport = createTransport({ product: 'core', fetch: server.fetch });
    const sdk = createSdkClient<SdkClientShape>({ baseUrl: 'http://127.0.0.1:1/core/', fetch: transport.fetch, auth: (scheme) => (scheme.type === 'apiKey' ? 'key-1' : 'tok-1') });
    const result = (await sdk.post({
      url: '/v1/things/{id}',
      path: { id: 'a b/c' },
      query: { limit: 5, tags: ['x', 'y'], cursor: undefined, filter: { kind: 'z' } },
      body: { amount: '10.00', big: 12n },
      security: [{ scheme: 'bearer', type: 'http' }, { name: 'x-api-key', type: 'apiKey' }],
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
    const sdk = createSdkClient<SdkClientShape>({ baseUrl: 'http://127.0.0.1:1/core', fetch: transport.fetch, auth: () => 'from-callback' });
    const result = (await sdk.get({ url: '/v1/x', headers: { 'X-Api-Key': 'mine' }, security: [{ name: 'x-api-key', type: 'apiKey' }] })) as { error: unknown; response: Response };
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
    const sdk = createSdkClient<SdkClientShape>({ baseUrl: 'http://127.0.0.1:1/core', fetch: transport.fetch, auth: () => 'bad\nvalue' });
    const result = (await sdk.get({ url: '/v1/x', security: [{ scheme: 'bearer', type: 'http' }] })) as { error: unknown };
    expect(result.error).toBeInstanceOf(TypeError);
    expect(String(result.error)).not.toContain('bad');
    expect(server.seen).toHaveLength(0);
  });
});
