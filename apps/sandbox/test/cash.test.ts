// The cash service over real HTTP: request signing (401 for every kind of bad signature), the
// webhook lifecycle with its activation test, and signed operation events.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CashOperation } from '@paykit/contracts';
import {
  zCashActivationEvent,
  zCashWebhookConfiguration,
  zCashWebhookEvent,
  zCreateCashWebhookResponse,
} from '@paykit/cash-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/index.ts';
import {
  call,
  controlClient,
  startReceiver,
  startTestSandbox,
  T0,
  type ReceivedRequest,
  type Receiver,
} from './helpers.ts';

const KEY = 'cashsandboxacme00000000000000001';
const SECRET = 'cash_secret_sandbox_acme_0000001';
const OTHER_KEY = 'cashsandboxother0000000000000002';
const OTHER_SECRET = 'cash_secret_sandbox_other_000002';
const T0_SECONDS = Math.floor(new Date(T0).getTime() / 1000);
const WEBHOOKS = '/api/v1/cash/webhooks';

interface Signing {
  key?: string;
  secret?: string;
  ts?: number;
  /** Sign this text instead of the body sent (a tampered body). */
  signedBody?: string;
}

/** The client side of request signing: X-Signature = hex HMAC-SHA256(`${ts}.${body}`, api_secret). */
function sign(
  body: string,
  { key = KEY, secret = SECRET, ts = T0_SECONDS, signedBody = body }: Signing = {},
): Record<string, string> {
  return {
    'x-client-id': key,
    'x-timestamp': String(ts),
    'x-signature': createHmac('sha256', secret).update(`${ts}.${signedBody}`).digest('hex'),
  };
}

/** A receiver's check of a delivery: HMAC-SHA256 of the raw bytes, constant-time compare. */
function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const given = request.headers['x-webhook-signature'];
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(request.raw).digest('hex'));
  const received = Buffer.from(given);
  return received.length === expected.length && timingSafeEqual(received, expected);
}

