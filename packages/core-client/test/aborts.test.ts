// Every way a call ends early is a PaykitError: the caller's signal aborting before anything is
// sent, while the client signs in, or while the answer is being read (UserAbortError, its cause the
// signal's own reason), and the call's own timeoutMs running out (TimeoutError). Against a real
// HTTP server on 127.0.0.1 that answers the sign-in as the platform does and then as each case needs.
import { startScriptedServer, type Answer, type ScriptedServer } from '@paykit/test-basics/scripted-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCoreClient, PaykitError, TimeoutError, UserAbortError } from '@paykit/core-client';

const CLIENT_ID = '6f1c2a7e-3b4d-4c5e-8f90-1a2b3c4d5e6f';
const CREDENTIAL_ID = '2c9b8a7f-6e5d-4c3b-9a1f-0e2d3c4b5a69';
const API_KEY = 'pk_aborts_api_key_never_shown_000001';
const SECRET = 'cs_aborts_client_secret_never_shown_01';
const TOKEN = 'eyJaborts.jwt.token-value-never-shown';

const TRANSFER = {
  source_instrument_id: '0f1e2d3c-4b5a-4968-8776-655443322110',
  destination_instrument_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  transaction_request: { amount: '150.00', currency: 'MXN' as const, description: 'Payout', external_reference: '1' },
};

let server: ScriptedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The platform's sign-in (credential, then token) as `signIn` says, and `call` for everything after it. */
async function platform(signIn: 'answer' | 'hang', call: Answer): Promise<ScriptedServer> {
  server = await startScriptedServer((request) => {
    if (request.path.endsWith('/credentials')) {
      if (signIn === 'hang') return 'hang';
      return {
        status: 200,
        body: {
          data: [
            {
              id: CREDENTIAL_ID,
              client_id: CLIENT_ID,
              client_secret: SECRET,
              environment: 'staging',
              status: 'ACTIVE',
              created_at: '2026-05-01T09:00:00-06:00',
              updated_at: '2026-05-01T09:00:00-06:00',
              deleted_at: null,
            },
          ],
        },
      };
    }
    if (request.path.endsWith('/auth/credential-tokens')) {
      return {
        status: 200,
        body: {
          id: '7d3f1a2b-0c4e-4f5a-8b6c-000000000001',
          client_id: CLIENT_ID,
          client_credential_id: CREDENTIAL_ID,
          token: TOKEN,
          status: 'ACTIVE',
          expires_at: '2099-01-01 00:00:00.000000',
          created_at: '2026-05-07 12:00:00.000000-06:00',
          updated_at: '2026-05-07 12:00:00.000000-06:00',
          deleted_at: null,
        },
      };
    }
    return call;
  });
  return server;
}

function client(baseUrl: string) {
  return createCoreClient({
    environment: 'staging',
    baseUrl,
    clientId: CLIENT_ID,
    apiKey: API_KEY,
    timeoutMs: 5_000,
    maxRetries: 0,
  });
}

function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

function expectNoSecret(error: unknown): void {
  const shown = [String(error), JSON.stringify(error), (error as Error).stack ?? ''].join('\n');
  for (const secret of [API_KEY, SECRET, TOKEN]) expect(shown).not.toContain(secret);
}

describe('a caller’s abort is a UserAbortError, a timeout a TimeoutError, both PaykitErrors', () => {
  it('an already aborted signal: moneyOut sends nothing, not even a sign-in, and the cause is the signal’s reason', async () => {
    const { url, received } = await platform('answer', { status: 200, body: {} });
    const reason = new Error('the caller gave up');
    const error = await caught(client(url).transactions.moneyOut(TRANSFER, { signal: AbortSignal.abort(reason) }));
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toBeInstanceOf(PaykitError);
    expect((error as UserAbortError).cause).toBe(reason);
    expect((error as UserAbortError).stage).toBe('before-sending');
    expect((error as Error).message).toMatch(
      /^core \(staging\) createMoneyOut: aborted by the caller's signal before the request was sent \(Error\) — nothing was sent/,
    );
    // Not even a sign-in was started for it.
    expect(received).toEqual([]);
    expectNoSecret(error);
  });

  it('aborted before sending, with a token already held: nothing reaches the platform', async () => {
    const { url, received } = await platform('answer', { status: 200, body: { data: [] } });
    const core = client(url);
    await core.tokens.current();
    const before = received.length;
    const error = await caught(core.transactions.moneyOut(TRANSFER, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as UserAbortError).stage).toBe('before-sending');
    expect((error as UserAbortError).cause).toMatchObject({ name: 'AbortError' });
    expect((error as Error).message).toMatch(
      /^core \(staging\) createMoneyOut: aborted by the caller's signal before the request was sent \(AbortError\) — nothing was sent/,
    );
    expect(received).toHaveLength(before);
    expectNoSecret(error);
  });

  it('aborted during sign-in (the token request hangs): settles at the abort, as a UserAbortError', async () => {
    const { url } = await platform('hang', { status: 200, body: {} });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const error = await caught(client(url).webhooks.list({ signal: controller.signal }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as UserAbortError).stage).toBe('signing-in');
    expect((error as UserAbortError).cause).toBe(controller.signal.reason);
    expectNoSecret(error);
  });

  it('AbortSignal.timeout during sign-in: a UserAbortError whose cause is the signal’s TimeoutError', async () => {
    const { url } = await platform('hang', { status: 200, body: {} });
    const signal = AbortSignal.timeout(200);
    const error = await caught(client(url).webhooks.list({ signal }));
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as UserAbortError).cause).toMatchObject({ name: 'TimeoutError' });
    expect((error as Error).message).toContain('(TimeoutError)');
  });

  it('aborted mid-response (headers and half a body came): a UserAbortError saying the platform may have acted', async () => {
    const { url, received } = await platform('answer', 'stall-mid-body');
    const controller = new AbortController();
    const core = client(url);
    await core.tokens.current();
    const signIn = received.length;
    const call = caught(core.transactions.moneyOut(TRANSFER, { signal: controller.signal }));
    // Aborted once the platform has the request (it answers headers and half a body, then stalls).
    await vi.waitFor(() => expect(received.length).toBeGreaterThan(signIn), { timeout: 30_000, interval: 10 });
    controller.abort();
    const error = await call;
    expect(error).toBeInstanceOf(UserAbortError);
    expect((error as UserAbortError).stage).toBe('in-flight');
    expect((error as UserAbortError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect((error as Error).message).toMatch(/while the request was in flight .* look it up by its Idempotency-Key/);
    expectNoSecret(error);
  });

  it('a per-request timeoutMs running out mid-response: a TimeoutError whose cause is the deadline’s', async () => {
    const { url } = await platform('answer', 'stall-mid-body');
    const core = client(url);
    await core.tokens.current();
    const started = performance.now();
    const error = await caught(core.webhooks.list({ timeoutMs: 300 }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(PaykitError);
    expect((error as TimeoutError).timeoutMs).toBe(300);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    expect((error as Error).message).toMatch(/timeoutMs of 300 ms ran out .* raise timeoutMs/);
    expectNoSecret(error);
  });
});
