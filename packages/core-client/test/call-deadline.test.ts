// One deadline per call: a caller's signal and timeoutMs cover the sign-in a call waits for, not
// only the request after it. A real server on 127.0.0.1 (port 0) whose credential endpoint never
// answers; the call must settle at its own deadline, while the shared sign-in goes on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type net from 'node:net';
import { TimeoutError, UserAbortError } from '@paykit/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createCoreClient } from '@paykit/core-client';

const CLIENT_ID = '6f1c2a7e-3b4d-4c5e-8f90-1a2b3c4d5e6f';
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** A platform whose sign-in hangs (no answer, connection kept open), counting what arrived. */
async function hangingSignIn(): Promise<{ url: string; arrived: string[] }> {
  const arrived: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req) => {
    arrived.push(`${req.method} ${req.url}`);
    req.resume();
  });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived };
}

function client(baseUrl: string) {
  // The sign-in's own per-attempt timeout is 5 s: the call must not wait for it.
  return createCoreClient({
    environment: 'staging',
    baseUrl,
    clientId: CLIENT_ID,
    apiKey: 'test-api-key',
    timeoutMs: 5_000,
  });
}

describe('a call’s deadline covers its sign-in', () => {
  it('a call aborted at 300 ms while signing in settles at about 300 ms, a UserAbortError caused by the abort reason', async () => {
    const platform = await hangingSignIn();
    const reason = new Error('caller gave up');
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 300);
    const started = performance.now();
    const error = await client(platform.url)
      .accounts.block('acc-1', { signal: controller.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({ cause: reason, stage: 'signing-in' });
    expect((error as Error).message).toMatch(
      /^core \(staging\) blockAccount: aborted by the caller's signal while the client was signing in \(Error\) — it was not sent; the sign-in goes on/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_000);
    // The sign-in started; the blocked account was never asked for.
    expect(platform.arrived).toEqual([`GET /v1/clients/${CLIENT_ID}/credentials`]);
  });

  it('timeoutMs: 300 while signing in → TimeoutError at about 300 ms saying the call was not sent', async () => {
    const platform = await hangingSignIn();
    const started = performance.now();
    const error = await client(platform.url)
      .webhooks.list({ timeoutMs: 300 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as Error).message).toMatch(
      /listWebhooks was not sent: signing in .* took longer than the call's timeoutMs of 300 ms/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(280);
    expect(elapsed).toBeLessThan(1_000);
  });

  it('a signal already aborted settles at once, before any request (no sign-in either)', async () => {
    const platform = await hangingSignIn();
    const reason = new Error('already gone');
    const error = await client(platform.url)
      .webhooks.list({ signal: AbortSignal.abort(reason) })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toMatchObject({ cause: reason, stage: 'before-sending' });
    expect(platform.arrived).toEqual([]);
  });
});
