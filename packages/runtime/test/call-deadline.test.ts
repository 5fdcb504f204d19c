// A caller's timeoutMs is one deadline for the whole call: every attempt, the waits between them
// and the body reads end by then (real servers on 127.0.0.1, real timers).
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError, UserAbortError } from '../src/core/errors.ts';
import { createTransport } from '../src/core/transport.ts';
import { listenOnLoopback, startScriptedServer, type ScriptedServer } from '@paykit/test-basics/scripted-server';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function scripted(...args: Parameters<typeof startScriptedServer>): Promise<ScriptedServer> {
  const server = await startScriptedServer(...args);
  stops.push(() => server.close());
  return server;
}

/** Answers 200 with 10 of 100 announced bytes, then nothing; `written`: once it has; `closed()`: whether the client has gone. */
async function slowBody(): Promise<{ url: string; written: Promise<void>; closed: () => boolean }> {
  let closed = false;
  let wrote!: () => void;
  const written = new Promise<void>((resolve) => (wrote = resolve));
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"id":"tx-', () => wrote());
    res.on('close', () => (closed = true));
  });
  const running = await listenOnLoopback(server);
  stops.push(() => running.close());
  return { url: `${running.url}/slow-body`, written, closed: () => closed };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("the call's deadline", () => {
  it('a server that never answers: TimeoutError at the call’s 300 ms however many retries remain', async () => {
    const server = await scripted(() => 'hang');
    const transport = createTransport({ product: 'core', timeoutMs: 30_000, retry: { maxRetries: 5 } });
    const started = performance.now();
    const error = await caught(
      transport.send(
        { url: `${server.url}/v1/things`, method: 'GET', headers: {} },
        { timeoutMs: 300, operation: 'listThings' },
      ),
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as Error).message).toMatch(/core listThings: the call's timeoutMs of 300 ms ran out/);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(900);
    expect(server.received).toHaveLength(1);
  });

  it('no retry starts after the deadline: a 503 whose backoff would end past it is the answer', async () => {
    const server = await scripted(() => ({ status: 503, body: { message: 'busy' } }));
    // random 1: backoff 500 ms after the first attempt, 1 000 ms after the second.
    const transport = createTransport({ product: 'core', random: () => 1, retry: { maxRetries: 5 } });
    const started = performance.now();
    const { response } = await transport.send(
      { url: `${server.url}/v1/things`, method: 'GET', headers: {} },
      { timeoutMs: 900 },
    );
    const elapsed = performance.now() - started;
    expect(response.status).toBe(503);
    expect(server.received).toHaveLength(2);
    expect(elapsed).toBeLessThan(900);
  });

  it('covers the body read: headers on time, the rest of the body never → TimeoutError at the deadline', async () => {
    const { url } = await slowBody();
    const started = performance.now();
    const error = await caught(
      createTransport({ product: 'core', retry: { maxRetries: 3 } }).send(
        { url, method: 'GET', headers: {} },
        { timeoutMs: 300 },
      ),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(900);
  });

  it('counts from startedAt: a call that spent 250 of its 300 ms before sending has 50 left', async () => {
    const server = await scripted(() => 'hang');
    const transport = createTransport({ product: 'core' });
    const started = performance.now();
    const error = await caught(
      transport.send(
        { url: `${server.url}/x`, method: 'GET', headers: {} },
        { timeoutMs: 300, startedAt: started - 250 },
      ),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('a deadline already past sends nothing', async () => {
    const server = await scripted(() => ({ status: 200, body: {} }));
    const error = await caught(
      createTransport({ product: 'core' }).send(
        { url: `${server.url}/x`, method: 'POST', headers: {}, body: '{}' },
        { timeoutMs: 100, startedAt: performance.now() - 200 },
      ),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/no attempt could start/);
    expect(server.received).toHaveLength(0);
  });
});

describe("a caller's abort", () => {
  it('during the body read: rejects at once (a UserAbortError caused by its reason), and the connection is closed', async () => {
    const { url, written, closed } = await slowBody();
    const controller = new AbortController();
    const reason = new Error('the caller gave up mid-body');
    const call = caught(
      createTransport({ product: 'core', retry: { maxRetries: 3 } }).send({
        url,
        method: 'GET',
        headers: {},
        signal: controller.signal,
      }),
    );
    // Aborted once the server has sent its headers and part of the body.
    await written;
    const aborted = performance.now();
    controller.abort(reason);
    const error = await call;
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({ cause: reason, stage: 'in-flight' });
    expect(performance.now() - aborted).toBeLessThan(500);
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    expect(closed()).toBe(true);
  });

  it('during the backoff between retries: rejects (a UserAbortError caused by its reason) without another attempt', async () => {
    const server = await scripted(() => ({ status: 503, body: { message: 'busy' } }));
    const controller = new AbortController();
    const reason = new Error('the caller gave up while waiting');
    // random 1: a 500 ms wait after the first 503; the abort lands in it, once the wait has begun.
    let waiting!: () => void;
    const backoff = new Promise<void>((resolve) => (waiting = resolve));
    const transport = createTransport({
      product: 'core',
      random: () => 1,
      retry: { maxRetries: 3 },
      sleep: (ms) => {
        waiting();
        return new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const call = caught(
      transport.send({ url: `${server.url}/x`, method: 'GET', headers: {}, signal: controller.signal }),
    );
    await backoff;
    const aborted = performance.now();
    controller.abort(reason);
    const error = await call;
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({ cause: reason, stage: 'between-attempts' });
    expect(performance.now() - aborted).toBeLessThan(250);
    expect(server.received).toHaveLength(1);
  });
});
