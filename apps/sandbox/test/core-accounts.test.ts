// Private accounts over real HTTP: block, activate and cancel with their transitions and errors,
// and openPrivateAccount (what a remittance receive uses) with its CLABE.
import { zActivateAccountResponse, zBlockAccountResponse, zCancelAccountResponse } from '@paykit/core-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isValidClabe } from '../src/clabe.ts';
import { DEFAULT_SEED, OWNERS } from '../src/index.ts';
import {
  addOtherClient,
  bootCore,
  CLIENT,
  expectCoreError,
  OTHER_CLIENT,
  OTHER_KEY,
  OTHER_SECRET,
  tokenFor,
  type CoreHarness,
} from './core-helpers.ts';
import { call } from './helpers.ts';

const ACCOUNT = DEFAULT_SEED.core.accounts[2]!.id; // Juan Pérez's account
const OTHER_ACCOUNT = '55555555-5555-4555-8555-000000000101';

let core: CoreHarness;
beforeEach(async () => {
  core = await bootCore();
});
afterEach(() => core.close());

type Action = 'block' | 'activate' | 'cancel';
const METHOD: Record<Action, string> = { block: 'PUT', activate: 'PATCH', cancel: 'PUT' };
const SCHEMA = { block: zBlockAccountResponse, activate: zActivateAccountResponse, cancel: zCancelAccountResponse };

