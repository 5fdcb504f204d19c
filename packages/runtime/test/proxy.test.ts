// The default transport honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY, read when the transport is
// created: a real forward proxy (CONNECT tunnels and absolute-form requests) on 127.0.0.1 sees
// the calls, and a host NO_PROXY names is reached directly.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport } from '../src/core/transport.ts';
import { closedPort, listenOnLoopback } from '@paykit/test-basics/scripted-server';

const closers: (() => Promise<void>)[] = [];
const savedEnv = new Map<string, string | undefined>();

afterEach(async () => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
  await Promise.all(closers.splice(0).map((close) => close()));
});

function setEnv(values: Record<string, string>): void {
  for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']) {
    if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
    delete process.env[name];
  }
  Object.assign(process.env, values);
}

async function listen(server: net.Server): Promise<string> {
  const running = await listenOnLoopback(server);
  closers.push(() => running.close());
  return running.url;
}

/** A forward proxy: CONNECT tunnels and absolute-form requests, each one recorded. */
async function startProxy(): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return { url: await listen(server), seen };
}

async function startTarget(): Promise<string> {
  return listen(
    http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url }));
    }),
  );
}

const decoder = new TextDecoder();

describe('proxy variables', () => {
  it('sends through the proxy HTTP_PROXY names', async () => {
    const target = await startTarget();
    const proxy = await startProxy();
    setEnv({ HTTP_PROXY: proxy.url });
    const transport = createTransport({ product: 'core', retry: { maxRetries: 0 } });
    const { response, bytes } = await transport.send({ url: `${target}/v1/via-proxy`, method: 'GET', headers: {} });
    expect(response.status).toBe(200);
    expect(JSON.parse(decoder.decode(bytes))).toEqual({ path: '/v1/via-proxy' });
    const host = new URL(target).host;
    expect(
      proxy.seen.some((line) => line === `CONNECT ${host}` || line === `GET ${target}/v1/via-proxy`),
      proxy.seen.join('; '),
    ).toBe(true);
  });

  it('reaches a host NO_PROXY names directly, and uses no proxy when none is set', async () => {
    const target = await startTarget();
    const proxy = await startProxy();
    setEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    await createTransport({ product: 'core' }).send({ url: `${target}/direct`, method: 'GET', headers: {} });
    setEnv({});
    await createTransport({ product: 'core' }).send({ url: `${target}/none`, method: 'GET', headers: {} });
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that is down is a ConnectionError naming the refusal, not a silent direct call', async () => {
    const target = await startTarget();
    // A port nothing listens on: the proxy refuses.
    const port = await closedPort();
    setEnv({ HTTP_PROXY: `http://127.0.0.1:${port}` });
    const error = await createTransport({ product: 'core', retry: { maxRetries: 0 } })
      .send({ url: `${target}/x`, method: 'GET', headers: {} })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('ConnectionError');
  });
});
