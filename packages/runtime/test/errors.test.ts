import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  DriftError,
  InternalServerError,
  NotFoundError,
  PaykitError,
  PermissionDeniedError,
  RateLimitedError,
  RequestValidationError,
  TimeoutError,
  UnauthorizedError,
  UnprocessableError,
} from '../src/core/errors.ts';
import { apiErrorFrom } from '../src/internal/api-error-from.ts';
import { sanitizeCause } from '../src/internal/sanitize-cause.ts';
import { createTransport, requestIdOf } from '../src/core/transport.ts';
import { startScriptedServer, type ScriptedServer } from '@paykit/test-basics/scripted-server';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.dG9rZW4tcGF5bG9hZA.c2lnbmF0dXJlLXZhbHVlLTE';
const CLIENT_SECRET = 'cs_test_4f3e2d1c0b9a8877';
const API_KEY = 'dd_key_live_0a1b2c3d4e5f6789';

const coreBody = (code: number, reason: string, message: string, errorCode?: string) => ({
  code,
  message,
  details: [
    { reason, domain: 'core', metadata: { http_code: '404', ...(errorCode ? { error_code: errorCode } : {}) } },
  ],
});

/** Every way an error can be shown: message, toString, JSON, inspect (own fields, cause chain, stack). */
function everythingShown(error: unknown): string {
  const e = error as Error;
  return [
    e.message,
    String(e),
    JSON.stringify(e),
    inspect(e, { depth: 10, showHidden: true }),
    e.stack ?? '',
    String(e.cause),
    inspect(e.cause, { depth: 10 }),
  ].join('\n');
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('apiErrorFrom', () => {
  const ctx = { product: 'core' as const, operation: 'getWebhook', requestId: 'req-1' };
  const response = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });

  it('builds one subclass per status', () => {
    const cases: [number, new (...args: never[]) => ApiError][] = [
      [400, BadRequestError],
      [401, UnauthorizedError],
      [403, PermissionDeniedError],
      [404, NotFoundError],
      [409, ConflictError],
      [422, UnprocessableError],
      [429, RateLimitedError],
      [500, InternalServerError],
      [503, InternalServerError],
    ];
    for (const [status, cls] of cases) {
      const error = apiErrorFrom(response(status), {}, ctx);
      expect(error, String(status)).toBeInstanceOf(cls);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toBeInstanceOf(PaykitError);
      expect(error.status).toBe(status);
      expect(error.name).toBe(cls.name);
    }
    const teapot = apiErrorFrom(response(418), {}, ctx);
    expect(teapot.constructor).toBe(ApiError);
  });

  it('exposes the core error body: code, message, details[] with reason, domain, metadata.error_code', () => {
    const error = apiErrorFrom(
      response(404),
      coreBody(5, 'RESOURCE_NOT_FOUND', 'Webhook 9 not found for this client.', 'WH_404'),
      ctx,
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe(5);
    expect(error.details).toEqual([
      { reason: 'RESOURCE_NOT_FOUND', domain: 'core', metadata: { http_code: '404', error_code: 'WH_404' } },
    ]);
    expect(error.details?.[0]?.metadata.error_code).toBe('WH_404');
    expect(error.detail).toBeUndefined();
    expect(error.requestId).toBe('req-1');
    expect(error.product).toBe('core');
    expect(error.operation).toBe('getWebhook');
    expect(error.message).toMatch(
      /^core getWebhook: HTTP 404 RESOURCE_NOT_FOUND \(domain core\): Webhook 9 not found for this client\. — check the ids/,
    );
    expect([error.reason, error.domain]).toEqual(['RESOURCE_NOT_FOUND', 'core']);
  });

  it('exposes the direct debit 422 detail[] (loc, msg, type), and parses a JSON text body', () => {
    const body = JSON.stringify({
      detail: [
        { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error.email' },
        { loc: ['body', 'phone_number', 0], msg: 'str type expected', type: 'type_error.str' },
      ],
    });
    const error = apiErrorFrom(response(422), body, {
      product: 'direct-debit',
      operation: 'createCustomer',
      requestId: 'r',
    });
    expect(error).toBeInstanceOf(UnprocessableError);
    expect(error.detail).toEqual([
      { loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error.email' },
      { loc: ['body', 'phone_number', 0], msg: 'str type expected', type: 'type_error.str' },
    ]);
    expect(error.body).toEqual(JSON.parse(body));
    expect(error.code).toBeUndefined();
    expect(error.message).toBe(
      'direct-debit createCustomer: HTTP 422: body.email: value is not a valid email address; body.phone_number.0: str type expected — fix the fields listed in detail',
    );
  });

  it('reads the sandbox-style { error } body, keeps a non-JSON body as text, and never quotes an HTML page', () => {
    expect(
      apiErrorFrom(
        response(401),
        { error: 'The signature could not be verified.' },
        { product: 'cash', requestId: 'r' },
      ).message,
    ).toMatch(/^cash: HTTP 401: The signature could not be verified\. — check that the environment/);
    const html = apiErrorFrom(response(502), '<html><body>Bad gateway secret</body></html>', ctx);
    expect(html.body).toBe('<html><body>Bad gateway secret</body></html>');
    expect(html.message).toBe(
      'core getWebhook: HTTP 502 — a server-side failure: retry later, and only repeat an operation that is safe to repeat (a read, or a POST with an Idempotency-Key)',
    );
  });

  it('RateLimitedError carries retryAfterMs; headers are kept redacted', () => {
    const error = apiErrorFrom(
      response(429, { 'retry-after': '7', 'set-cookie': 'sid=abcdef123', 'x-request-id': 'srv' }),
      {},
      ctx,
    );
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(7000);
    expect(error.message).toContain('wait 7 s before retrying');
    expect(error.headers).toEqual({ 'retry-after': '7', 'set-cookie': '[redacted]', 'x-request-id': 'srv' });
  });

  it('toJSON is a safe summary without the raw body', () => {
    const error = apiErrorFrom(response(409), coreBody(6, 'UNIQUE_VIOLATION', 'Idempotency-Key reused'), ctx);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'ConflictError',
      message: error.message,
      status: 409,
      product: 'core',
      operation: 'getWebhook',
      requestId: 'req-1',
      code: 6,
      reason: 'UNIQUE_VIOLATION',
      domain: 'core',
      details: [{ reason: 'UNIQUE_VIOLATION', domain: 'core', metadata: { http_code: '404' } }],
    });
  });
});

