// What the reliability suite's hostile-input scenario found in the sandbox, kept found: a body
// nested deeper than JSON.stringify can write back was a 500 on POST /direct-debit/charges (which
// echoes its body); every product now refuses it in its own error shape. And the control API
// answers a request that breaks its contract with 400 in its own { error, hint } shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nestingDepth } from '../src/body-depth.ts';
import { CLIENT_ID, DEFAULT_SEED, type Sandbox } from '../src/index.ts';
import { startTestSandbox } from './helpers.ts';

const DD_KEY = DEFAULT_SEED.directDebit!.apiKeys[0]!;
const client = DEFAULT_SEED.core.clients[0]!;

const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('nestingDepth', () => {
  it('counts nesting without recursion, and stops past the limit', () => {
    expect(nestingDepth(1, 10)).toBe(0);
    expect(nestingDepth({}, 10)).toBe(1);
    expect(nestingDepth({ a: [1, { b: [] }] }, 10)).toBe(4);
    expect(nestingDepth(JSON.parse(deepArray(200_000)), 512)).toBe(513);
    expect(nestingDepth(JSON.parse(deepObject(600)), 1000)).toBe(600);
  });
});

describe('sandbox bodies nested too deep', () => {
  let sandbox: Sandbox;
  let token: string;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
    const answer = await post(
      `${sandbox.urls.core}/v1/clients/${CLIENT_ID}/auth/credential-tokens`,
      JSON.stringify({ client_id: CLIENT_ID, client_secret: client.credentials[0]!.clientSecret }),
      { 'x-api-key': client.apiKeys.staging },
    );
    token = answer.json.token as string;
  });
  afterAll(() => sandbox.close());

  it('direct debit charges: 422 on the body (was 500 when the charge echoed it back)', async () => {
    for (const deep of [deepObject(20_000), deepArray(20_000)]) {
      const answer = await post(`${sandbox.urls['direct-debit']}/charges`, `{"amount":1,"meta":${deep}}`, {
        'x-api-key': DD_KEY,
      });
      expect(answer.status).toBe(422);
      expect(answer.json.detail).toEqual([expect.objectContaining({ loc: ['body'], type: 'value_error' })]);
    }
    // The documentation's inline charge with a field nested within the limit is a charge.
    const inline =
      '"currency":"mxn","amount":100,"reference":"subscription-0235","inline_customer":{"name":"John Doe","document_type":"mx_rfc","document_number":"AABB220089"},"inline_instrument":{"type":"mx_clabe","identifier":"012180015118333755"}';
    const shallow = await post(`${sandbox.urls['direct-debit']}/charges`, `{${inline},"meta":${deepObject(100)}}`, {
      'x-api-key': DD_KEY,
    });
    expect(shallow.status).toBe(201);
  });

  it('every other product answers it in its own error shape', async () => {
    const body = `{"client_id":"${CLIENT_ID}","meta":${deepArray(5_000)}}`;
    const core = await post(`${sandbox.urls.core}/v1/transactions/money_out`, body, {
      authorization: `Bearer ${token}`,
    });
    expect(core).toMatchObject({
      status: 400,
      json: {
        message: 'API Error',
        details: [
          expect.objectContaining({
            reason: 'DATA_ERROR',
            metadata: expect.objectContaining({ error_detail: expect.stringContaining('512 levels') }),
          }),
        ],
      },
    });
    const remittance = await post(`${sandbox.urls.remittance}/v2/remittances/receive`, body);
    expect(remittance).toMatchObject({ status: 400, json: { error: expect.stringContaining('512 levels') } });
    const control = await post(`${sandbox.url}/_sandbox/seed`, `{"core":${deepObject(5_000)}}`);
    expect(control.status).toBe(400);
    expect(String(control.json.message ?? control.json.error)).toContain('512 levels');
  });
});

describe('sandbox control API request validation', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());

  it('answers a request that breaks the contract with 400 { error, hint }, naming the field', async () => {
    const cases = [
      { path: '/_sandbox/clock/advance', body: '{"seconds":"soon"}', field: 'body seconds' },
      { path: '/_sandbox/cash/operations/abc/status', body: '{"status":"paid"}', field: 'path operationId' },
      { path: '/_sandbox/core/incoming-spei', body: '[]', field: 'body' },
    ];
    for (const c of cases) {
      const answer = await post(`${sandbox.url}${c.path}`, c.body);
      expect(answer.status, c.path).toBe(400);
      expect(Object.keys(answer.json).sort()).toEqual(['error', 'hint']);
      expect(answer.json.error).toContain(c.field);
    }
    const query = await fetch(`${sandbox.url}/_sandbox/deliveries?state=lost`);
    expect(query.status).toBe(400);
    expect(((await query.json()) as { error: string }).error).toContain('query state');
  });
});
