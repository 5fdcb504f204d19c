import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SECRET_FIELDS,
  SECRET_HEADERS,
  collectSecrets,
  maskSecret,
  redactBody,
  redactHeaders,
  redactUrl,
  scrubSecrets,
} from '../src/core/redact.ts';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY21lIn0.c2lnbmF0dXJlLXZhbHVl';

describe('redactHeaders', () => {
  it('redacts every secret header, keeping the auth scheme; other headers pass', () => {
    const headers = new Headers({
      Authorization: `Bearer ${JWT}`,
      'X-API-Key': 'dd_key_123456',
      'X-Signature': 'ab12',
      'X-Client-Id': 'cash-api-key-32-characters-00001',
      'X-Webhook-Signature': 'ff00',
      Cookie: 'sid=1',
      'Content-Type': 'application/json',
      'X-Request-Id': 'r-1',
    });
    expect(redactHeaders(headers)).toEqual({
      authorization: 'Bearer [redacted]',
      'x-api-key': '[redacted]',
      'x-signature': '[redacted]',
      'x-client-id': '[redacted]',
      'x-webhook-signature': '[redacted]',
      cookie: '[redacted]',
      'content-type': 'application/json',
      'x-request-id': 'r-1',
    });
  });

  it('accepts a plain record, matches names case-insensitively, and catches secret-looking names and bearer values', () => {
    expect(
      redactHeaders({
        AUTHORIZATION: 'Basic dXNlcjpwYXNz',
        'X-Webhook-Token': 'tok',
        'X-Forwarded-Auth': `Bearer ${JWT}`,
      }),
    ).toEqual({
      authorization: 'Basic [redacted]',
      'x-webhook-token': '[redacted]',
      'x-forwarded-auth': 'Bearer [redacted]',
    });
    for (const name of SECRET_HEADERS) expect(redactHeaders({ [name]: 'value-123' })[name]).toBe('[redacted]');
  });
});

describe('redactBody', () => {
  it('redacts secret fields at any depth, in arrays, without touching the input', () => {
    const body = {
      data: [{ id: '1', client_id: 'c', client_secret: 's3cr3t-value', api_key: 'k', environment: 'staging' }],
      token: JWT,
      webhook: { secret_token: 'a'.repeat(64), url: 'https://x', auth_client_secret: 'o', webhookToken: 'w' },
      api_secret: 'z',
      apiKey: 'camel',
      amount: '10.00',
      deleted_at: null,
    };
    const copy = structuredClone(body);
    expect(redactBody(body)).toEqual({
      data: [{ id: '1', client_id: 'c', client_secret: '[redacted]', api_key: '[redacted]', environment: 'staging' }],
      token: '[redacted]',
      webhook: {
        secret_token: '[redacted]',
        url: 'https://x',
        auth_client_secret: '[redacted]',
        webhookToken: '[redacted]',
      },
      api_secret: '[redacted]',
      apiKey: '[redacted]',
      amount: '10.00',
      deleted_at: null,
    });
    expect(body).toEqual(copy);
  });

  it('redacts credential-looking strings under any name, keeps non-objects, survives cycles', () => {
    expect(redactBody({ note: `Bearer ${JWT}`, jwt_here: JWT, plain: 'Bearer' })).toEqual({
      note: '[redacted]',
      jwt_here: '[redacted]',
      plain: 'Bearer',
    });
    expect(redactBody('text')).toBe('text');
    expect(redactBody(12)).toBe(12);
    expect(redactBody(undefined)).toBeUndefined();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactBody(cyclic)).toEqual({ a: 1, self: '[circular]' });
    for (const name of SECRET_FIELDS) expect(redactBody({ [name]: 'value' })).toEqual({ [name]: '[redacted]' });
  });

  it('never lets a secret field value through (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRET_FIELDS),
        fc.string({ minLength: 1 }),
        fc.jsonValue(),
        (name, secret, other) => {
          const out = JSON.stringify(redactBody({ other, nested: [{ [name]: secret }] }));
          expect(JSON.parse(out).nested[0][name]).toBe('[redacted]');
        },
      ),
    );
  });
});

describe('maskSecret', () => {
  it('shows at most 4 characters of each end, "****" when short', () => {
    expect(maskSecret('cash_secret_sandbox_acme_0000001')).toBe('cash…0001');
    expect(maskSecret('abcdefghijklmnop')).toBe('ab…op');
    expect(maskSecret('abcdefgh')).toBe('a…h');
    expect(maskSecret('abcdefg')).toBe('****');
    expect(maskSecret('')).toBe('****');
  });

  it('never reveals more than a quarter of the secret, nor more than 4 characters of each end (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 0, maxLength: 200 }), (secret) => {
        const masked = maskSecret(secret);
        if (masked === '****') return;
        const [head, tail] = masked.split('…') as [string, string];
        expect(head.length).toBeLessThanOrEqual(4);
        expect(head.length + tail.length).toBeLessThanOrEqual(secret.length / 4);
        expect(secret.startsWith(head) && secret.endsWith(tail)).toBe(true);
      }),
    );
  });
});

describe('URLs, collected secrets and scrubbing', () => {
  it('redactUrl hides secret query parameters and user info', () => {
    expect(redactUrl('https://user:pw@api.example.com/v1/x?api_key=abc&limit=10&token=t')).toBe(
      'https://api.example.com/v1/x?api_key=[redacted]&limit=10&token=[redacted]',
    );
    expect(redactUrl('http://127.0.0.1:4010/core/v1/clients/c/webhooks')).toBe(
      'http://127.0.0.1:4010/core/v1/clients/c/webhooks',
    );
  });

  it('collectSecrets finds secret header values (the credential after its scheme) and secret body fields', () => {
    const secrets = collectSecrets(
      new Headers({ authorization: `Bearer ${JWT}`, 'x-api-key': 'dd_key_123456', accept: 'application/json' }),
      {
        client_id: 'not-a-secret-id',
        client_secret: 'cs_value_123',
        list: [{ token: 'tok_value_456' }],
      },
    );
    expect(secrets.sort()).toEqual([JWT, 'cs_value_123', 'dd_key_123456', 'tok_value_456'].sort());
  });

  it('scrubSecrets removes known values and anything credential-shaped', () => {
    expect(scrubSecrets('client cs_value_123 is inactive', ['cs_value_123'])).toBe('client [redacted] is inactive');
    expect(scrubSecrets(`bad token ${JWT}`)).toBe('bad token [redacted]');
    expect(scrubSecrets('header was Bearer abcdefghijklmnopqrstuvwxyz0123')).toBe('header was Bearer [redacted]');
    expect(scrubSecrets('Basic information is missing')).toBe('Basic information is missing');
  });
});
