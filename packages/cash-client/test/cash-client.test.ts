// The cash client over real HTTP against the sandbox (a separate process), with a real node:http
// receiver for the deliveries the sandbox sends (activation tests and operation events).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  constructCashEvent,
  createCashClient,
  NotFoundError,
  parseCashEvent,
  UnauthorizedError,
  verifyCashWebhook,
  WebhookVerificationError,
  type CashClientOptions,
} from '@paykit/cash-client';

const API_KEY = 'cashsandboxacme00000000000000001';
const API_SECRET = 'cash_secret_sandbox_acme_0000001';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

/** A webhook endpoint: records every request; answers 200 except under /refuse (503). */
class Receiver {
  readonly received: Received[] = [];
  readonly #waiters: { predicate: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = { path: request.url ?? '', headers: request.headers, raw: Buffer.concat(chunks) };
        this.received.push(entry);
        for (const waiter of [...this.#waiters]) {
          if (waiter.predicate(entry)) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve(entry);
          }
        }
        const refuse = entry.path.startsWith('/refuse');
        response.writeHead(refuse ? 503 : 200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(refuse ? { status: 'error', message: 'not now' } : { status: 'ok', message: 'activated' }),
        );
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The first request (already received or still to come) that matches. */
  next(predicate: (r: Received) => boolean, timeoutMs = 10_000): Promise<Received> {
    const already = this.received.find(predicate);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('The receiver got no matching request in time.')), timeoutMs);
      this.#waiters.push({ predicate, resolve: (r) => (clearTimeout(timer), resolve(r)) });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const eventOf = (r: Received): unknown => (JSON.parse(r.raw.toString('utf8')) as { event?: unknown }).event;

let sandbox: SandboxProcess;
const receiver = new Receiver();

beforeAll(async () => {
  [sandbox] = await Promise.all([startSandboxProcess(), receiver.start()]);
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), receiver.close()]);
});

function client(overrides: Partial<CashClientOptions> = {}) {
  return createCashClient({
    environment: 'sandbox',
    baseUrl: sandbox.urls.cash,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    ...overrides,
  });
}