describe('cash service', () => {
  let sandbox: Sandbox;
  let receivers: Receiver[];

  const url = (path: string) => `${sandbox.urls.cash}${path}`;
  const settle = () => sandbox.runtime.deliveries.idle();
  const receiver = async (status = 200) => {
    const r = await startReceiver();
    r.answer = () => ({ status, body: { status: status < 300 ? 'ok' : 'error', message: 'test receiver' } });
    receivers.push(r);
    return r;
  };

  /** A signed request with a JSON body (or none). */
  const signed = (method: string, path: string, body?: unknown, signing: Signing = {}) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const headers = { ...sign(raw, signing), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    return call(url(path), { method, headers, ...(body === undefined ? {} : { raw }) });
  };
  const createWebhook = (endpointUrl: string, signing: Signing = {}) =>
    signed('POST', WEBHOOKS, { endpoint_url: endpointUrl }, signing);
  const getActive = (signing: Signing = {}) => signed('GET', `${WEBHOOKS}/active`, undefined, signing);

  beforeEach(async () => {
    sandbox = await startTestSandbox();
    receivers = [];
  });
  afterEach(async () => {
    await sandbox.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  describe('request signing', () => {
    it('accepts a correctly signed create and answers 201 with the webhook configuration', async () => {
      const hooks = await receiver();
      const res = await createWebhook(`${hooks.url}/cash`);
      expect(res.status).toBe(201);
      expect(zCreateCashWebhookResponse.safeParse(res.body).success).toBe(true);
      expect(res.body).toEqual({
        id: 1,
        endpoint_url: `${hooks.url}/cash`,
        secret_token: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: '2026-05-07T18:00:00.000Z',
        event: 'webhook.created',
      });
      const second = await createWebhook(`${hooks.url}/other`);
      expect(second.body.id).toBe(2);
      expect(second.body.secret_token).not.toBe(res.body.secret_token);
    });

    it('answers 401 for an unknown client id, a wrong signature, a tampered body, missing headers and a stale timestamp', async () => {
      const hooks = await receiver();
      const raw = JSON.stringify({ endpoint_url: `${hooks.url}/cash` });
      const post = (headers: Record<string, string>, body = raw) =>
        call(url(WEBHOOKS), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, raw: body });

      const cases: [string, Record<string, string>, string?][] = [
        ['unknown key', sign(raw, { key: 'cashsandboxnobody000000000000000' })],
        ['short key', sign(raw, { key: 'cashsandbox' })],
        ['wrong secret', sign(raw, { secret: 'cash_secret_sandbox_acme_0000002' })],
        [
          'tampered body',
          sign(raw, { signedBody: JSON.stringify({ endpoint_url: 'https://attacker.example.com/cash' }) }),
        ],
        ['body changed after signing', sign(raw), JSON.stringify({ endpoint_url: `${hooks.url}/other` })],
        ['stale timestamp', sign(raw, { ts: T0_SECONDS - 301 })],
        ['future timestamp', sign(raw, { ts: T0_SECONDS + 301 })],
        ['milliseconds timestamp', sign(raw, { ts: T0_SECONDS * 1000 })],
        ['truncated signature', { ...sign(raw), 'x-signature': sign(raw)['x-signature']!.slice(0, 63) }],
      ];
      for (const header of ['x-client-id', 'x-timestamp', 'x-signature']) {
        const headers = sign(raw);
        delete headers[header];
        cases.push([`missing ${header}`, headers]);
      }
      for (const [name, headers, body] of cases) {
        const res = await post(headers, body);
        expect({ name, status: res.status }).toEqual({ name, status: 401 });
        expect(typeof res.body.error).toBe('string');
      }
      const none = await call(url(`${WEBHOOKS}/active`));
      expect(none.status).toBe(401);
      expect(none.body.error).toMatch(/Missing X-Client-Id, X-Timestamp, X-Signature/);

      // Nothing was created and no activation test was sent.
      await settle();
      expect(hooks.requests).toHaveLength(0);
      expect(sandbox.runtime.deliveries.list()).toHaveLength(0);
    });

    it('accepts a timestamp inside the skew and an upper-case hex signature', async () => {
      const hooks = await receiver();
      const inside = await createWebhook(`${hooks.url}/cash`, { ts: T0_SECONDS - 300 });
      expect(inside.status).toBe(201);
      const raw = JSON.stringify({ endpoint_url: `${hooks.url}/cash` });
      const headers = sign(raw);
      const upper = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: {
          ...headers,
          'x-signature': headers['x-signature']!.toUpperCase(),
          'content-type': 'application/json',
        },
        raw,
      });
      expect(upper.status).toBe(201);
    });

    it('checks the timestamp against the sandbox clock, with the configured skew', async () => {
      await sandbox.close();
      sandbox = await startTestSandbox({ settings: { cash: { clockSkewSeconds: 10 } } });
      expect((await getActive({ ts: T0_SECONDS - 11 })).status).toBe(401);
      expect((await getActive({ ts: T0_SECONDS - 10 })).status).toBe(404);
      await controlClient(sandbox).advanceClock({ body: { seconds: 3600 } });
      expect((await getActive()).status).toBe(401);
      const now = await getActive({ ts: T0_SECONDS + 3600 });
      expect(now.status).toBe(404);
    });

    it('authenticates before anything else: unknown paths, malformed JSON, other content types', async () => {
      expect((await call(url('/api/v1/cash/nowhere'))).status).toBe(401);
      const unknown = await signed('GET', '/api/v1/cash/nowhere');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatch(/No cash operation at GET/);

      const malformed = '{"endpoint_url": ';
      const unsignedBad = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        raw: malformed,
      });
      expect(unsignedBad.status).toBe(401);
      const signedBad = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { ...sign(malformed), 'content-type': 'application/json' },
        raw: malformed,
      });
      expect(signedBad.status).toBe(400);
      expect(signedBad.body.error).toBe('The request body is not valid JSON.');

      const text = 'endpoint_url=https://hooks.example.com';
      expect(
        (await call(url(WEBHOOKS), { method: 'POST', headers: { 'content-type': 'text/plain' }, raw: text })).status,
      ).toBe(401);
      const signedText = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { ...sign(text), 'content-type': 'text/plain' },
        raw: text,
      });
      expect(signedText.status).toBe(400);
      expect(signedText.body.error).toMatch(/application\/json/);
    });

    it('answers 401 for a body larger than the limit, never a 500', async () => {
      await sandbox.close();
      sandbox = await startTestSandbox({ settings: { bodyLimitBytes: 256 } });
      const raw = JSON.stringify({ endpoint_url: `https://hooks.example.com/${'x'.repeat(400)}` });
      const res = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { ...sign(raw), 'content-type': 'application/json' },
        raw,
      });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/larger than the 256 bytes/);
      const unknown = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { ...sign(raw, { key: 'cashsandboxnobody000000000000000' }), 'content-type': 'application/json' },
        raw,
      });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error).toMatch(/X-Client-Id is not a known cash api_key/);
    });

    it('answers 400 for a missing or invalid endpoint_url once the request is authenticated', async () => {
      for (const body of [
        {},
        { endpoint_url: 'ftp://hooks.example.com/cash' },
        { endpoint_url: 'https://' },
        { endpoint_url: 42 },
        [],
        'https://hooks.example.com',
      ]) {
        const res = await signed('POST', WEBHOOKS, body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.error).toMatch(/endpoint_url/);
      }
      const empty = await call(url(WEBHOOKS), {
        method: 'POST',
        headers: { ...sign(''), 'content-type': 'application/json' },
        raw: '',
      });
      expect(empty.status).toBe(400);
      expect(sandbox.runtime.deliveries.list()).toHaveLength(0);
    });

    it('answers an injected fault with a 500 in the cash error format', async () => {
      await controlClient(sandbox).setFaults({
        body: {
          api: { latencyMs: 0, errorRate: 1, products: ['cash'] },
          deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
        },
      });
      const res = await getActive();
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: expect.stringMatching(/Injected fault/) });
    });

    it('draws secret tokens and references from the seeded randomness: same seed, same values', async () => {
      const run = async () => {
        const created = await createWebhook('https://hooks.example.com/cash');
        const op = await controlClient(sandbox).createCashOperation({
          body: { type: 'cash_in', amount: 1, externalUserId: 'u' },
        });
        return [created.body.secret_token, op.body];
      };
      const first = await run();
      await sandbox.close();
      sandbox = await startTestSandbox();
      expect(await run()).toEqual(first);
    });

    it('refuses loopback endpoints when local webhook URLs are not allowed', async () => {
      await sandbox.close();
      sandbox = await startTestSandbox({ settings: { allowLocalWebhookUrls: false } });
      const res = await createWebhook('http://127.0.0.1:9/cash');
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/public host/);
      expect((await createWebhook('https://hooks.example.com/cash')).status).toBe(201);
    });
  });

  describe('webhook lifecycle', () => {
    it('sends a signed activation test; a 2xx answer makes the webhook active', async () => {
      const hooks = await receiver(200);
      const created = await createWebhook(`${hooks.url}/cash`);
      await settle();

      expect(hooks.requests).toHaveLength(1);
      const activation = hooks.requests[0]!;
      expect(activation.url).toBe('/cash');
      expect(activation.headers['x-webhook-timestamp']).toBe(String(T0_SECONDS));
      expect(signatureValid(activation, created.body.secret_token)).toBe(true);
      expect(signatureValid(activation, 'f'.repeat(64))).toBe(false);
      expect(zCashActivationEvent.safeParse(activation.json).success).toBe(true);
      expect(activation.json).toEqual({ event: 'webhook.activation', processed_at: '2026-05-07T18:00:00.000Z' });

      const active = await getActive();
      expect(active.status).toBe(200);
      expect(zCashWebhookConfiguration.safeParse(active.body).success).toBe(true);
      expect(active.body).toEqual({
        id: created.body.id,
        endpoint_url: `${hooks.url}/cash`,
        created_at: created.body.created_at,
      });

      const [delivery] = sandbox.runtime.deliveries.list({ eventType: 'webhook.activation' });
      expect(delivery).toMatchObject({ product: 'cash', eventId: `activation:${created.body.id}`, state: 'delivered' });
      expect(delivery!.clientId).not.toContain(KEY);
    });

    it('leaves the webhook inactive when the activation test is answered 500, and does not retry it', async () => {
      const hooks = await receiver(500);
      await createWebhook(`${hooks.url}/cash`);
      await settle();
      const none = await getActive();
      expect(none.status).toBe(404);
      expect(none.body.error).toMatch(/No cash webhook is active/);
      await controlClient(sandbox).advanceClock({ body: { seconds: 3600 } });
      expect(hooks.requests).toHaveLength(1);
      expect(sandbox.runtime.deliveries.list({ eventType: 'webhook.activation' })[0]!.state).toBe('failed');
    });

    it('leaves the webhook inactive when the endpoint cannot be reached', async () => {
      const gone = await startReceiver();
      await gone.close();
      await createWebhook(`${gone.url}/cash`);
      await settle();
      expect((await getActive()).status).toBe(404);
    });

    it('deactivates the previous webhook only once the new one passes its activation test', async () => {
      const first = await receiver(200);
      const a = await createWebhook(`${first.url}/a`);
      await settle();
      expect((await getActive()).body.id).toBe(a.body.id);

      // B fails its test: A stays active.
      const failing = await receiver(503);
      await createWebhook(`${failing.url}/b`);
      await settle();
      expect((await getActive()).body.id).toBe(a.body.id);

      // C's test is held open: A is still active while C is pending.
      const second = await startReceiver();
      receivers.push(second);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      second.answer = async () => {
        await held;
        return { status: 200, body: { status: 'ok', message: 'activated' } };
      };
      const c = await createWebhook(`${second.url}/c`);
      while (second.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((await getActive()).body.id).toBe(a.body.id);
      release();
      await settle();
      const active = await getActive();
      expect(active.body).toEqual({ id: c.body.id, endpoint_url: `${second.url}/c`, created_at: c.body.created_at });

      // Events now go to C only.
      const op = await controlClient(sandbox).createCashOperation({
        body: { type: 'cash_in', amount: 100, externalUserId: 'user-1' },
      });
      expect(op.status).toBe(200);
      if (op.status !== 200) return;
      await controlClient(sandbox).setCashOperationStatus({
        params: { operationId: op.body.operation_id },
        body: { status: 'paid' },
      });
      expect(second.requests.map((r) => (r.json as { event: string }).event)).toEqual([
        'webhook.activation',
        'webhook.paid.success',
      ]);
      expect(first.requests).toHaveLength(1);
    });

    it('update deactivates the webhook at once and re-tests the new endpoint', async () => {
      const first = await receiver(200);
      const created = await createWebhook(`${first.url}/cash`);
      await settle();
      expect((await getActive()).status).toBe(200);

      const failing = await receiver(500);
      const updated = await signed('PATCH', `${WEBHOOKS}/${created.body.id}`, { endpoint_url: `${failing.url}/new` });
      expect(updated.status).toBe(200);
      expect(zCashWebhookConfiguration.safeParse(updated.body).success).toBe(true);
      expect(updated.body).toEqual({
        id: created.body.id,
        endpoint_url: `${failing.url}/new`,
        created_at: created.body.created_at,
      });
      expect((await getActive()).status).toBe(404); // deactivated before the test is answered
      await settle();
      expect(failing.requests).toHaveLength(1);
      expect(signatureValid(failing.requests[0]!, created.body.secret_token)).toBe(true); // the secret does not change
      expect((await getActive()).status).toBe(404);

      const working = await receiver(200);
      expect(
        (await signed('PATCH', `${WEBHOOKS}/${created.body.id}`, { endpoint_url: `${working.url}/new` })).status,
      ).toBe(200);
      await settle();
      expect(working.requests).toHaveLength(1);
      const active = await getActive();
      expect(active.status).toBe(200);
      expect(active.body.endpoint_url).toBe(`${working.url}/new`);
    });

    it('update answers 404 for an unknown id or another client’s webhook, 400 for a bad URL, 401 unsigned', async () => {
      await controlClient(sandbox).addSeed({ body: { cash: [{ apiKey: OTHER_KEY, apiSecret: OTHER_SECRET }] } });
      const hooks = await receiver(200);
      const mine = await createWebhook(`${hooks.url}/mine`);
      const theirs = await createWebhook(`${hooks.url}/theirs`, { key: OTHER_KEY, secret: OTHER_SECRET });
      expect(theirs.status).toBe(201);

      const body = { endpoint_url: `${hooks.url}/changed` };
      expect((await signed('PATCH', `${WEBHOOKS}/999`, body)).status).toBe(404);
      expect((await signed('PATCH', `${WEBHOOKS}/abc`, body)).status).toBe(404);
      const foreign = await signed('PATCH', `${WEBHOOKS}/${theirs.body.id}`, body);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error).toMatch(/No cash webhook/);
      expect(
        (await signed('PATCH', `${WEBHOOKS}/${mine.body.id}`, { endpoint_url: 'mailto:x@example.com' })).status,
      ).toBe(400);
      expect((await call(url(`${WEBHOOKS}/${mine.body.id}`), { method: 'PATCH', body })).status).toBe(401);

      // Each client has its own active webhook.
      await settle();
      expect((await getActive()).body.id).toBe(mine.body.id);
      expect((await getActive({ key: OTHER_KEY, secret: OTHER_SECRET })).body.id).toBe(theirs.body.id);
    });
  });

  describe('cash operations', () => {
    const activeWebhook = async () => {
      const hooks = await receiver(200);
      const created = await createWebhook(`${hooks.url}/cash`);
      await settle();
      hooks.requests.length = 0; // forget the activation test
      return { hooks, secret: created.body.secret_token as string };
    };

    it('creates pending operations with unique 20-digit references and increasing ids', async () => {
      const control = controlClient(sandbox);
      const a = await control.createCashOperation({ body: { type: 'cash_in', amount: 500, externalUserId: 'user-1' } });
      const b = await control.createCashOperation({
        body: { type: 'cash_out', amount: 250, externalUserId: 'user-2', closedReference: false },
      });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      if (a.status !== 200 || b.status !== 200) return;
      expect(CashOperation.safeParse(a.body).success).toBe(true);
      expect(a.body).toEqual({
        operation_id: expect.any(Number),
        external_user_id: 'user-1',
        type: 'cash_in',
        amount: 500,
        reference: expect.stringMatching(/^\d{20}$/),
        status: 'pending',
        closed_reference: true,
      });
      expect(Number.isSafeInteger(a.body.operation_id)).toBe(true);
      expect(b.body).toMatchObject({
        operation_id: a.body.operation_id + 1,
        type: 'cash_out',
        amount: 250,
        closed_reference: false,
        status: 'pending',
      });
      expect(b.body.reference).not.toBe(a.body.reference);
    });

    it('answers 404 for an unknown api key and an unknown operation', async () => {
      const control = controlClient(sandbox);
      const unknownKey = await control.createCashOperation({
        body: { apiKey: 'cashsandboxnobody000000000000000', type: 'cash_in', amount: 1, externalUserId: 'u' },
      });
      expect(unknownKey.status).toBe(404);
      const unknownOp = await control.setCashOperationStatus({ params: { operationId: 77 }, body: { status: 'paid' } });
      expect(unknownOp.status).toBe(404);
    });

    it('delivers signed paid, reversed and expired events to the active webhook', async () => {
      const { hooks, secret } = await activeWebhook();
      const control = controlClient(sandbox);
      const created = await control.createCashOperation({
        body: { type: 'cash_in', amount: 500, externalUserId: 'user-1' },
      });
      if (created.status !== 200) throw new Error(`create answered ${created.status}`);
      const op = created.body;

      const paid = await control.setCashOperationStatus({
        params: { operationId: op.operation_id },
        body: { status: 'paid' },
      });
      expect(paid.status).toBe(200);
      expect(paid.body).toEqual({ ...op, status: 'paid' });
      await control.advanceClock({ body: { seconds: 60 } });
      const reversed = await control.setCashOperationStatus({
        params: { operationId: op.operation_id },
        body: { status: 'reversed' },
      });
      expect(reversed.status).toBe(200);

      const other = await control.createCashOperation({
        body: { type: 'cash_out', amount: 80, externalUserId: 'user-2' },
      });
      if (other.status !== 200) throw new Error(`create answered ${other.status}`);
      await control.setCashOperationStatus({
        params: { operationId: other.body.operation_id },
        body: { status: 'expired' },
      });

      expect(hooks.requests).toHaveLength(3);
      for (const request of hooks.requests) {
        expect(signatureValid(request, secret)).toBe(true);
        expect(zCashWebhookEvent.safeParse(request.json).success).toBe(true);
      }
      expect(hooks.requests.map((r) => r.json)).toEqual([
        {
          event: 'webhook.paid.success',
          operation_id: op.operation_id,
          external_user_id: 'user-1',
          type: 'cash_in',
          amount: 500,
          reference: op.reference,
          status: 'paid',
          processed_at: '2026-05-07T18:00:00.000Z',
        },
        {
          event: 'webhook.reversed.success',
          operation_id: op.operation_id,
          external_user_id: 'user-1',
          type: 'cash_in',
          amount: 500,
          reference: op.reference,
          status: 'reversed',
          processed_at: '2026-05-07T18:01:00.000Z',
        },
        {
          event: 'webhook.expired.success',
          operation_id: other.body.operation_id,
          external_user_id: 'user-2',
          type: 'cash_out',
          amount: 80,
          reference: other.body.reference,
          status: 'expired',
          processed_at: '2026-05-07T18:01:00.000Z',
        },
      ]);
      expect(hooks.requests[1]!.headers['x-webhook-timestamp']).toBe(String(T0_SECONDS + 60));
      expect(sandbox.runtime.deliveries.list({ state: 'delivered' }).map((d) => d.eventId)).toEqual([
        'activation:1',
        `${op.operation_id}:webhook.paid.success`,
        `${op.operation_id}:webhook.reversed.success`,
        `${other.body.operation_id}:webhook.expired.success`,
      ]);
    });

    it('sends no event for an open-reference operation, nor without an active webhook', async () => {
      const control = controlClient(sandbox);
      const early = await control.createCashOperation({ body: { type: 'cash_in', amount: 10, externalUserId: 'u' } });
      if (early.status !== 200) throw new Error(`create answered ${early.status}`);
      expect(
        (
          await control.setCashOperationStatus({
            params: { operationId: early.body.operation_id },
            body: { status: 'paid' },
          })
        ).status,
      ).toBe(200);
      expect(sandbox.runtime.deliveries.list()).toHaveLength(0);

      const { hooks } = await activeWebhook();
      const open = await control.createCashOperation({
        body: { type: 'cash_in', amount: 10, externalUserId: 'u', closedReference: false },
      });
      if (open.status !== 200) throw new Error(`create answered ${open.status}`);
      const paid = await control.setCashOperationStatus({
        params: { operationId: open.body.operation_id },
        body: { status: 'paid' },
      });
      expect(paid.body).toMatchObject({ status: 'paid', closed_reference: false });
      expect(hooks.requests).toHaveLength(0);
      expect(sandbox.runtime.deliveries.list({ eventType: 'webhook.paid.success' })).toHaveLength(0);
    });

    it('sends the events of a second client’s operation to that client’s webhook only', async () => {
      const control = controlClient(sandbox);
      await control.addSeed({ body: { cash: [{ apiKey: OTHER_KEY, apiSecret: OTHER_SECRET }] } });
      const mine = await activeWebhook();
      const theirs = await receiver(200);
      const created = await createWebhook(`${theirs.url}/cash`, { key: OTHER_KEY, secret: OTHER_SECRET });
      await settle();
      const op = await control.createCashOperation({
        body: { apiKey: OTHER_KEY, type: 'cash_out', amount: 42, externalUserId: 'them' },
      });
      if (op.status !== 200) throw new Error(`create answered ${op.status}`);
      await control.setCashOperationStatus({ params: { operationId: op.body.operation_id }, body: { status: 'paid' } });
      expect(mine.hooks.requests).toHaveLength(0);
      expect(theirs.requests).toHaveLength(2);
      expect(signatureValid(theirs.requests[1]!, created.body.secret_token)).toBe(true);
      expect(theirs.requests[1]!.json).toMatchObject({
        event: 'webhook.paid.success',
        external_user_id: 'them',
        amount: 42,
      });
    });

    it('redelivers an event that was not answered 2xx, on the sandbox clock', async () => {
      const { hooks, secret } = await activeWebhook();
      let answers = 0;
      hooks.answer = () => ({ status: answers++ === 0 ? 500 : 200 });
      const control = controlClient(sandbox);
      const op = await control.createCashOperation({ body: { type: 'cash_in', amount: 5, externalUserId: 'u' } });
      if (op.status !== 200) throw new Error(`create answered ${op.status}`);
      await control.setCashOperationStatus({ params: { operationId: op.body.operation_id }, body: { status: 'paid' } });
      expect(hooks.requests).toHaveLength(1);
      await control.advanceClock({ body: { seconds: sandbox.runtime.settings.delivery.redeliverySeconds[0]! } });
      expect(hooks.requests).toHaveLength(2);
      expect(hooks.requests[1]!.raw.equals(hooks.requests[0]!.raw)).toBe(true);
      expect(signatureValid(hooks.requests[1]!, secret)).toBe(true);
      expect(sandbox.runtime.deliveries.list({ eventType: 'webhook.paid.success' })[0]!.state).toBe('delivered');
    });

    it('answers 409 for transitions the sandbox does not allow', async () => {
      const control = controlClient(sandbox);
      const create = async () => {
        const res = await control.createCashOperation({ body: { type: 'cash_in', amount: 1, externalUserId: 'u' } });
        if (res.status !== 200) throw new Error(`create answered ${res.status}`);
        return res.body.operation_id;
      };
      const setStatus = (operationId: number, status: 'paid' | 'expired' | 'reversed') =>
        control.setCashOperationStatus({ params: { operationId }, body: { status } });

      const pending = await create();
      const refused = await setStatus(pending, 'reversed');
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: `Cash operation ${pending} is pending: it cannot become reversed.`,
        hint: 'From pending it can become paid or expired.',
      });

      const paid = await create();
      expect((await setStatus(paid, 'paid')).status).toBe(200);
      expect((await setStatus(paid, 'paid')).status).toBe(409);
      expect((await setStatus(paid, 'expired')).status).toBe(409);
      expect((await setStatus(paid, 'reversed')).status).toBe(200);
      expect((await setStatus(paid, 'paid')).status).toBe(409);

      const expired = await create();
      expect((await setStatus(expired, 'expired')).status).toBe(200);
      expect((await setStatus(expired, 'paid')).status).toBe(409);
      expect((await setStatus(expired, 'reversed')).status).toBe(409);
    });

    it('forgets webhooks and operations on reset, keeps the seeded key, and never issues an operation id again', async () => {
      await activeWebhook();
      const control = controlClient(sandbox);
      const before = await control.createCashOperation({ body: { type: 'cash_in', amount: 1, externalUserId: 'u' } });
      if (before.status !== 200) throw new Error(`cash operation: ${before.status}`);
      await control.reset({ body: {} });
      expect((await getActive()).status).toBe(404);
      const again = await control.createCashOperation({ body: { type: 'cash_in', amount: 1, externalUserId: 'u' } });
      expect(again.body).toMatchObject({ operation_id: before.body.operation_id + 1 });
      expect(
        (
          await control.setCashOperationStatus({
            params: { operationId: before.body.operation_id },
            body: { status: 'paid' },
          })
        ).status,
      ).toBe(404);
    });
  });
});
