// The transport's default sender (undici-send.ts: undici's dispatcher over a keep-alive pool)
// against real servers on 127.0.0.1: compressed answers decoded, redirects (follow, manual, error),
// request body lengths, connection reuse, repeated Set-Cookie, a connection cut mid-body, a
// caller's abort (mid-request, and before the connection is made), the per-attempt timeout,
// certificate verification over https (refused when untrusted, accepted in a child process that
// trusts it through NODE_EXTRA_CA_CERTS) and a status no Response can hold. Everything goes through createTransport with no `fetch` option.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, TimeoutError, UserAbortError } from '../src/core/errors.ts';
import { createTransport } from '../src/core/transport.ts';
import { recordingSleep } from '@paykit/test-basics/scripted-server';

// The runtime's own folder: the child imports @paykit/runtime by name (a self-reference through its exports).
const RUNTIME_DIR = fileURLToPath(new URL('../', import.meta.url));

interface Running {
  url: string;
  /** TCP connections the server accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

/** Listens on 127.0.0.1, port 0; closed (its connections destroyed) after the test. */
async function serve(server: net.Server, scheme: 'http' | 'https' = 'http'): Promise<Running> {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  server.on('connection', (socket: net.Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const entry: Running = {
    url: `${scheme}://127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  running.push(entry);
  return entry;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Fails with `what` instead of hanging the test when `promise` does not settle in time. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What a request looked like on arrival: headers and the exact body bytes. */
interface Arrived {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function readRequest(req: http.IncomingMessage): Promise<Arrived> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', reject);
    req.on('end', () =>
      resolve({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) }),
    );
  });
}

const decoder = new TextDecoder();

describe('answers', () => {
  const payload = {
    id: 'tx-1',
    description: 'Validación de cuenta ñ €',
    items: Array.from({ length: 50 }, (_, i) => ({ n: i, clabe: '002010077777777771' })),
  };
  const json = Buffer.from(JSON.stringify(payload));
  const encodings: Record<string, { header: string; encode: (bytes: Buffer) => Buffer }> = {
    gzip: { header: 'gzip', encode: (b) => zlib.gzipSync(b) },
    deflate: { header: 'deflate', encode: (b) => zlib.deflateSync(b) },
    'deflate-raw': { header: 'deflate', encode: (b) => zlib.deflateRawSync(b) },
    br: { header: 'br', encode: (b) => zlib.brotliCompressSync(b) },
    'deflate-then-gzip': { header: 'deflate, gzip', encode: (b) => zlib.gzipSync(zlib.deflateSync(b)) },
  };

  it('decodes gzip, deflate (zlib and raw), br and stacked codings, and drops Content-Encoding', async () => {
    const server = await serve(
      http.createServer((req, res) => {
        const coding = encodings[(req.url ?? '').slice(1)];
        if (!coding) {
          res.writeHead(404).end();
          return;
        }
        const body = coding.encode(json);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': coding.header,
          'content-length': String(body.byteLength),
        });
        res.end(body);
      }),
    );
    const transport = createTransport({ product: 'core' });
    for (const name of Object.keys(encodings)) {
      const { response, bytes } = await transport.send({ url: `${server.url}/${name}`, method: 'GET', headers: {} });
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-encoding'), name).toBeNull();
      expect(JSON.parse(decoder.decode(bytes)), name).toEqual(payload);

      const fetched = await transport.fetch(`${server.url}/${name}`);
      expect(fetched.headers.get('content-encoding'), name).toBeNull();
      expect(await fetched.json(), name).toEqual(payload);
    }
  });

  it('keeps both Set-Cookie headers', async () => {
    const server = await serve(
      http.createServer((_req, res) => {
        res.setHeader('set-cookie', ['session=abc; Path=/; HttpOnly', 'region=mx; Path=/']);
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      }),
    );
    const transport = createTransport({ product: 'core' });
    const { response } = await transport.send({ url: `${server.url}/login`, method: 'GET', headers: {} });
    expect(response.headers.getSetCookie()).toEqual(['session=abc; Path=/; HttpOnly', 'region=mx; Path=/']);
    const fetched = await transport.fetch(`${server.url}/login`);
    expect(fetched.headers.getSetCookie()).toHaveLength(2);
  });

  it('rejects a status no Response can hold (600) with a ConnectionError, and leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const server = await serve(
        net.createServer((socket) => {
          // Every request (the agent keeps the connection for the next one) gets the same answer.
          socket.on('data', () => socket.write('HTTP/1.1 600 Weird\r\nContent-Length: 0\r\n\r\n'));
          socket.on('error', () => {});
        }),
      );
      const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
      const error = await transport.fetch(`${server.url}/odd`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConnectionError);
      expect(((error as Error).cause as Error).message).toContain('600');
      const sent = await transport.send({ url: `${server.url}/odd`, method: 'GET', headers: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(sent).toBeInstanceOf(ConnectionError);
      // Unhandled rejections are reported after the microtask queue drains: give them a moment.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('redirects', () => {
  async function redirecting(): Promise<{ server: Running; paths: string[] }> {
    const paths: string[] = [];
    const server = await serve(
      http.createServer((req, res) => {
        paths.push(req.url ?? '');
        if (req.url === '/start') {
          res.writeHead(302, { location: '/target', 'content-type': 'text/plain' });
          res.end('moved');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ at: req.url }));
      }),
    );
    return { server, paths };
  }

  it("follows a 302 for redirect 'follow' (the default): the answer is the target's", async () => {
    const { server, paths } = await redirecting();
    const transport = createTransport({ product: 'core' });
    const response = await transport.fetch(`${server.url}/start`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ at: '/target' });
    expect(paths.at(-1)).toBe('/target');
    expect(paths.filter((path) => path === '/target')).toHaveLength(1);

    const { response: sent, bytes } = await transport.send({ url: `${server.url}/start`, method: 'GET', headers: {} });
    expect(sent.status).toBe(200);
    expect(JSON.parse(decoder.decode(bytes))).toEqual({ at: '/target' });
  });

  it("returns the 302 itself for redirect 'manual'", async () => {
    const { server, paths } = await redirecting();
    const transport = createTransport({ product: 'core' });
    const response = await transport.fetch(`${server.url}/start`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/target');
    expect(await response.text()).toBe('moved');

    const { response: sent } = await transport.send({
      url: `${server.url}/start`,
      method: 'GET',
      headers: {},
      redirect: 'manual',
    });
    expect(sent.status).toBe(302);
    expect(paths).toEqual(['/start', '/start']);
  });

  it("refuses a redirect for redirect 'error': a ConnectionError whose cause names the refused redirect", async () => {
    const { server, paths } = await redirecting();
    const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
    const error = await transport.fetch(`${server.url}/start`, { redirect: 'error' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain(`${server.url}/start`);
    expect((error as Error).message).toContain('(1 attempt)');
    expect(((error as Error).cause as Error).message).toContain('redirect to /target refused');
    expect(paths).toEqual(['/start']);

    // A GET is safe to repeat, so with the default policy the refused redirect is retried like a
    // network error (what it also was with fetch as the sender): every attempt sees the same 302.
    const { sleep, delays } = recordingSleep();
    const retrying = createTransport({ product: 'core', sleep, retry: { maxRetries: 2 } });
    await expect(
      retrying.send({ url: `${server.url}/start`, method: 'GET', headers: {}, redirect: 'error' }),
    ).rejects.toBeInstanceOf(ConnectionError);
    expect(delays).toHaveLength(2);
    expect(paths).toEqual(['/start', '/start', '/start', '/start']);
  });
});

describe('redirects as fetch follows them', () => {
  /** Every request as it arrived; `route` answers it. */
  async function recording(
    route: (arrived: Arrived, res: http.ServerResponse) => void,
  ): Promise<{ server: Running; arrived: Arrived[] }> {
    const arrived: Arrived[] = [];
    const server = await serve(
      http.createServer((req, res) => {
        void readRequest(req).then((request) => {
          arrived.push(request);
          route(request, res);
        });
      }),
    );
    return { server, arrived };
  }

  const json = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('sends a POST answered 303 once, then GETs the Location without the body or its headers', async () => {
    const { server, arrived } = await recording((request, res) => {
      if (request.path === '/pay') {
        res.writeHead(303, { location: '/receipt' });
        res.end();
      } else json(res, { receipt: true });
    });
    const transport = createTransport({ product: 'core' });
    const { response, bytes } = await transport.send({
      url: `${server.url}/pay`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: '{"amount":"10.00"}',
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(decoder.decode(bytes))).toEqual({ receipt: true });
    expect(arrived.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /pay', 'GET /receipt']);
    const followed = arrived[1]!;
    expect(followed.body.byteLength).toBe(0);
    expect(followed.headers['content-type']).toBeUndefined();
    expect(followed.headers['content-length']).toBeUndefined();
    expect(followed.headers['idempotency-key']).toBe('k-1');
  });

  it('keeps the method and the body for 307 and 308, and turns a POST answered 301/302 into a GET', async () => {
    for (const status of [307, 308, 301, 302]) {
      const { server, arrived } = await recording((request, res) => {
        if (request.path === '/from') {
          res.writeHead(status, { location: '/to' });
          res.end();
        } else json(res, { method: request.method, body: request.body.toString('utf8') });
      });
      const transport = createTransport({ product: 'core' });
      const { bytes } = await transport.send({
        url: `${server.url}/from`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'k-2' },
        body: '{"a":1}',
      });
      const keeps = status === 307 || status === 308;
      expect(JSON.parse(decoder.decode(bytes)), `status ${status}`).toEqual(
        keeps ? { method: 'POST', body: '{"a":1}' } : { method: 'GET', body: '' },
      );
      expect(
        arrived.map((request) => request.method),
        `status ${status}`,
      ).toEqual(['POST', keeps ? 'POST' : 'GET']);
    }
  });

  it('keeps only headers that cannot authenticate on a redirect to another origin (x-api-key, Authorization, Cookie, cash signatures dropped), and keeps them all on the same one', async () => {
    const other = await recording((_request, res) => json(res, { other: true }));
    const { server, arrived } = await recording((request, res) => {
      if (request.path === '/away') {
        res.writeHead(302, { location: `${other.server.url}/landing` });
        res.end();
      } else if (request.path === '/near') {
        res.writeHead(307, { location: '/landing' });
        res.end();
      } else json(res, { near: true });
    });
    const transport = createTransport({ product: 'core' });
    const credentials = {
      'x-api-key': 'api-key-value',
      authorization: 'Bearer secret-token-value',
      cookie: 'sid=1',
      'x-client-id': 'cash-client-id',
      'x-timestamp': '1700000000',
      'x-signature': 'cash-signature',
      'x-some-new-auth': 'anything a product adds later',
    };
    const headers = () => ({ ...credentials, accept: 'application/json', 'idempotency-key': 'k-1' });
    const { bytes } = await transport.send({ url: `${server.url}/away`, method: 'GET', headers: headers() });
    expect(JSON.parse(decoder.decode(bytes))).toEqual({ other: true });
    const away = other.arrived[0]!.headers;
    for (const name of Object.keys(credentials)) expect(away[name], name).toBeUndefined();
    expect(away.accept).toBe('application/json');
    expect(away['idempotency-key']).toBe('k-1');
    expect(away['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    await transport.send({ url: `${server.url}/near`, method: 'GET', headers: headers() });
    const landing = arrived.find((request) => request.path === '/landing')!;
    for (const [name, value] of Object.entries(credentials)) expect(landing.headers[name], name).toBe(value);
  });

  it('gives up after 20 redirects, as fetch does', async () => {
    const { server, arrived } = await recording((request, res) => {
      const n = Number(request.path.slice(1)) || 0;
      res.writeHead(302, { location: `/${n + 1}` });
      res.end();
    });
    const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
    const error = await transport.send({ url: `${server.url}/0`, method: 'GET', headers: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(((error as Error).cause as Error).message).toContain('more than 20 redirects');
    expect(arrived).toHaveLength(21);
  });

  it('passes a body in a coding it does not know through as it came, with its Content-Encoding', async () => {
    const server = await serve(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-encoding': 'compress' });
        res.end('raw bytes');
      }),
    );
    const { response, bytes } = await createTransport({ product: 'core' }).send({
      url: server.url,
      method: 'GET',
      headers: {},
    });
    expect(response.status).toBe(200);
    expect(decoder.decode(bytes)).toBe('raw bytes');
    expect(response.headers.get('content-encoding')).toBe('compress');
  });
});

describe('request bodies and connections', () => {
  it('sends Content-Length: 0 for a POST without a body, the byte length and exact bytes for a UTF-8 body, and leaves the caller’s headers alone', async () => {
    const arrived: Arrived[] = [];
    const server = await serve(
      http.createServer((req, res) => {
        void readRequest(req).then((request) => {
          arrived.push(request);
          res.writeHead(201, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        });
      }),
    );
    const transport = createTransport({ product: 'core' });

    const emptyHeaders: Record<string, string> = { accept: 'application/json' };
    const empty = await transport.send({ url: `${server.url}/v1/empty`, method: 'POST', headers: emptyHeaders });
    expect(empty.response.status).toBe(201);
    expect(arrived[0]!.headers['content-length']).toBe('0');
    expect(arrived[0]!.headers['transfer-encoding']).toBeUndefined();
    expect(arrived[0]!.body.byteLength).toBe(0);
    expect(emptyHeaders).not.toHaveProperty('content-length');

    const text = JSON.stringify({ description: 'Pago de señora Núñez — 10,00 € ✓ 🎉', clabe: '002010077777777771' });
    const expected = Buffer.from(text, 'utf8');
    expect(expected.byteLength).toBeGreaterThan(text.length);
    const bodyHeaders: Record<string, string> = { 'content-type': 'application/json' };
    await transport.send({ url: `${server.url}/v1/body`, method: 'POST', headers: bodyHeaders, body: text });
    expect(arrived[1]!.headers['content-length']).toBe(String(expected.byteLength));
    expect(arrived[1]!.headers['transfer-encoding']).toBeUndefined();
    expect(arrived[1]!.body.equals(expected)).toBe(true);
    expect(bodyHeaders).not.toHaveProperty('content-length');

    // Bytes are sent as they are, PUT and PATCH without a body say 0 too, and a GET says nothing.
    const bytes = new Uint8Array([0, 1, 2, 0xc3, 0xb1, 0xff]);
    await transport.send({ url: `${server.url}/v1/bytes`, method: 'PUT', headers: {}, body: bytes });
    expect(arrived[2]!.headers['content-length']).toBe('6');
    expect(arrived[2]!.body.equals(Buffer.from(bytes))).toBe(true);
    await transport.send({ url: `${server.url}/v1/patch`, method: 'PATCH', headers: {} });
    expect(arrived[3]!.headers['content-length']).toBe('0');
    expect(arrived[3]!.headers['transfer-encoding']).toBeUndefined();
    await transport.send({ url: `${server.url}/v1/get`, method: 'GET', headers: {} });
    expect(arrived[4]!.headers['content-length']).toBeUndefined();
    expect(arrived[4]!.headers['transfer-encoding']).toBeUndefined();
  });

  it("closes an idle connection before the server's announced Keep-Alive timeout (a second's margin), not after it", async () => {
    let closedAfterMs: number | undefined;
    let answeredAt = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
      answeredAt = performance.now();
    });
    // The server announces `Keep-Alive: timeout=3` and would close at 3 s; the client must close first, at about 2 s.
    server.keepAliveTimeout = 3_000;
    server.on('connection', (socket: net.Socket) =>
      socket.on('close', () => (closedAfterMs = performance.now() - answeredAt)),
    );
    const running = await serve(server);
    await createTransport({ product: 'core' }).send({ url: running.url, method: 'GET', headers: {} });
    await within(
      new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (closedAfterMs !== undefined) {
            clearInterval(poll);
            resolve();
          }
        }, 50);
      }),
      6_000,
      'the idle connection closing',
    );
    expect(closedAfterMs).toBeGreaterThan(1_500);
    expect(closedAfterMs).toBeLessThan(2_900);
  }, 10_000);

  // undici's pool may open a second connection while the first answer's end is still being
  // processed; after that every request reuses one of the two.
  it('reuses kept-alive TCP connections for sequential requests: 20 calls, at most 2 connections', async () => {
    const server = await serve(
      http.createServer((req, res) => {
        void readRequest(req).then(() => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ path: req.url }));
        });
      }),
    );
    const transport = createTransport({ product: 'core' });
    for (let i = 0; i < 18; i++) {
      const { bytes } = await transport.send({ url: `${server.url}/n/${i}`, method: 'GET', headers: {} });
      expect(JSON.parse(decoder.decode(bytes))).toEqual({ path: `/n/${i}` });
    }
    await transport.fetch(`${server.url}/via-fetch`).then((response) => response.text());
    await transport.send({ url: `${server.url}/post`, method: 'POST', headers: {}, body: '{}' });
    expect(server.connections).toBeLessThanOrEqual(2);
  });
});

describe('failures', () => {
  it('a connection cut after 10 of 100 announced bytes → ConnectionError', async () => {
    const server = await serve(
      http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":"tx-', () => res.socket?.destroy());
      }),
    );
    const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
    const error = await transport.fetch(`${server.url}/cut`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    // undici names a socket closed mid-answer UND_ERR_SOCKET (node:http said ECONNRESET).
    expect((error as Error).message).toMatch(/UND_ERR_SOCKET|ECONNRESET/);

    const sent = await transport.send({ url: `${server.url}/cut`, method: 'GET', headers: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(sent).toBeInstanceOf(ConnectionError);
  });

  it("a caller's abort rejects with a UserAbortError caused by its reason, and closes the connection", async () => {
    const arrived = deferred();
    const closed = deferred();
    let abortedBeforeClose: boolean | undefined;
    const controller = new AbortController();
    const server = await serve(
      http.createServer((req) => {
        // Never answers; notices the client going away.
        req.on('close', () => {
          abortedBeforeClose = controller.signal.aborted;
          closed.resolve();
        });
        arrived.resolve();
      }),
    );
    const transport = createTransport({ product: 'core' });
    const reason = new Error('the caller gave up');
    const outcome = transport.fetch(`${server.url}/slow`, { signal: controller.signal }).then(
      () => 'answered',
      (e: unknown) => e,
    );
    await within(arrived.promise, 10_000, 'the request reaching the server');
    controller.abort(reason);
    const error = await outcome;
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as Error).cause).toBe(reason);
    await within(closed.promise, 10_000, "the server's request 'close' event");
    expect(abortedBeforeClose).toBe(true);
  });

  it("a caller's abort before the connection is made rejects at once (its reason the cause), and the request is never written", async () => {
    const paths: string[] = [];
    const server = await serve(
      http.createServer((req, res) => {
        paths.push(req.url ?? '');
        res.end('{}');
      }),
    );
    const transport = createTransport({ product: 'core' });
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    // The pool has no connection to this server yet: the abort comes while it is being made.
    const outcome = transport
      .send({ url: `${server.url}/first`, method: 'POST', headers: {}, body: '{}', signal: controller.signal })
      .then(
        () => 'answered',
        (e: unknown) => e,
      );
    controller.abort(reason);
    const error = await within(outcome, 5_000, 'the aborted request settling');
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as Error).cause).toBe(reason);
    // A request written before the abort would have reached the server before this one.
    const { status } = await transport.send({ url: `${server.url}/second`, method: 'GET', headers: {} });
    expect(status).toBe(200);
    expect(paths).toEqual(['/second']);
  });

  it('a server that never answers → TimeoutError after timeoutMs, well under 2 s', async () => {
    const closed = deferred();
    const server = await serve(
      http.createServer((req) => {
        req.on('close', () => closed.resolve());
      }),
    );
    const transport = createTransport({ product: 'core', timeoutMs: 200, retry: { maxRetries: 0 } });
    const started = performance.now();
    const error = await transport.fetch(`${server.url}/never`).then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(2_000);
    // The timed-out request is destroyed, not left open on the server.
    await within(closed.promise, 10_000, "the server's request 'close' event");
  });
});

const opensslMissing = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status !== 0;
const SKIP_REASON = opensslMissing ? ' (skipped: no `openssl` CLI on PATH to make a throw-away certificate)' : '';

describe('https', () => {
  let dir: string | undefined;
  let cert = '';
  let key = '';

  beforeAll(() => {
    if (opensslMissing) return;
    dir = mkdtempSync(join(tmpdir(), 'paykit-undici-send-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (made.status !== 0)
      throw new Error(`openssl could not make the test certificate: ${made.stderr || made.error?.message}`);
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    key = readFileSync(join(dir, 'key.pem'), 'utf8');
  });

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function httpsServer(): Promise<{ server: Running; requests: () => number }> {
    let requests = 0;
    const server = await serve(
      https.createServer({ cert, key }, (req, res) => {
        requests++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ secure: true, path: req.url }));
      }),
      'https',
    );
    return { server, requests: () => requests };
  }

  it.skipIf(opensslMissing)(
    `refuses a certificate this process does not trust: ConnectionError${SKIP_REASON}`,
    async () => {
      const { server, requests } = await httpsServer();
      const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
      const error = await transport.fetch(`${server.url}/`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConnectionError);
      expect(((error as Error).cause as Error).message).toMatch(/self[- ]signed certificate/i);
      expect(requests()).toBe(0);
    },
  );

  it.skipIf(opensslMissing)(
    `talks https to a server whose certificate NODE_EXTRA_CA_CERTS trusts (child process)${SKIP_REASON}`,
    async () => {
      const { server, requests } = await httpsServer();
      const script = [
        "import { createTransport } from '@paykit/runtime';",
        "const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });",
        `const response = await transport.fetch(${JSON.stringify(`${server.url}/secure`)});`,
        'console.log(JSON.stringify({ status: response.status, body: await response.json() }));',
      ].join('\n');
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--conditions=@paykit/source', '--input-type=module', '-e', script],
          { cwd: RUNTIME_DIR, env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir!, 'cert.pem') }, timeout: 45_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
        );
      });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout), run.stderr).toEqual({ status: 200, body: { secure: true, path: '/secure' } });
      expect(requests()).toBe(1);
    },
  );
});