/** Retries `read` until it stops throwing: activation answers settle just after the receiver answers. */
async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean = () => true): Promise<T> {
  let last: unknown;
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const value = await read();
      if (accept(value)) return value;
      last = new Error(`not yet: ${JSON.stringify(value)}`);
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw last;
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('cash webhooks', () => {
  let webhookId = 0;
  let secretToken = '';

  it('getActive is a NotFoundError while no webhook is active', async () => {
    const error = await rejectionOf(client().webhooks.getActive());
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).status).toBe(404);
  });

  it('create: signed, accepted, answered with the secret_token; the activation request verifies and types', async () => {
    const created = await client().webhooks.create(`${receiver.url}/hooks/cash`);
    expect(created.event).toBe('webhook.created');
    expect(created.endpoint_url).toBe(`${receiver.url}/hooks/cash`);
    expect(created.secret_token).toMatch(/^[0-9a-f]{64}$/);
    expect(Number.isInteger(created.id)).toBe(true);
    webhookId = created.id!;
    secretToken = created.secret_token!;

    const activation = await receiver.next((r) => r.path === '/hooks/cash' && eventOf(r) === 'webhook.activation');
    expect(() => verifyCashWebhook(activation.raw, activation.headers, secretToken)).not.toThrow();
    const event = constructCashEvent(activation.raw, activation.headers, secretToken);
    expect(event.event).toBe('webhook.activation');
    expect(Number.isNaN(Date.parse(event.processed_at!))).toBe(false);

    // Over the raw bytes only: one changed byte, or another secret, fails in constant time.
    const tampered = Buffer.from(activation.raw);
    tampered[tampered.length - 2] = tampered[tampered.length - 2]! ^ 1;
    expect(() => verifyCashWebhook(tampered, activation.headers, secretToken)).toThrow(WebhookVerificationError);
    expect(() => verifyCashWebhook(activation.raw, activation.headers, 'ab'.repeat(32))).toThrow(
      WebhookVerificationError,
    );
    // A queued delivery checked much later is stale.
    const later = new Date(Number(activation.headers['x-webhook-timestamp']) * 1000 + 3600_000);
    const stale = (() => {
      try {
        verifyCashWebhook(activation.raw, activation.headers, secretToken, { toleranceSeconds: 300, now: later });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(stale).toBeInstanceOf(WebhookVerificationError);
    expect((stale as WebhookVerificationError).reason).toBe('stale');
  });

  it('getActive returns the webhook once its endpoint answered the activation 2xx (without the secret)', async () => {
    const active = await eventually(() => client().webhooks.getActive());
    expect(active.id).toBe(webhookId);
    expect(active.endpoint_url).toBe(`${receiver.url}/hooks/cash`);
    expect(active.secret_token).toBeUndefined();
  });

  it('update: the webhook is re-tested at the new endpoint with the same secret, and active there again', async () => {
    await client().webhooks.update(webhookId, `${receiver.url}/hooks/cash-v2`);
    const activation = await receiver.next((r) => r.path === '/hooks/cash-v2' && eventOf(r) === 'webhook.activation');
    expect(parseCashEvent(constructCashEvent(activation.raw, activation.headers, secretToken)).event).toBe(
      'webhook.activation',
    );
    const active = await eventually(
      () => client().webhooks.getActive(),
      (w) => w.endpoint_url === `${receiver.url}/hooks/cash-v2`,
    );
    expect(active.id).toBe(webhookId);
  });

  it('update to an endpoint that refuses the activation leaves no webhook active; updating back restores it', async () => {
    await client().webhooks.update(webhookId, `${receiver.url}/refuse`);
    await receiver.next((r) => r.path === '/refuse');
    expect(
      await eventually(
        () => rejectionOf(client().webhooks.getActive()),
        (e) => e instanceof NotFoundError,
      ),
    ).toBeInstanceOf(NotFoundError);

    await client().webhooks.update(webhookId, `${receiver.url}/hooks/cash`);
    const active = await eventually(
      () => client().webhooks.getActive(),
      (w) => w.endpoint_url === `${receiver.url}/hooks/cash`,
    );
    expect(active.id).toBe(webhookId);
  });

  it('update of a webhook that is not the client’s is a NotFoundError', async () => {
    expect(await rejectionOf(client().webhooks.update(987654, `${receiver.url}/hooks/cash`))).toBeInstanceOf(
      NotFoundError,
    );
  });

  it('an operation paid on the platform arrives as a signed, typed webhook.paid.success event', async () => {
    const operation = await sandbox.control.createCashOperation({
      body: { type: 'cash_in', amount: 500, externalUserId: 'user-42' },
    });
    expect(operation.status).toBe(200);
    if (operation.status !== 200) return;
    await sandbox.control.setCashOperationStatus({
      params: { operationId: operation.body.operation_id },
      body: { status: 'paid' },
    });
    const delivery = await receiver.next((r) => eventOf(r) === 'webhook.paid.success');
    const event = constructCashEvent(delivery.raw, delivery.headers, secretToken);
    if (event.event !== 'webhook.paid.success') throw new Error(`expected a paid event, got ${event.event}`);
    expect(event).toMatchObject({
      operation_id: operation.body.operation_id,
      external_user_id: 'user-42',
      type: 'cash_in',
      amount: 500,
      status: 'paid',
    });
    expect(event.reference).toMatch(/^\d{20}$/);
    expect(event.reference).toBe(operation.body.reference);
  });
});

describe('cash request signing against the sandbox', () => {
  it('signs the exact UTF-8 bytes sent: a body with non-ASCII text is accepted', async () => {
    const created = await client().webhooks.create(`${receiver.url}/hooks/caf%C3%A9?owner=José Pérez`);
    expect(created.endpoint_url).toBe(`${receiver.url}/hooks/caf%C3%A9?owner=José Pérez`);
  });

  it('a body changed after signing is refused: UnauthorizedError', async () => {
    const tamper: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const body = (await request.text()).replace('/hooks/', '/evil/');
      return globalThis.fetch(new Request(request.url, { method: request.method, headers: request.headers, body }));
    };
    const error = await rejectionOf(client({ fetch: tamper }).webhooks.create(`${receiver.url}/hooks/cash`));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).status).toBe(401);
    expect(receiver.received.some((r) => r.path.startsWith('/evil/'))).toBe(false);
  });

  it('a wrong api_secret is refused, and no error carries either secret', async () => {
    const wrongSecret = 'cash_secret_wrong_value_00000000';
    const error = await rejectionOf(client({ apiSecret: wrongSecret }).webhooks.getActive());
    expect(error).toBeInstanceOf(UnauthorizedError);
    const everything = JSON.stringify([String(error), (error as Error).message, error, (error as Error).cause ?? null]);
    expect(everything).not.toContain(wrongSecret);
    expect(everything).not.toContain(API_KEY);
  });

  it('a timestamp outside the accepted skew is refused', async () => {
    const error = await rejectionOf(client({ now: () => new Date(Date.now() - 3600_000) }).webhooks.getActive());
    expect(error).toBeInstanceOf(UnauthorizedError);
  });
});