describe('no error ever shows a secret', () => {
  it('scrubs secrets the server echoes back (message, body, details, toString, JSON, inspect)', async () => {
    server = await startScriptedServer(() => ({
      status: 400,
      headers: { 'set-cookie': `session=${TOKEN}` },
      body: {
        code: 3,
        message: `Credential ${CLIENT_SECRET} is inactive; header was Bearer ${TOKEN} and key ${API_KEY}`,
        details: [
          {
            reason: 'DATA_ERROR',
            domain: 'core',
            metadata: { error_detail: { client_secret: CLIENT_SECRET, echo: `got ${API_KEY}` } },
          },
        ],
      },
    }));
    const transport = createTransport({ product: 'core' });
    const response = await transport.with({ operation: 'createCredentialToken' })(
      `${server.url}/v1/clients/c/auth/credential-tokens`,
      {
        method: 'POST',
        headers: { 'x-api-key': API_KEY, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'c', client_secret: CLIENT_SECRET }),
      },
    );
    const error = apiErrorFrom(response, await response.text(), {
      product: 'core',
      operation: 'createCredentialToken',
      requestId: requestIdOf(response)!,
    });
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toBe(
      'core createCredentialToken: HTTP 400 DATA_ERROR (domain core): Credential [redacted] is inactive; header was Bearer [redacted] and key [redacted] — fix the request: the fields named above do not meet the spec or the platform rejected them',
    );
    expect(error.details?.[0]?.metadata.error_detail).toEqual({ client_secret: '[redacted]', echo: 'got [redacted]' });
    const shown = everythingShown(error);
    for (const secret of [TOKEN, CLIENT_SECRET, API_KEY]) expect(shown).not.toContain(secret);
    expect(error.cause).toBeUndefined();
  });

  it('scrubs values passed in ctx.secrets, for errors built outside the transport', () => {
    const error = apiErrorFrom(
      new Response(null, { status: 401 }),
      { error: `token tok_abcdef_123 expired` },
      { product: 'lottery', requestId: 'r', secrets: ['tok_abcdef_123'] },
    );
    expect(error.message).toContain('token [redacted] expired');
    expect(JSON.stringify(error.body)).not.toContain('tok_abcdef_123');
  });

  it('sanitizeCause keeps name, message chain and code only, scrubbed', () => {
    const inner = Object.assign(new Error(`connect ECONNREFUSED with ${API_KEY}`), {
      code: 'ECONNREFUSED',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const outer = Object.assign(new TypeError('fetch failed', { cause: inner }), {
      request: new Request('http://x/', { headers: { 'x-api-key': API_KEY } }),
    });
    const cause = sanitizeCause(outer, [API_KEY]);
    expect(cause.message).toBe('TypeError: fetch failed ← Error: connect ECONNREFUSED with [redacted]');
    expect((cause as Error & { code?: string }).code).toBe('ECONNREFUSED');
    expect(cause.cause).toBeUndefined();
    expect(inspect(cause)).not.toContain(TOKEN);
    expect(
      sanitizeCause(new TypeError(`Headers.append: "Bearer ${TOKEN}\n" is an invalid header value.`)).message,
    ).toBe('TypeError: Headers.append: "[redacted]" is an invalid header value.');
  });
});

describe('the other errors', () => {
  it('TimeoutError, DriftError and RequestValidationError carry their fields into JSON', () => {
    const timeout = new TimeoutError('core x: no response', { requestId: 'r', timeoutMs: 10 });
    expect(JSON.parse(JSON.stringify(timeout))).toEqual({
      name: 'TimeoutError',
      message: 'core x: no response',
      requestId: 'r',
      timeoutMs: 10,
    });
    const drift = new DriftError('drift', [
      {
        product: 'core',
        operation: 'x',
        kind: 'extra-field',
        path: ['a'],
        expected: 'absent: not in the schema',
        seen: 'number (integer)',
      },
    ]);
    expect(drift.reports).toHaveLength(1);
    expect(String(drift)).toBe('DriftError: drift');
    const validation = new RequestValidationError('bad', [{ path: ['body', 'client_id'], message: 'Invalid UUID' }]);
    expect(JSON.parse(JSON.stringify(validation)).issues).toEqual([
      { path: ['body', 'client_id'], message: 'Invalid UUID' },
    ]);
  });
});

describe('the documented core error body', () => {
  it('a 400 names error_detail, reason and domain in its message and fields', async () => {
    // The body as the private account lifecycle page prints it, from the documented fixtures.
    const contracts = path.dirname(createRequire(import.meta.url).resolve('@paykit/contracts/package.json'));
    const fixture = path.join(contracts, 'fixtures/documented/answers/accounts.cancel.already-cancelled.json');
    const { payload } = JSON.parse(readFileSync(fixture, 'utf8')) as { payload: unknown };
    const error = apiErrorFrom(new Response(null, { status: 400 }), JSON.stringify(payload), {
      product: 'core',
      operation: 'cancelAccount',
      requestId: 'r-1',
    });
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(
      /^core cancelAccount: HTTP 400 FAILED_PRECONDITION \(domain CORE\): Account is already cancelled — /,
    );
    expect(error.message).not.toContain('API Error');
    expect([error.reason, error.domain, error.errorDetail, error.code]).toEqual([
      'FAILED_PRECONDITION',
      'CORE',
      'Account is already cancelled',
      9,
    ]);
    expect(error.details?.[0]?.metadata.method_name).toBe('Cancel');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      reason: 'FAILED_PRECONDITION',
      domain: 'CORE',
      errorDetail: 'Account is already cancelled',
    });
  });
});
