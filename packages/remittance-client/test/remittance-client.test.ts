// The remittance client over real HTTP against the sandbox (a separate process).
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  createRemittanceClient,
  RequestValidationError,
  type RemittanceReceiveRequest,
} from '@paykit/remittance-client';

let sandbox: SandboxProcess;

beforeAll(async () => {
  sandbox = await startSandboxProcess();
});

afterAll(async () => {
  await sandbox?.close();
});

const remittance: RemittanceReceiveRequest = {
  partner_transaction_session_id: 'pts-0001',
  reference: 'REM-2026-0001',
  amount: '1500.00',
  currency: 'MXN',
  country: 'MX',
  city: 'Guadalajara',
  date_of_birth: '1990-04-12',
  operator_name: 'Remesas Norte',
};

describe('remittance receive', () => {
  it('receives a complete remittance: ready to commit', async () => {
    const received = await createRemittanceClient({ environment: 'sandbox', baseUrl: sandbox.urls.remittance }).receive(
      remittance,
    );
    expect(received).toEqual({
      status: 'RECEIVED',
      partner_transaction_session_id: 'pts-0001',
      ready_for_commit: true,
    });
  });

  it('sends the configured headers with every request (the reference shows no authentication)', async () => {
    const sent: Headers[] = [];
    const client = createRemittanceClient({
      environment: 'sandbox',
      baseUrl: sandbox.urls.remittance,
      headers: { 'x-partner-id': 'partner-7' },
      fetch: async (input, init) => {
        const request = new Request(input, init);
        sent.push(request.headers);
        return globalThis.fetch(request);
      },
    });
    const received = await client.receive({ partner_transaction_session_id: 'pts-0002', reference: 'REM-2026-0002' });
    expect(received).toEqual({
      status: 'INCOMPLETE',
      partner_transaction_session_id: 'pts-0002',
      ready_for_commit: false,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.get('x-partner-id')).toBe('partner-7');
    expect(sent[0]!.get('content-type')).toMatch(/^application\/json/);
  });

  it('refuses an amount that is not a two-decimal string before sending it', async () => {
    let sent = 0;
    const client = createRemittanceClient({
      environment: 'sandbox',
      baseUrl: sandbox.urls.remittance,
      fetch: async (input, init) => (sent++, globalThis.fetch(input, init)),
    });
    await expect(client.receive({ ...remittance, amount: '1500.5' })).rejects.toBeInstanceOf(RequestValidationError);
    expect(sent).toBe(0);
  });

  it('a 400 from the service is an ApiError with its status and body', async () => {
    // Sent as a raw string so the client-side schema (which would refuse it) is not in the way.
    const client = createRemittanceClient({
      environment: 'sandbox',
      baseUrl: sandbox.urls.remittance,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        return globalThis.fetch(
          new Request(request.url, { method: 'POST', headers: request.headers, body: '{"amount":1500}' }),
        );
      },
    });
    const error = await client.receive({ partner_transaction_session_id: 'pts-0003' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).product).toBe('remittance');
    expect((error as ApiError).body).toMatchObject({ issues: [{ field: 'amount' }] });
  });
});
