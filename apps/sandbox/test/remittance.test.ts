// The remittance service over real HTTP: a receive opens a private account with a CLABE in the
// core service, is idempotent by partner_transaction_session_id, and rejects malformed fields.
import { zReceiveRemittanceResponse } from '@paykit/remittance-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_ID, type Sandbox } from '../src/index.ts';
import { isValidClabe } from '../src/clabe.ts';
import { call, controlClient, startTestSandbox } from './helpers.ts';

const COMPLETE = {
  partner_transaction_session_id: 'pts-0001',
  reference: 'REM-2026-0001',
  amount: '1500.00',
  currency: 'MXN',
  country: 'MX',
  city: 'Guadalajara',
  date_of_birth: '1988-04-12',
  photo_id_type: 'INE',
  photo_id_number: 'ABC123456',
  operator_name: 'Remesas del Norte',
};

describe('remittance receive', () => {
  let sandbox: Sandbox;
  const receive = (body: unknown) => call(`${sandbox.urls.remittance}/v2/remittances/receive`, { body });
  const privateAccounts = () => [...sandbox.products.core.state.accounts.values()].filter((a) => a.private);

  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(() => sandbox.close());

  it('receives a complete remittance into a new private account with an 18-digit CLABE', async () => {
    const accountsBefore = sandbox.products.core.state.accounts.size;
    const response = await receive(COMPLETE);
    expect(response.status).toBe(200);
    expect(zReceiveRemittanceResponse.safeParse(response.body).success).toBe(true);
    expect(response.body).toEqual({
      status: 'RECEIVED',
      partner_transaction_session_id: 'pts-0001',
      ready_for_commit: true,
    });

    const kept = sandbox.products.remittance.received.get('pts-0001');
    expect(kept).toBeDefined();
    expect(sandbox.products.core.state.accounts.size).toBe(accountsBefore + 1);
    const account = sandbox.products.core.state.accounts.get(kept!.accountId);
    expect(account).toMatchObject({
      clientId: CLIENT_ID,
      ownerId: kept!.ownerId,
      private: true,
      platform: false,
      status: 'ACTIVE',
    });
    const instrument = sandbox.products.core.state.instruments.get(kept!.instrumentId);
    expect(instrument).toMatchObject({
      accountId: kept!.accountId,
      ownerId: kept!.ownerId,
      clientId: CLIENT_ID,
      holderName: 'REMITTANCE BENEFICIARY',
      status: 'ACTIVE',
    });
    expect(instrument!.clabe).toMatch(/^\d{18}$/);
    expect(isValidClabe(instrument!.clabe)).toBe(true);
    expect(instrument!.clabe).toBe(kept!.clabe);
    expect(sandbox.products.core.state.instrumentByClabe(kept!.clabe)?.id).toBe(kept!.instrumentId);
  });

  it('is idempotent by partner_transaction_session_id: same answer, no second account', async () => {
    const first = await receive(COMPLETE);
    expect(first.status).toBe(200);
    const accounts = sandbox.products.core.state.accounts.size;
    const again = await receive({ ...COMPLETE, amount: '9.99' });
    expect(again.status).toBe(200);
    expect(zReceiveRemittanceResponse.safeParse(again.body).success).toBe(true);
    expect(again.body).toEqual(first.body);
    expect(sandbox.products.core.state.accounts.size).toBe(accounts);
    expect(privateAccounts()).toHaveLength(1);

    const other = await receive({ ...COMPLETE, partner_transaction_session_id: 'pts-0002' });
    expect(other.body.partner_transaction_session_id).toBe('pts-0002');
    expect(privateAccounts()).toHaveLength(2);
    expect(sandbox.products.remittance.received.get('pts-0002')!.clabe).not.toBe(
      sandbox.products.remittance.received.get('pts-0001')!.clabe,
    );
  });

  it('answers INCOMPLETE and not ready to commit when amount, currency or reference is missing', async () => {
    const { amount: _amount, ...withoutAmount } = COMPLETE;
    void _amount;
    const response = await receive({ ...withoutAmount, partner_transaction_session_id: 'pts-incomplete' });
    expect(response.status).toBe(200);
    expect(zReceiveRemittanceResponse.safeParse(response.body).success).toBe(true);
    expect(response.body).toEqual({
      status: 'INCOMPLETE',
      partner_transaction_session_id: 'pts-incomplete',
      ready_for_commit: false,
    });
    // The private account is opened all the same: the remittance was received.
    expect(privateAccounts()).toHaveLength(1);
  });

  it('makes up a session id when the request carries none, and is then not ready to commit', async () => {
    const { partner_transaction_session_id: _pts, ...withoutSession } = COMPLETE;
    void _pts;
    const response = await receive(withoutSession);
    expect(response.status).toBe(200);
    expect(zReceiveRemittanceResponse.safeParse(response.body).success).toBe(true);
    expect(response.body).toMatchObject({
      status: 'INCOMPLETE',
      ready_for_commit: false,
      partner_transaction_session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(sandbox.products.remittance.received.has(response.body.partner_transaction_session_id)).toBe(true);
  });

  it('answers 400 with the failing fields for a malformed amount, date or type', async () => {
    const response = await receive({ ...COMPLETE, amount: '1500.5', date_of_birth: '12/04/1988', phone: 5512345678 });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('two decimals');
    expect(response.body.issues.map((i: { field: string }) => i.field).sort()).toEqual([
      'amount',
      'date_of_birth',
      'phone',
    ]);
    expect(privateAccounts()).toHaveLength(0);

    const numeric = await receive({ ...COMPLETE, amount: 1500 });
    expect(numeric.status).toBe(400);
    expect(numeric.body.issues).toEqual([{ field: 'amount', message: expect.any(String) }]);
  });

  it('answers 400 for malformed JSON and for a body that is not an object', async () => {
    const malformed = await call(`${sandbox.urls.remittance}/v2/remittances/receive`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      raw: '{"amount":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toContain('Malformed request');
    const array = await receive([COMPLETE]);
    expect(array.status).toBe(400);
    expect(array.body.issues).toEqual([{ field: '(body)', message: expect.any(String) }]);
    const text = await call(`${sandbox.urls.remittance}/v2/remittances/receive`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      raw: '<remittance/>',
    });
    expect(text.status).toBe(400);
    expect(privateAccounts()).toHaveLength(0);
  });

  it('forgets received remittances on reset', async () => {
    await receive(COMPLETE);
    await controlClient(sandbox).reset({ body: {} });
    expect(sandbox.products.remittance.received.size).toBe(0);
    expect(privateAccounts()).toHaveLength(0);
    // The same session id now opens a new account.
    expect((await receive(COMPLETE)).status).toBe(200);
    expect(privateAccounts()).toHaveLength(1);
  });
});
