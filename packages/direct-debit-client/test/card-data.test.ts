// Card data and the API key never reach a log entry, an error message, a cause or an error body,
// whether the client sent them or a server echoed them back; a 2xx that is not JSON is an error,
// never data; every request says which client sent it. Against the sandbox (a separate process)
// and a real HTTP server that echoes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDirectDebitClient, PaykitError, UnexpectedResponseError, UnprocessableError, BadRequestError, withResponse } from '@paykit/direct-debit-client';
import type { LogEntry } from '@paykit/runtime';

const API_KEY = 'dd_sandbox_key_acme_00000000000001';
const PAN = '4111111111111111';
const CVV = '737';

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
}, 30_000);

afterAll(async () => {
  await sandbox?.close();
});

/** Everything a caller could print: log entries, and an error's message, string, JSON, body, details and cause chain. */
function printable(entries: LogEntry[], error?: unknown): string {
  const parts = [JSON.stringify(entries)];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(current.message, String(current), JSON.stringify(current), JSON.stringify((current as { body?: unknown }).body ?? null));
    parts.push(JSON.stringify((current as { detail?: unknown }).detail ?? null));
    current = current.cause;
  }
  return parts.join('\n');
}

interface Echo {
  url: string;
  userAgents: string[];
  close(): Promise<void>;
}

/** A real server answering every request with `answer(body)`, as a misbehaving platform or proxy might. */
async function echoServer(answer: (body: string) => { status: number; type: string; text: string }): Promise<Echo> {
  const userAgents: string[] = [];
  const server = http.createServer((req, res) => {
    userAgents.push(req.headers['user-agent'] ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { status, type, text } = answer(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status, { 'content-type': type, 'x-request-id': 'req-echo-1' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    userAgents,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('direct debit card data', () => {
  it('a charge the sandbox echoes with card_number and cvv is logged with the card masked and no cvv', async () => {
    const entries: LogEntry[] = [];
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: sandbox.urls['direct-debit'], apiKey: API_KEY, logger: (e) => entries.push(e) });
    const charge = await client.charges.create({ card_number: PAN, cvv: CVV, amount: '10.00' });
    // The caller gets the answer as the platform sent it; only what is printed is masked.
    expect(charge).toMatchObject({ status: 'pending', request: { card_number: PAN } });
    expect(entries.map((e) => e.event)).toEqual(['request', 'response']);
    const logged = printable(entries);
    expect(logged).not.toContain(PAN);
    expect(logged).not.toContain(CVV);
    expect(logged).not.toContain(API_KEY);
    expect(logged).toContain('************1111');
  });

  it('the seeded card instrument is listed with its number masked in the log', async () => {
    const entries: LogEntry[] = [];
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: sandbox.urls['direct-debit'], apiKey: API_KEY, logger: (e) => entries.push(e) });
    const page = await client.instruments.page({ limit: 5 });
    expect(JSON.stringify(page)).toContain(PAN);
    expect(printable(entries)).not.toContain(PAN);
    expect(printable(entries)).toContain('************1111');
  });

  it('a 422 echoing the card number, the cvv and the API key keeps none of them anywhere', async () => {
    const echo = await echoServer((body) => {
      const sent = JSON.parse(body) as Record<string, unknown>;
      return {
        status: 422,
        type: 'application/json',
        text: JSON.stringify({
          detail: [
            { loc: ['body', 'card_number'], msg: `card ${String(sent.card_number)} refused for key ${API_KEY}`, type: 'value_error', input: sent.card_number },
            { loc: ['body', 'cvv'], msg: 'wrong length', type: 'value_error', input: sent.cvv },
            { loc: ['body'], msg: 'rejected', type: 'value_error', input: sent },
          ],
        }),
      };
    });
    try {
      const entries: LogEntry[] = [];
      const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: echo.url, apiKey: API_KEY, logger: (e) => entries.push(e) });
      const error = await client.charges.create({ card_number: PAN, cvv: CVV }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableError);
      const printed = printable(entries, error);
      expect(printed).not.toContain(PAN);
      expect(printed).not.toContain(`"${CVV}"`);
      expect(printed).not.toContain(API_KEY);
      expect((error as UnprocessableError).message).toContain('card ************1111 refused for key [redacted]');
      expect((error as UnprocessableError).detail?.[0]?.loc).toEqual(['body', 'card_number']);
    } finally {
      await echo.close();
    }
  });

  it('a 400 quoting the API key in free text is scrubbed from the error and the response log entry', async () => {
    const echo = await echoServer(() => ({ status: 400, type: 'application/json', text: JSON.stringify({ message: `api key ${API_KEY} is not enabled`, hint: API_KEY }) }));
    try {
      const entries: LogEntry[] = [];
      const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: echo.url, apiKey: API_KEY, logger: (e) => entries.push(e) });
      const error = await client.customers.create({ name: 'Ana', document_type: 'passport', document_number: 'G12345678' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestError);
      expect(printable(entries, error)).not.toContain(API_KEY);
      expect(entries.some((e) => JSON.stringify(e.body ?? null).includes('api key [redacted] is not enabled'))).toBe(true);
    } finally {
      await echo.close();
    }
  });
});

describe('answers', () => {
  it('a 200 HTML page from a proxy is an UnexpectedResponseError, not a charge, and quotes none of the page', async () => {
    const echo = await echoServer(() => ({ status: 200, type: 'text/html; charset=utf-8', text: `<html><body>Gateway login ${PAN}</body></html>` }));
    try {
      const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: echo.url, apiKey: API_KEY });
      const error = await client.charges.create({ amount: '10.00' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect(error).toBeInstanceOf(PaykitError);
      const unexpected = error as UnexpectedResponseError;
      expect(unexpected.status).toBe(200);
      expect(unexpected.contentType).toBe('text/html; charset=utf-8');
      expect(unexpected.requestId).toBe('req-echo-1');
      expect(unexpected.message).toMatch(/createCharge: HTTP 200 with a body that is not JSON .* look it up before repeating it/);
      expect(unexpected.message).not.toContain('<html>');
      expect(printable([], error)).not.toContain(PAN);
    } finally {
      await echo.close();
    }
  });

  it('a 200 with JSON text that is not JSON is the same typed error', async () => {
    const echo = await echoServer(() => ({ status: 200, type: 'application/json', text: '<html>not json</html>' }));
    try {
      const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: echo.url, apiKey: API_KEY });
      const error = await client.charges.create({}).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      expect((error as Error).message).toContain('a body that could not be read as JSON');
    } finally {
      await echo.close();
    }
  });

  it('withResponse gives the status, headers and request id of a successful call', async () => {
    const entries: LogEntry[] = [];
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: sandbox.urls['direct-debit'], apiKey: API_KEY, logger: (e) => entries.push(e) });
    const { data, response } = await withResponse(client.customers.create({ name: 'Ana', document_type: 'passport', document_number: 'G12345678' }));
    expect(data.name).toBe('Ana');
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.requestId).toBe(entries[0]?.requestId);
    expect(response.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(withResponse(Promise.resolve({ id: 'not from a call' }))).rejects.toThrow(/not the result of a paykit operation/);
  });

  it('every request sends User-Agent: paykit-direct-debit/<version> node/<version>', async () => {
    const echo = await echoServer(() => ({ status: 201, type: 'application/json', text: '{"id":"c1"}' }));
    try {
      const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: echo.url, apiKey: API_KEY });
      await client.charges.create({});
      expect(echo.userAgents).toEqual([`paykit-direct-debit/0.1.0 node/${process.versions.node}`]);
    } finally {
      await echo.close();
    }
  });
});
