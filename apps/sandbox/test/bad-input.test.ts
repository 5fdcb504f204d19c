// Bad input on every product gets that product's documented error, never a 5xx or a crash.
import { createHmac } from 'node:crypto';
import { zCoreError } from '@paykit/core-client/zod';
import { zValidationError } from '@paykit/direct-debit-client/zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ID, DEFAULT_SEED, type Sandbox } from '../src/index.ts';
import { startTestSandbox } from './helpers.ts';

const client = DEFAULT_SEED.core.clients[0]!;
const CASH = DEFAULT_SEED.cash[0]!;
const DD_KEY = DEFAULT_SEED.directDebit!.apiKeys[0]!;
const OVERSIZE = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
const DEEP = '['.repeat(5000) + ']'.repeat(5000);
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"\xff\xfe"}

type Body = string | Buffer;
interface Case {
  name: string;
  body: Body;
  contentType?: string;
}
const CASES: Case[] = [
  { name: 'malformed JSON', body: '{"client_id": ' },
  { name: 'a JSON array', body: '[1,2,3]' },
  {
    name: 'wrong types',
    body: JSON.stringify({
      client_id: 42,
      source_instrument_id: true,
      destination_instrument_id: null,
      name: 7,
      endpoint_url: 9,
    }),
  },
  {
    name: 'an unknown enum value',
    body: JSON.stringify({
      client_id: CLIENT_ID,
      url: 'https://hooks.example.com/x',
      token: 't'.repeat(40),
      webhook_type: 'PAYOUT',
      auth_type: 'AUTH',
    }),
  },
  { name: 'an oversize body', body: OVERSIZE },
  { name: 'deep nesting', body: DEEP },
  { name: 'invalid UTF-8', body: INVALID_UTF8 },
  { name: 'a non-JSON content type', body: 'name=x', contentType: 'application/x-www-form-urlencoded' },
];

describe('bad input', () => {
  let sandbox: Sandbox;
  let token: string;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const response = await fetch(`${sandbox.urls.core}/v1/clients/${CLIENT_ID}/auth/credential-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': client.apiKeys.staging },
      body: JSON.stringify({ client_id: CLIENT_ID, client_secret: client.credentials[0]!.clientSecret }),
    });
    token = ((await response.json()) as { token: string }).token;
  });
  afterAll(() => sandbox.close());

  const send = async (url: string, body: Body, headers: Record<string, string>) => {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text };
  };

  describe.each(CASES)('$name', ({ body, contentType = 'application/json' }) => {
    it('core: 400 with the core error body', async () => {
      for (const path of ['/v1/transactions/penny_validation', `/v1/clients/${CLIENT_ID}/webhooks`]) {
        const answer = await send(`${sandbox.urls.core}${path}`, body, {
          'content-type': contentType,
          authorization: `Bearer ${token}`,
        });
        expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(400);
        expect(zCoreError.safeParse(answer.json).success).toBe(true);
      }
    });

    it('direct debit: 422 with detail[{loc,msg,type}]', async () => {
      const answer = await send(`${sandbox.urls['direct-debit']}/customers`, body, {
        'content-type': contentType,
        'x-api-key': DD_KEY,
      });
      expect(answer.status, answer.text.slice(0, 200)).toBe(422);
      expect(zValidationError.safeParse(answer.json).success).toBe(true);
      expect((answer.json as { detail: unknown[] }).detail.length).toBeGreaterThan(0);
    });

    it('cash: a 4xx with an error message, never a 5xx', async () => {
      const raw = typeof body === 'string' ? body : body.toString('latin1');
      const timestamp = String(Math.floor(sandbox.runtime.clock.nowMs() / 1000));
      const signature = createHmac('sha256', CASH.apiSecret)
        .update(`${timestamp}.`)
        .update(typeof body === 'string' ? Buffer.from(raw) : body)
        .digest('hex');
      const answer = await send(`${sandbox.urls.cash}/api/v1/cash/webhooks`, body, {
        'content-type': contentType,
        'x-client-id': CASH.apiKey,
        'x-timestamp': timestamp,
        'x-signature': signature,
      });
      expect(answer.status, answer.text.slice(0, 200)).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(typeof (answer.json as { error?: unknown }).error).toBe('string');
    });

    it('remittance: 400 with the issues', async () => {
      const answer = await send(`${sandbox.urls.remittance}/v2/remittances/receive`, body, {
        'content-type': contentType,
      });
      // No remittance field is required and these bodies name none of its fields, so a JSON object
      // ("wrong types", "unknown enum") is a valid, incomplete remittance: 200. Anything else is 400.
      expect(answer.status < 500, answer.text.slice(0, 200)).toBe(true);
      if (answer.status !== 200) {
        expect(answer.status).toBe(400);
        expect(typeof (answer.json as { error?: unknown }).error).toBe('string');
      }
    });
  });

  it('missing authentication is 401 in every product, in its format', async () => {
    const core = await send(`${sandbox.urls.core}/v1/transactions/money_out`, '{}', {
      'content-type': 'application/json',
    });
    expect(core.status).toBe(401);
    expect(zCoreError.parse(core.json).details[0]?.reason).toBe('UNAUTHORIZED');
    const dd = await fetch(`${sandbox.urls['direct-debit']}/instruments`);
    expect(dd.status).toBe(401);
    const cash = await send(`${sandbox.urls.cash}/api/v1/cash/webhooks`, '{}', { 'content-type': 'application/json' });
    expect(cash.status).toBe(401);
    for (const product of ['billpay', 'gift-cards', 'lottery'] as const) {
      expect((await fetch(`${sandbox.urls[product]}/api/v1/client/account`)).status).toBe(401);
    }
  });

  it('an unknown path is a 4xx in every product, never a 5xx', async () => {
    for (const url of Object.values(sandbox.urls)) {
      const response = await fetch(`${url}/no/such/route`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status, url).toBeGreaterThanOrEqual(400);
      expect(response.status, url).toBeLessThan(500);
    }
  });
});
