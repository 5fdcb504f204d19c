import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { DriftReport } from '../src/core/drift.ts';
import {
  ConnectionError,
  DriftError,
  NotFoundError,
  PaykitError,
  RequestValidationError,
  UnexpectedResponseError,
  UnprocessableError,
  InternalServerError,
  UserAbortError,
} from '../src/core/errors.ts';
import { invoke, type InvokeContext, type SdkResult } from '../src/core/invoke.ts';
import type { LogEntry } from '../src/core/logger.ts';
import { createTransport } from '../src/core/transport.ts';
import {
  closedPort,
  recordingSleep,
  startScriptedServer,
  type Answer,
  type Received,
  type ScriptedServer,
} from '@paykit/test-basics/scripted-server';

/**
 * A stand-in for one generated SDK function, doing what the hey-api fetch client does with
 * throwOnError: false: run the requestValidator (a ZodError is returned as `error`), send a
 * Request through `fetch`, return { data } for 2xx (after responseValidator) or { error: parsed
 * body } otherwise; anything thrown along the way comes back as `error` with no response.
 */
function sdkCall<TBody>(
  baseUrl: string,
  method: string,
  path: string,
  bodySchema: z.ZodType<TBody> | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return async (extra: {
    fetch: typeof fetch;
    responseValidator: (data: unknown) => Promise<void>;
    throwOnError: false;
  }): Promise<SdkResult> => {
    let response: Response | undefined;
    try {
      if (bodySchema) await z.object({ body: bodySchema }).parseAsync({ body });
      const request = new Request(`${baseUrl}${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      response = await extra.fetch(request);
      if (response.ok) {
        const text = await response.text();
        const data: unknown = text ? JSON.parse(text) : {};
        await extra.responseValidator(data);
        return { data, response };
      }
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // noop, like hey-api
      }
      throw json ?? text;
    } catch (error) {
      return { error: error || {}, response };
    }
  };
}

const zPennyBody = z.looseObject({
  client_id: z.uuid(),
  source_instrument_id: z.uuid(),
  destination_instrument_id: z.uuid(),
  api_secret: z.string().optional(),
});
const zTransaction = z.looseObject({
  id: z.uuid(),
  amount: z.string().regex(/^\d+\.\d{2}$/),
  transactionStatus: z.enum(['INITIALIZED', 'IN_PROGRESS']),
});
const TX = { id: '3f2b6c1e-8a4d-4e5f-9b0a-1c2d3e4f5a6b', amount: '0.01', transactionStatus: 'INITIALIZED' };
const BODY = {
  client_id: '11111111-1111-4111-8111-111111111111',
  source_instrument_id: '3f2b6c1e-8a4d-4e5f-9b0a-1c2d3e4f5a6b',
  destination_instrument_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
};

let server: ScriptedServer;
let route: (req: Received, index: number) => Answer = () => ({ status: 200, body: {} });
beforeAll(async () => {
  server = await startScriptedServer((req, i) => route(req, i));
});
afterAll(() => server.close());
beforeEach(() => {
  server.received.length = 0;
});

function context(drift?: InvokeContext['drift'], logger?: (e: LogEntry) => void): InvokeContext {
  return {
    product: 'core',
    transport: createTransport({ product: 'core', sleep: recordingSleep().sleep, logger }),
    drift,
  };
}

describe('invoke', () => {
  it('returns the 2xx data through the tolerant reader, reporting drift but still returning', async () => {
    route = () => ({ status: 200, body: { ...TX, transactionStatus: 'QUEUED', routing: 'INT' } });
    const reports: DriftReport[] = [];
    const tx = await invoke(
      context({ onDrift: (r) => reports.push(r) }),
      'createPennyValidation',
      zTransaction,
      sdkCall(server.url, 'POST', '/v1/transactions/penny_validation', zPennyBody, BODY),
    );
    expect(tx).toEqual({ ...TX, transactionStatus: 'QUEUED', routing: 'INT' });
    expect(reports.map((r) => [r.product, r.operation, r.kind, r.path])).toEqual([
      ['core', 'createPennyValidation', 'mismatch', ['transactionStatus']],
      ['core', 'createPennyValidation', 'extra-field', ['routing']],
    ]);
  });

  it('strict mode turns the same answer into a DriftError', async () => {
    route = () => ({ status: 200, body: { ...TX, amount: 0.01 } });
    await expect(
      invoke(
        context({ strict: true }),
        'createPennyValidation',
        zTransaction,
        sdkCall(server.url, 'POST', '/p', zPennyBody, BODY),
      ),
    ).rejects.toBeInstanceOf(DriftError);
  });

  it('a request that fails the spec schema → RequestValidationError, nothing sent, no value echoed', async () => {
    const secret = 'api_secret_value_0123456789';
    const body = { ...BODY, client_id: 'not-a-uuid-but-a-name', api_secret: secret };
    const error = await invoke(
      context(),
      'createPennyValidation',
      zTransaction,
      sdkCall(server.url, 'POST', '/p', zPennyBody.extend({ api_secret: z.number() }), body),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    const validation = error as RequestValidationError;
    expect(validation.issues).toEqual([
      { path: ['body', 'client_id'], message: 'Invalid UUID' },
      { path: ['body', 'api_secret'], message: 'Invalid input: expected number, received string' },
    ]);
    expect(validation.message).toBe(
      'core createPennyValidation: the request does not match the spec, so it was not sent: body.client_id: Invalid UUID; body.api_secret: Invalid input: expected number, received string — fix these fields and call again',
    );
    const shown = `${validation.message}${JSON.stringify(validation)}${String(validation)}`;
    expect(shown).not.toContain(secret);
    expect(shown).not.toContain('not-a-uuid-but-a-name');
    expect(server.received).toHaveLength(0);
  });

  it('a ZodError thrown (not returned) by the SDK is mapped the same way', async () => {
    const call = async (): Promise<SdkResult> => {
      z.object({ id: z.uuid() }).parse({ id: 'x' });
      return {};
    };
    await expect(invoke(context(), 'getWebhook', zTransaction, call)).rejects.toMatchObject({
      name: 'RequestValidationError',
      issues: [{ path: ['id'], message: 'Invalid UUID' }],
    });
  });

  it('404 → NotFoundError with the core body and the request id the server saw', async () => {
    route = () => ({
      status: 404,
      body: {
        code: 5,
        message: 'Destination instrument not found.',
        details: [{ reason: 'RESOURCE_NOT_FOUND', domain: 'core', metadata: { http_code: '404' } }],
      },
    });
    const error = await invoke(
      context(),
      'createPennyValidation',
      zTransaction,
      sdkCall(server.url, 'POST', '/p', zPennyBody, BODY),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    const notFound = error as NotFoundError;
    expect(notFound.requestId).toBe(server.received[0]!.headers['x-request-id']);
    expect(notFound.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(notFound.code).toBe(5);
    expect(notFound.details?.[0]?.reason).toBe('RESOURCE_NOT_FOUND');
    expect(notFound.message).toMatch(
      /^core createPennyValidation: HTTP 404 RESOURCE_NOT_FOUND \(domain core\): Destination instrument not found\. — /,
    );
  });

  it('422 → UnprocessableError with detail[]; the server’s request id wins when it sends one', async () => {
    route = () => ({
      status: 422,
      headers: { 'x-request-id': 'dd-req-9' },
      body: { detail: [{ loc: ['body', 'name'], msg: 'field required', type: 'value_error.missing' }] },
    });
    const ctx: InvokeContext = { product: 'direct-debit', transport: createTransport({ product: 'direct-debit' }) };
    const error = await invoke(
      ctx,
      'createCustomer',
      z.unknown(),
      sdkCall(server.url, 'POST', '/customers', undefined, { document_type: 'rfc' }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableError);
    expect((error as UnprocessableError).detail).toEqual([
      { loc: ['body', 'name'], msg: 'field required', type: 'value_error.missing' },
    ]);
    expect((error as UnprocessableError).requestId).toBe('dd-req-9');
  });

  it('passes the operation and per-request options into the transport', async () => {
    route = (_req, i) =>
      i === 0 ? { status: 503, body: { code: 14, message: 'unavailable', details: [] } } : { status: 200, body: TX };
    const entries: LogEntry[] = [];
    const error = await invoke(
      context(undefined, (e) => entries.push(e)),
      'listWebhooks',
      zTransaction,
      sdkCall(server.url, 'GET', '/v1/clients/c/webhooks', undefined, undefined),
      {
        maxRetries: 0,
        headers: { 'x-trace': 't-1' },
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]!.headers['x-trace']).toBe('t-1');
    expect(new Set(entries.map((e) => e.operation))).toEqual(new Set(['listWebhooks']));
  });

  it('lets transport errors through as they are (ConnectionError), and a 2xx that is not JSON becomes a PaykitError without the body', async () => {
    const port = await closedPort();
    const down = await invoke(
      context(),
      'listWebhooks',
      zTransaction,
      sdkCall(`http://127.0.0.1:${port}`, 'GET', '/x', undefined, undefined),
    ).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ConnectionError);

    route = () => ({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: 'token=tok_live_abcdef123 not json',
    });
    const garbled = await invoke(
      context(),
      'getWebhook',
      zTransaction,
      sdkCall(server.url, 'GET', '/x', undefined, undefined),
    ).catch((e: unknown) => e);
    expect(garbled).toBeInstanceOf(UnexpectedResponseError);
    expect(garbled).toBeInstanceOf(PaykitError);
    expect((garbled as Error).message).toMatch(
      /^core getWebhook: HTTP 200 with a body that could not be read as JSON \(Content-Type application\/json, request id [0-9a-f-]{36}\)/,
    );
    expect(`${(garbled as Error).message}${String((garbled as Error).cause)}`).not.toContain('tok_live_abcdef123');
  });

  it("a caller's abort is a UserAbortError whose cause is the abort reason", async () => {
    route = () => 'hang';
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const pending = invoke(
      context(),
      'listWebhooks',
      zTransaction,
      sdkCall(server.url, 'GET', '/x', undefined, undefined),
      { signal: controller.signal },
    );
    while (server.received.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserAbortError);
    expect(error).toBeInstanceOf(PaykitError);
    expect((error as Error).cause).toBe(reason);
    expect((error as Error).message).toMatch(
      /^core listWebhooks: aborted by the caller's signal while the request was in flight \(Error, request id/,
    );
  });
});
