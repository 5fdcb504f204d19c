// Card data and the API key never reach a log entry, an error message, a cause or an error body
// when a server echoes them back; a 2xx that is not JSON is an error, never data; every request
// says which client sent it. Against a real HTTP server that answers as a misbehaving platform or
// proxy might (the sandbox's own echo of a charge is in direct-debit-client.test.ts).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createDirectDebitClient,
  PaykitError,
  UnexpectedResponseError,
  UnprocessableError,
  BadRequestError,
} from '@paykit/direct-debit-client';
import type { LogEntry } from '@paykit/runtime';
import { startScriptedServer, type ScriptedServer } from '@paykit/test-basics/scripted-server';

/** The release this package is at: the User-Agent names it. */
const MANIFEST = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
const API_KEY = 'dd_sandbox_key_acme_00000000000001';
const PAN = '4111111111111111';
const CVV = '737';
const CUSTOMER = 'f89c42d8-cd5d-4d51-bf2a-daa66b993d31';
/** The documentation's inline charge (packages/contracts/fixtures/documented/direct-debit). */
const CHARGE = {
  currency: 'mxn',
  amount: 100,
  reference: 'subscription-0235',
  inline_customer: { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' },
  inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
} as const;

/** Everything a caller could print: log entries, and an error's message, string, JSON, body, details and cause chain. */
function printable(entries: LogEntry[], error?: unknown): string {
  const parts = [JSON.stringify(entries)];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(
      current.message,
      String(current),
      JSON.stringify(current),
      JSON.stringify((current as { body?: unknown }).body ?? null),
    );
    parts.push(JSON.stringify((current as { detail?: unknown }).detail ?? null));
    current = current.cause;
  }
  return parts.join('\n');
}

let echo: ScriptedServer | undefined;

afterEach(async () => {
  await echo?.close();
  echo = undefined;
});

/** A real server answering every request with `answer(body)`, as a misbehaving platform or proxy might. */
async function echoServer(
  answer: (body: string) => { status: number; type: string; text: string },
): Promise<ScriptedServer> {
  echo = await startScriptedServer((request) => {
    const { status, type, text } = answer(request.body);
    return { status, headers: { 'content-type': type, 'x-request-id': 'req-echo-1' }, body: text };
  });
  return echo;
}

describe('direct debit card data', () => {
  it('a 422 echoing the card number, a cvv and the API key keeps none of them anywhere', async () => {
    const server = await echoServer((body) => {
      const sent = (JSON.parse(body) as { mx_direct_debit_card: Record<string, unknown> }).mx_direct_debit_card;
      return {
        status: 422,
        type: 'application/json',
        text: JSON.stringify({
          detail: [
            {
              loc: ['body', 'mx_direct_debit_card', 'card_number'],
              msg: `card ${String(sent.card_number)} refused for key ${API_KEY}`,
              type: 'value_error',
              input: sent.card_number,
            },
            { loc: ['body', 'mx_direct_debit_card', 'cvv'], msg: 'wrong length', type: 'value_error', input: CVV },
            {
              loc: ['body', 'mx_direct_debit_card'],
              msg: 'rejected',
              type: 'value_error',
              input: { ...sent, cvv: CVV },
            },
          ],
        }),
      };
    });
    const entries: LogEntry[] = [];
    const client = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: server.url,
      apiKey: API_KEY,
      logger: (e) => entries.push(e),
    });
    const error = await client.instruments
      .create({
        type: 'mx_direct_debit_card',
        customer_id: CUSTOMER,
        mx_direct_debit_card: { card_number: PAN, bank: 'mx_santander' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableError);
    const printed = printable(entries, error);
    expect(printed).not.toContain(PAN);
    expect(printed).not.toContain(`"${CVV}"`);
    expect(printed).not.toContain(API_KEY);
    expect((error as UnprocessableError).message).toContain('card ************1111 refused for key [redacted]');
    expect((error as UnprocessableError).detail?.[0]?.loc).toEqual(['body', 'mx_direct_debit_card', 'card_number']);
  });

  it('a 400 quoting the API key in free text is scrubbed from the error and the response log entry', async () => {
    const server = await echoServer(() => ({
      status: 400,
      type: 'application/json',
      text: JSON.stringify({ message: `api key ${API_KEY} is not enabled`, hint: API_KEY }),
    }));
    const entries: LogEntry[] = [];
    const client = createDirectDebitClient({
      environment: 'sandbox',
      baseUrl: server.url,
      apiKey: API_KEY,
      logger: (e) => entries.push(e),
    });
    const error = await client.customers
      .create({ name: 'Ana', document_type: 'passport', document_number: 'G12345678' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect(printable(entries, error)).not.toContain(API_KEY);
    expect(entries.some((e) => JSON.stringify(e.body ?? null).includes('api key [redacted] is not enabled'))).toBe(
      true,
    );
  });
});

describe('answers', () => {
  it('a 200 HTML page from a proxy is an UnexpectedResponseError, not a charge, and quotes none of the page', async () => {
    const server = await echoServer(() => ({
      status: 200,
      type: 'text/html; charset=utf-8',
      text: `<html><body>Gateway login ${PAN}</body></html>`,
    }));
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: server.url, apiKey: API_KEY });
    const error = await client.charges.create(CHARGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toBeInstanceOf(PaykitError);
    const unexpected = error as UnexpectedResponseError;
    expect(unexpected.status).toBe(200);
    expect(unexpected.contentType).toBe('text/html; charset=utf-8');
    expect(unexpected.requestId).toBe('req-echo-1');
    expect(unexpected.message).toMatch(
      /createCharge: HTTP 200 with a body that is not JSON .* look it up before repeating it/,
    );
    expect(unexpected.message).not.toContain('<html>');
    expect(printable([], error)).not.toContain(PAN);
  });

  it('a 200 with JSON text that is not JSON is the same typed error', async () => {
    const server = await echoServer(() => ({ status: 200, type: 'application/json', text: '<html>not json</html>' }));
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: server.url, apiKey: API_KEY });
    const error = await client.charges.create(CHARGE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toContain('a body that could not be read as JSON');
  });

  it('every request sends User-Agent: paykit-direct-debit/<version> node/<version>', async () => {
    const server = await echoServer(() => ({ status: 201, type: 'application/json', text: '{"id":"c1"}' }));
    const client = createDirectDebitClient({ environment: 'sandbox', baseUrl: server.url, apiKey: API_KEY });
    await client.charges.create(CHARGE);
    expect(server.received.map((r) => r.headers['user-agent'])).toEqual([
      `paykit-direct-debit/${MANIFEST.version} node/${process.versions.node}`,
    ]);
  });
});
