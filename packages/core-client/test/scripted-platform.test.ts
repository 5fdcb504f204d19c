// Answers the sandbox does not give, from a scripted node:http server: a platform that refuses
// every token (the error after one refresh and one retry), an INACTIVE credential, a 409 for a
// request still in progress. And, throughout, no secret in an error or a log entry.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigurationError,
  createCoreClient,
  IdempotencyConflictError,
  UnauthorizedError,
  UnexpectedResponseError,
  type CoreClientOptions,
  type CreatedTransaction,
  type LogEntry,
} from '@paykit/core-client';

const CLIENT_ID = '9a0e6c3b-1d2f-4a5b-8c7d-0e1f2a3b4c5d';
const CREDENTIAL_ID = '2c9b8a7f-6e5d-4c3b-9a1f-0e2d3c4b5a69';
const API_KEY = 'pk_scripted_api_key_do_not_log_0001';
const SECRET = 'cs_scripted_client_secret_never_logged_01';
const TOKEN_PREFIX = 'eyJscripted.jwt.token-value-';

interface Script {
  credentialStatus: 'ACTIVE' | 'INACTIVE';
  /** What bearer calls answer. */
  bearer: (path: string) => { status: number; body: unknown; contentType?: string };
}

const counts = { credentials: 0, tokens: 0, bearer: 0 };
const tokensSeen: string[] = [];
let script: Script;
let server: Server;
let baseUrl: string;

const coreError = (status: number, reason: string, message: string) => ({
  code: status === 401 ? 16 : 6,
  message,
  details: [{ reason, domain: 'core', metadata: { http_code: String(status) } }],
});

