import { describe, expect, it } from 'vitest';
import { CONFIGURED_SECRETS, describeError, scan } from '../src/secret-audit.ts';

describe('the secret audit', () => {
  it('finds a configured secret in any recorded text, and masks it in its report', () => {
    const secret = CONFIGURED_SECRETS[2]!;
    const findings = scan([{ kind: 'stdout', text: `calling with client_secret=${secret} now` }]);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.excerpt).toBe('calling with client_secret=[SECRET]');
    expect(JSON.stringify(findings)).not.toContain(secret);
  });

  it('finds a JWT inside an error, its cause included', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnopqrstuvwxyz012345';
    const error = new Error('request failed', { cause: new Error(`Authorization: Bearer ${jwt}`) });
    expect(scan([{ kind: 'test error', text: describeError(error) }]).map((f) => f.secret)).toEqual([
      'a JWT bearer token',
    ]);
  });

  it('finds nothing in clean output', () => {
    expect(scan([{ kind: 'stdout', text: 'token pk_st…01 created, expires 2026-05-07 12:00' }])).toEqual([]);
  });

  it('records what this worker writes (the audit folder is set for the run)', () => {
    expect(process.env.PAYKIT_SECRET_AUDIT_DIR).toBeTruthy();
  });
});

describe('the secret audit sees what clients log', () => {
  it('records the log entries of a transport built the way every client builds it', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { createClientContext } = await import('@paykit/runtime');
    const dir = process.env.PAYKIT_SECRET_AUDIT_DIR!;
    const recorded = () =>
      readdirSync(dir)
        .map((f) => readFileSync(path.join(dir, f), 'utf8'))
        .join('');
    const marker = `audit-probe-${Date.now()}`;
    const { transport } = createClientContext('billpay', {
      environment: 'sandbox',
      fetch: async () => new Response('{}', { status: 200 }),
    });
    await transport.fetch(`http://127.0.0.1:4010/billpay/${marker}`);
    expect(recorded()).toContain(marker);
  });
});