function act(
  action: Action,
  accountId: string,
  options: { bearer?: string | null; clientId?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const bearer = options.bearer === undefined ? core.token : options.bearer;
  return call(`${core.sandbox.urls.core}/v1/clients/${options.clientId ?? CLIENT}/accounts/${accountId}/${action}`, {
    method: METHOD[action],
    headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

async function expectStatus(action: Action, accountId: string, status: string) {
  const response = await act(action, accountId);
  expect(response.status).toBe(200);
  expect(SCHEMA[action].safeParse(response.body).success).toBe(true);
  expect(response.body).toEqual({ id: accountId, status, account_status: status });
  expect(core.state.accounts.get(accountId)!.status).toBe(status);
}

describe('private account lifecycle', () => {
  it('blocks an ACTIVE account, activates it again, then cancels it for good', async () => {
    await expectStatus('block', ACCOUNT, 'BLOCKED');
    await expectStatus('activate', ACCOUNT, 'ACTIVE');
    await expectStatus('block', ACCOUNT, 'BLOCKED');
    await expectStatus('activate', ACCOUNT, 'ACTIVE');
    await expectStatus('cancel', ACCOUNT, 'CANCELLED');
    // Permanent: nothing moves a cancelled account.
    for (const action of ['block', 'activate', 'cancel'] as const) {
      expect(expectCoreError(await act(action, ACCOUNT), 400, 'FAILED_PRECONDITION')).toMatch(/CANCELLED/);
    }
    expect(core.state.accounts.get(ACCOUNT)!.status).toBe('CANCELLED');
  });

  it('cancels a BLOCKED account', async () => {
    await expectStatus('block', ACCOUNT, 'BLOCKED');
    await expectStatus('cancel', ACCOUNT, 'CANCELLED');
    expectCoreError(await act('activate', ACCOUNT), 400, 'FAILED_PRECONDITION');
  });

  it('400 FAILED_PRECONDITION naming the current state for a wrong transition', async () => {
    expect(expectCoreError(await act('activate', ACCOUNT), 400, 'FAILED_PRECONDITION')).toMatch(/ACTIVE/);
    await expectStatus('block', ACCOUNT, 'BLOCKED');
    expect(expectCoreError(await act('block', ACCOUNT), 400, 'FAILED_PRECONDITION')).toMatch(/BLOCKED/);
    expect(core.state.accounts.get(ACCOUNT)!.status).toBe('BLOCKED');
  });

  it('ignores the request body, whatever it is (bodies are not shown)', async () => {
    const withBody = await act('block', ACCOUNT, { body: { reason: 'fraud review' } });
    expect(withBody.status).toBe(200);
    expect(withBody.body).toEqual({ id: ACCOUNT, status: 'BLOCKED', account_status: 'BLOCKED' });
    const emptyJson = await act('activate', ACCOUNT, { headers: { 'content-type': 'application/json' } });
    expect(emptyJson.status).toBe(200);
    expect(zActivateAccountResponse.safeParse(emptyJson.body).success).toBe(true);
    expect(emptyJson.body).toEqual({ id: ACCOUNT, status: 'ACTIVE', account_status: 'ACTIVE' });
  });

  it('404 for an unknown account or another client’s; 401 for another client’s path or no token', async () => {
    await addOtherClient(core.sandbox, {
      accounts: [{ id: OTHER_ACCOUNT, clientId: OTHER_CLIENT, ownerId: OWNERS.acme, platform: false }],
    });

    for (const action of ['block', 'activate', 'cancel'] as const) {
      expectCoreError(await act(action, 'acc_unknown'), 404, 'RESOURCE_NOT_FOUND');
      expectCoreError(await act(action, OTHER_ACCOUNT), 404, 'RESOURCE_NOT_FOUND');
      expectCoreError(await act(action, OTHER_ACCOUNT, { clientId: OTHER_CLIENT }), 401, 'UNAUTHORIZED');
      expectCoreError(await act(action, ACCOUNT, { bearer: null }), 401, 'UNAUTHORIZED');
      expectCoreError(await act(action, ACCOUNT, { bearer: 'not.a.token' }), 401, 'UNAUTHORIZED');
    }
    expect(core.state.accounts.get(OTHER_ACCOUNT)!.status).toBe('ACTIVE');

    // The other client manages its own account.
    const theirs = await tokenFor(core.sandbox, OTHER_CLIENT, OTHER_KEY, OTHER_SECRET);
    const blocked = await act('block', OTHER_ACCOUNT, { bearer: theirs, clientId: OTHER_CLIENT });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toEqual({ id: OTHER_ACCOUNT, status: 'BLOCKED', account_status: 'BLOCKED' });
  });

  it('401 once the token has expired', async () => {
    await core.advance(24 * 3600);
    expectCoreError(await act('block', ACCOUNT), 401, 'UNAUTHORIZED');
    expect(core.state.accounts.get(ACCOUNT)!.status).toBe('ACTIVE');
  });
});

describe('openPrivateAccount', () => {
  it('opens an ACTIVE private account with a RECEIVER instrument and a valid 646 CLABE', async () => {
    const service = core.sandbox.products.core;
    const opened = service.openPrivateAccount({
      clientId: CLIENT,
      ownerId: OWNERS.juanPerez,
      holderName: 'JUAN PEREZ LOPEZ',
      rfc: 'PELJ800101XY3',
    });
    expect(opened.clabe).toMatch(/^646\d{15}$/);
    expect(isValidClabe(opened.clabe)).toBe(true);
    expect(core.state.accounts.get(opened.accountId)).toEqual({
      id: opened.accountId,
      clientId: CLIENT,
      ownerId: OWNERS.juanPerez,
      platform: false,
      status: 'ACTIVE',
      balanceCentavos: 0n,
      private: true,
    });
    expect(core.state.instruments.get(opened.instrumentId)).toMatchObject({
      id: opened.instrumentId,
      clientId: CLIENT,
      ownerId: OWNERS.juanPerez,
      accountId: opened.accountId,
      type: 'RECEIVER',
      status: 'ACTIVE',
      clabe: opened.clabe,
      holderName: 'JUAN PEREZ LOPEZ',
      rfc: 'PELJ800101XY3',
      bankId: DEFAULT_SEED.core.instruments[0]!.bankId,
    });
    expect(core.state.instrumentByClabe(opened.clabe)?.id).toBe(opened.instrumentId);

    // Its lifecycle works over HTTP.
    await expectStatus('block', opened.accountId, 'BLOCKED');
    await expectStatus('activate', opened.accountId, 'ACTIVE');
    await expectStatus('cancel', opened.accountId, 'CANCELLED');
  });

  it('gives every account a new, unique CLABE and works without an RFC', () => {
    const service = core.sandbox.products.core;
    const clabes = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const opened = service.openPrivateAccount({ clientId: CLIENT, ownerId: OWNERS.acme, holderName: `HOLDER ${i}` });
      expect(isValidClabe(opened.clabe)).toBe(true);
      clabes.add(opened.clabe);
      expect(core.state.instruments.get(opened.instrumentId)!.rfc).toBe('');
    }
    expect(clabes.size).toBe(200);
    for (const seeded of DEFAULT_SEED.core.instruments) expect(clabes.has(seeded.clabe)).toBe(false);
  });
});
