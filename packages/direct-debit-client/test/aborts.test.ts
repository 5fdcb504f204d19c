// A call ended early is a PaykitError in this client too (it has no sign-in: its API key goes on
// every request): the caller's signal before sending or mid-response is a UserAbortError whose
// cause is the signal's reason, and timeoutMs running out is a TimeoutError. Against a real HTTP
// server on 127.0.0.1 that answers as each case needs.
import { startScriptedServer, type Answer, type ScriptedServer } from '@paykit/test-basics/scripted-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDirectDebitClient, PaykitError, TimeoutError, UserAbortError } from '@paykit/direct-debit-client';

const API_KEY = 'dd_aborts_key_never_shown_0000000001';
const CUSTOMER = { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' } as const;

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function platform(answer: Answer): Promise<ScriptedServer> {
  server = await startScriptedServer(() => answer);
  return server;
}

function client(baseUrl: string) {
  return createDirectDebitClient({ environment: 'sandbox', baseUrl, apiKey: API_KEY, timeoutMs: 5_000 });
}

function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('direct debit: aborts and timeouts are PaykitErrors', () => {
  it('an aborted signal sends nothing: UserAbortError before sending, its cause the reason', async () => {
    const { url, received } = await platform({ status: 201, body: {} });
    const reason = new DOMException('stop', 'AbortError');
    const error = await caught(client(url).customers.create(CUSTOMER, { signal: AbortSignal.abort(reason) }));
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toBeInstanceOf(PaykitError);
    expect((error as UserAbortError).cause).toBe(reason);
    expect((error as UserAbortError).stage).toBe('before-sending');
    expect((error as Error).message).toBe(
      "direct-debit createCustomer: aborted by the caller's signal before the request was sent (AbortError) — nothing was sent; call again when it should be made",
    );
    expect(received).toEqual([]);
  });

  it('aborted mid-response: UserAbortError in flight, with the request id, and no API key anywhere', async () => {
    const { url, received } = await platform('stall-mid-body');
    const controller = new AbortController();
    const call = caught(client(url).customers.create(CUSTOMER, { signal: controller.signal }));
    // Aborted once the platform has the request (it answers headers and half a body, then stalls).
    await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 30_000, interval: 10 });
    const aborted = performance.now();
    controller.abort();
    const error = await call;
    expect(performance.now() - aborted).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as UserAbortError).stage).toBe('in-flight');
    expect((error as UserAbortError).requestId).toBe(received[0]?.headers['x-request-id']);
    expect([String(error), JSON.stringify(error)].join('\n')).not.toContain(API_KEY);
  });

  it('aborted while walking pages: the iteration throws a UserAbortError', async () => {
    const { url } = await platform('stall-mid-body');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 200);
    const walk = async (): Promise<void> => {
      for await (const _ of client(url).instruments.list({}, { signal: controller.signal })) void _;
    };
    const error = await caught(walk());
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as Error).message).toMatch(
      /^direct-debit listInstruments: aborted by the caller's signal .*\(Error,/,
    );
  });

  it('a per-request timeoutMs: TimeoutError whose cause is the deadline’s TimeoutError', async () => {
    const { url } = await platform('stall-mid-body');
    const error = await caught(client(url).customers.create(CUSTOMER, { timeoutMs: 300 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(PaykitError);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect((error as Error).message).toMatch(/^direct-debit createCustomer: .*300 ms.* — raise timeoutMs/);
  });
});