function read(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

beforeAll(async () => {
  server = createServer((request, response) => {
    void (async () => {
      await read(request);
      const url = request.url ?? '';
      const send = (status: number, body: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (url.endsWith('/credentials')) {
        counts.credentials++;
        return send(200, {
          data: [
            {
              id: CREDENTIAL_ID,
              client_id: CLIENT_ID,
              client_secret: SECRET,
              environment: 'staging',
              status: script.credentialStatus,
              created_at: '2026-05-01T09:00:00-06:00',
              updated_at: '2026-05-01T09:00:00-06:00',
              deleted_at: null,
            },
          ],
        });
      }
      if (url.endsWith('/auth/credential-tokens')) {
        counts.tokens++;
        const token = `${TOKEN_PREFIX}${counts.tokens}`;
        tokensSeen.push(token);
        return send(200, {
          id: `7d3f1a2b-0c4e-4f5a-8b6c-00000000000${counts.tokens}`,
          client_id: CLIENT_ID,
          client_credential_id: CREDENTIAL_ID,
          token,
          status: 'ACTIVE',
          expires_at: '2099-01-01 00:00:00.000000',
          created_at: '2026-05-07 12:00:00.000000-06:00',
          updated_at: '2026-05-07 12:00:00.000000-06:00',
          deleted_at: null,
        });
      }
      counts.bearer++;
      const answer = script.bearer(url);
      if (answer.contentType !== undefined)
        return response.writeHead(answer.status, { 'content-type': answer.contentType }).end(String(answer.body));
      return send(answer.status, answer.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/core`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterEach(() => {
  counts.credentials = 0;
  counts.tokens = 0;
  counts.bearer = 0;
  tokensSeen.length = 0;
});

function client(logs: LogEntry[], extra: Partial<CoreClientOptions> = {}) {
  return createCoreClient({
    environment: 'staging',
    baseUrl,
    clientId: CLIENT_ID,
    apiKey: API_KEY,
    logger: (entry) => logs.push(entry),
    maxRetries: 0,
    ...extra,
  });
}

function expectNoSecret(text: string): void {
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(TOKEN_PREFIX);
}

describe('a platform that refuses every token', () => {
  it('refreshes once, retries once, then throws an AuthenticationError naming environment, client, credential and token', async () => {
    script = {
      credentialStatus: 'ACTIVE',
      bearer: () => ({
        status: 401,
        body: coreError(401, 'UNAUTHORIZED', 'Invalid bearer token: create a new token for this environment.'),
      }),
    };
    const logs: LogEntry[] = [];
    const core = client(logs);

    const error = await core.webhooks.list().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AuthenticationError);
    const auth = error as AuthenticationError;
    expect(auth.reason).toBe('unauthorized-after-refresh');
    expect(counts).toEqual({ credentials: 2, tokens: 2, bearer: 2 });
    for (const thing of ['staging', CLIENT_ID, CREDENTIAL_ID, 'token', baseUrl]) expect(auth.message).toContain(thing);
    expect(auth).toMatchObject({
      environment: 'staging',
      clientId: CLIENT_ID,
      credentialId: CREDENTIAL_ID,
      operation: 'listWebhooks',
      status: 401,
    });
    expect(auth.tokenId).toBe('7d3f1a2b-0c4e-4f5a-8b6c-000000000002');
    expect(auth.cause).toBeInstanceOf(UnauthorizedError);
    expectNoSecret(auth.message);
    expectNoSecret(JSON.stringify(auth));
    expectNoSecret(String(auth));
    expectNoSecret(JSON.stringify(auth.cause));
    expectNoSecret(String((auth.cause as Error).message));
    // The log saw every request, redacted.
    expect(logs.length).toBeGreaterThan(0);
    expectNoSecret(JSON.stringify(logs));
  });
});

describe('credential checks the sandbox cannot show', () => {
  it('refuses an INACTIVE credential, naming it', async () => {
    script = { credentialStatus: 'INACTIVE', bearer: () => ({ status: 200, body: [] }) };
    const error = (await client([])
      .tokens.current()
      .catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.reason).toBe('credential-inactive');
    expect(error.message).toContain(`${CREDENTIAL_ID} is INACTIVE`);
    expect(counts.tokens).toBe(0);
    expectNoSecret(error.message);
  });

  it('parses expires_at as Mexico City time (UTC-6)', async () => {
    script = { credentialStatus: 'ACTIVE', bearer: () => ({ status: 200, body: [] }) };
    const token = await client([], { now: () => new Date('2026-05-07T00:00:00Z') }).tokens.current();
    expect(token.expiresAt).toBe('2099-01-01T06:00:00.000Z');
  });
});

describe('409 for a request still in progress', () => {
  it('is an IdempotencyConflictError with case in-progress and the derived key', async () => {
    script = {
      credentialStatus: 'ACTIVE',
      bearer: () => ({
        status: 409,
        body: coreError(
          409,
          'UNIQUE_VIOLATION',
          'The original request with this Idempotency-Key is still in progress: retry later with the same key.',
        ),
      }),
    };
    const error = (await client([])
      .transactions.pennyValidation({
        source_instrument_id: '6f1c2d3e-4b5a-4c6d-8e7f-000000000010',
        destination_instrument_id: '6f1c2d3e-4b5a-4c6d-8e7f-000000000013',
      })
      .catch((e: unknown) => e)) as IdempotencyConflictError;
    expect(error).toBeInstanceOf(IdempotencyConflictError);
    expect(error.case).toBe('in-progress');
    expect(error.derivedKey).toBe(true);
    expect(error.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(error.message).toContain('still in progress');
    expect(error.message).toContain('same key');
  });
});

describe('options', () => {
  it('refuses bad options with a message naming them and never the secrets', () => {
    const attempt = () =>
      createCoreClient({
        environment: 'staging',
        baseUrl,
        clientId: 'not-a-uuid',
        apiKey: API_KEY,
        clientSecret: SECRET,
        refreshMarginSeconds: 90_000,
      });
    expect(attempt).toThrow(ConfigurationError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('clientId');
      expect(message).toContain('refreshMarginSeconds');
      expectNoSecret(message);
    }
  });

  it('asks for baseUrl outside the sandbox (the reference does not show the platform URLs)', () => {
    expect(() => createCoreClient({ environment: 'production', clientId: CLIENT_ID, apiKey: API_KEY })).toThrow(
      /baseUrl/,
    );
  });
});

describe('answers that are not what they seem', () => {
  const transfer = {
    source_instrument_id: '0f1e2d3c-4b5a-4968-8776-655443322110',
    destination_instrument_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
    transaction_request: {
      amount: '150.00',
      currency: 'MXN' as const,
      description: 'Payout',
      external_reference: '1234567',
    },
  };

  it('a money_out answered 200 with an HTML page is an UnexpectedResponseError, never recorded as a transaction', async () => {
    script = {
      credentialStatus: 'ACTIVE',
      bearer: () => ({ status: 200, contentType: 'text/html', body: '<html><body>Proxy login</body></html>' }),
    };
    const logs: LogEntry[] = [];
    const recorded: CreatedTransaction[] = [];
    const core = client(logs, { onTransactionCreated: (created) => void recorded.push(created) });

    const error = await core.transactions.moneyOut(transfer).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(
      /^core createMoneyOut: HTTP 200 with a body that is not JSON \(Content-Type text\/html, request id [0-9a-f-]{36}\) — .*if the call moves money, look it up before repeating it$/,
    );
    expect((error as Error).message).not.toContain('Proxy login');
    expect(recorded).toEqual([]);
    expect(counts.bearer).toBe(1);
  });

  it('a 400 echoing the retrieved client secret, the API key and the token keeps none of them, in the error or the log', async () => {
    script = {
      credentialStatus: 'ACTIVE',
      bearer: () => ({
        status: 400,
        body: coreError(400, 'DATA_ERROR', `rejected: client_secret ${SECRET}, key ${API_KEY}, token ${TOKEN_PREFIX}1`),
      }),
    };
    const logs: LogEntry[] = [];
    const core = client(logs);

    const error = await core.webhooks.list().catch((e: unknown) => e);

    expect((error as Error).name).toBe('BadRequestError');
    expectNoSecret((error as Error).message);
    expectNoSecret(JSON.stringify(error));
    expectNoSecret(JSON.stringify((error as { body?: unknown }).body));
    expectNoSecret(JSON.stringify(logs));
    expect(JSON.stringify(logs)).toContain('client_secret [redacted], key [redacted], token [redacted]');
  });
});
