// Core webhook configurations over real HTTP: create / list / get / patch / delete, the one-per-type
// rule, the delivery URL requirements (with and without allowLocalWebhookUrls), isolation between
// clients, and that deliveries follow the configuration (status, URL and token changes).
import type { components } from '@paykit/core-client/paths';
import {
  zCreateWebhookResponse,
  zDeleteWebhookResponse,
  zGetWebhookResponse,
  zListWebhooksResponse,
  zUpdateWebhookResponse,
  zWebhookConfiguration,
} from '@paykit/core-client/zod';
import { afterEach, describe, expect, it } from 'vitest';
import { emitEnvelopedEvent } from '../src/products/core/webhooks/emit.ts';
import { OWNERS, type SandboxOptions } from '../src/index.ts';
import {
  addOtherClient,
  bootCore,
  CLIENT,
  expectCoreError,
  OTHER_CLIENT,
  OTHER_KEY,
  OTHER_SECRET,
  SEED_CLIENT,
  tokenFor,
  WEBHOOK_TOKEN,
  type CoreHarness,
} from './core-helpers.ts';
import { call } from './helpers.ts';

const NEW_TOKEN = 'whk_fedcba9876543210fedcba9876543210';
const CREATED_AT = '2026-05-07 12:00:00.000000-06:00';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let core: CoreHarness;
afterEach(() => core.close());

async function start(options: SandboxOptions = {}): Promise<void> {
  core = await bootCore(options);
}

/** Seeds the second client and returns a bearer token of it. */
async function addOther(): Promise<string> {
  await addOtherClient(core.sandbox);
  return tokenFor(core.sandbox, OTHER_CLIENT, OTHER_KEY, OTHER_SECRET);
}

/** A client bound to one bearer token. */
function api(token: string | undefined, clientId = CLIENT) {
  const base = `${core.sandbox.urls.core}/v1/clients/${clientId}/webhooks`;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  return {
    create: (body: unknown) => call(base, { method: 'POST', headers, body }),
    list: (query = '') => call(`${base}${query}`, { headers }),
    get: (id: string) => call(`${base}/${id}`, { headers }),
    patch: (id: string, body: unknown) => call(`${base}/${id}`, { method: 'PATCH', headers, body }),
    remove: (id: string) => call(`${base}/${id}`, { method: 'DELETE', headers }),
  };
}

const createBody = (overrides: Record<string, unknown> = {}) => ({
  client_id: CLIENT,
  url: 'https://hooks.acme.example.com/webhooks/core/money-in',
  token: WEBHOOK_TOKEN,
  webhook_type: 'MONEY_IN',
  auth_type: 'AUTH',
  ...overrides,
});

/** A MONEY_IN body for ACME's operating account: what is under test is its delivery, not its content. */
const MONEY_IN_BODY: components['schemas']['MoneyInBody'] = {
  id: '00000000-0000-4000-8000-000000000001',
  beneficiary_account: '646180000000000012',
  payer_account: '002180001234567896',
  payer_institution: '40002',
  amount: '1.00',
  tracking_key: 'TEST0001',
  sub_category: 'SPEI_CREDIT',
  owner_id: OWNERS.acme,
};

/** Emits a MONEY_IN for ACME the way the core service does, and waits for its delivery attempt. */
async function emitMoneyIn() {
  const event = emitEnvelopedEvent(core.sandbox.runtime, core.state, CLIENT, 'MONEY_IN', MONEY_IN_BODY);
  await core.sandbox.runtime.deliveries.idle();
  return event;
}

describe('webhook configuration lifecycle', () => {
  it('creates, lists, retrieves, updates and soft-deletes a configuration', async () => {
    await start();
    const hooks = api(core.token);

    const created = await hooks.create(createBody());
    expect(created.status).toBe(201);
    expect(zCreateWebhookResponse.safeParse(created.body).success).toBe(true);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      clientId: CLIENT,
      url: 'https://hooks.acme.example.com/webhooks/core/money-in',
      webhookType: 'MONEY_IN',
      webhookStatus: 'ACTIVE',
      createdAt: CREATED_AT,
      updatedAt: CREATED_AT,
      // As the published answers write them: the string "None" for unset audit fields.
      deletedAt: 'None',
      blockedAt: 'None',
      deletedBy: 'None',
      blockedBy: 'None',
    });
    // Write fields never come back.
    expect(JSON.stringify(created.body)).not.toContain(WEBHOOK_TOKEN);
    const id = created.body.id as string;

    const cep = await hooks.create(
      createBody({
        webhook_type: 'CEP',
        url: 'https://hooks.acme.example.com/webhooks/core/cep',
        auth_type: 'NO_AUTH',
      }),
    );
    expect(cep.status).toBe(201);

    const listed = await hooks.list();
    expect(listed.status).toBe(200);
    expect(zListWebhooksResponse.safeParse(listed.body).success).toBe(true);
    expect(Array.isArray(listed.body)).toBe(true);
    for (const item of listed.body) expect(zWebhookConfiguration.safeParse(item).success).toBe(true);
    expect(listed.body.map((w: { webhookType: string }) => w.webhookType)).toEqual(['MONEY_IN', 'CEP']);

    const fetched = await hooks.get(id);
    expect(fetched.status).toBe(200);
    expect(zGetWebhookResponse.safeParse(fetched.body).success).toBe(true);
    expect(zWebhookConfiguration.safeParse(fetched.body).success).toBe(true);
    expect(fetched.body).toEqual(created.body);

    await core.advance(60);
    const patched = await hooks.patch(id, {
      url: 'https://hooks2.acme.example.com/money-in',
      token: NEW_TOKEN,
      webhook_status: 'INACTIVE',
      auth_client_id: 'oauth-client',
      auth_client_secret: 'oauth-secret-value',
      auth_url: 'https://auth.acme.example.com/token',
      auth_scope: 'webhooks',
      auth_audience: 'paykit',
    });
    expect(patched.status).toBe(200);
    expect(zUpdateWebhookResponse.safeParse(patched.body).success).toBe(true);
    expect(zWebhookConfiguration.safeParse(patched.body).success).toBe(true);
    expect(patched.body).toEqual({
      ...created.body,
      url: 'https://hooks2.acme.example.com/money-in',
      webhookStatus: 'INACTIVE',
      updatedAt: '2026-05-07 12:01:00.000000-06:00',
    });
    expect(JSON.stringify(patched.body)).not.toContain('oauth-secret-value');
    const stored = core.state.webhooks.get(id)!;
    expect(stored.token).toBe(NEW_TOKEN);
    expect(stored.oauth).toEqual({
      auth_client_id: 'oauth-client',
      auth_client_secret: 'oauth-secret-value',
      auth_url: 'https://auth.acme.example.com/token',
      auth_scope: 'webhooks',
      auth_audience: 'paykit',
    });

    // Back to ACTIVE.
    const reactivated = await hooks.patch(id, { webhook_status: 'ACTIVE' });
    expect(reactivated.status).toBe(200);
    expect(reactivated.body.webhookStatus).toBe('ACTIVE');

    const deleted = await hooks.remove(id);
    expect(deleted.status).toBe(200);
    expect(zDeleteWebhookResponse.safeParse(deleted.body).success).toBe(true);
    expect(zWebhookConfiguration.safeParse(deleted.body).success).toBe(true);
    expect(deleted.body).toMatchObject({ id, webhookType: 'MONEY_IN', deletedAt: '2026-05-07 12:01:00.000000-06:00' });

    // Gone for the client: retrieve, update and delete are 404, the list no longer shows it.
    expectCoreError(await hooks.get(id), 404, 'RESOURCE_NOT_FOUND');
    expectCoreError(await hooks.patch(id, { webhook_status: 'ACTIVE' }), 404, 'RESOURCE_NOT_FOUND');
    expectCoreError(await hooks.remove(id), 404, 'RESOURCE_NOT_FOUND');
    expect((await hooks.list()).body.map((w: { webhookType: string }) => w.webhookType)).toEqual(['CEP']);

    // A deleted configuration frees its type.
    const again = await hooks.create(createBody());
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(id);
  });

  it('deliveries follow the configuration: ACTIVE only, the current URL and token', async () => {
    await start();
    const hooks = api(core.token);
    const first = await core.receiver();
    const second = await core.receiver();

    const created = await hooks.create(createBody({ url: `${first.url}/money-in` }));
    expect(created.status).toBe(201);
    expect((await emitMoneyIn()).delivered).toBe(true);
    expect(first.requests).toHaveLength(1);
    expect(first.requests[0]!.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`);

    await hooks.patch(created.body.id, { webhook_status: 'INACTIVE' });
    expect((await emitMoneyIn()).delivered).toBe(false);
    expect(first.requests).toHaveLength(1);

    await hooks.patch(created.body.id, { webhook_status: 'ACTIVE', url: `${second.url}/money-in`, token: NEW_TOKEN });
    expect((await emitMoneyIn()).delivered).toBe(true);
    expect(second.requests).toHaveLength(1);
    expect(second.requests[0]!.headers.authorization).toBe(`Bearer ${NEW_TOKEN}`);

    await hooks.remove(created.body.id);
    expect((await emitMoneyIn()).delivered).toBe(false);
    expect(first.requests.length + second.requests.length).toBe(2);
  });

  it('filters the list by webhook_type and webhook_status', async () => {
    await start();
    const hooks = api(core.token);
    const moneyIn = await hooks.create(createBody());
    await hooks.create(createBody({ webhook_type: 'REPORT', url: 'https://hooks.acme.example.com/report' }));
    await hooks.patch(moneyIn.body.id, { webhook_status: 'INACTIVE' });

    const reports = await hooks.list('?webhook_type=REPORT');
    expect(reports.status).toBe(200);
    expect(reports.body.map((w: { webhookType: string }) => w.webhookType)).toEqual(['REPORT']);
    const inactive = await hooks.list('?webhook_status=INACTIVE');
    expect(inactive.body.map((w: { id: string }) => w.id)).toEqual([moneyIn.body.id]);
  });
});

describe('webhook creation rules and errors', () => {
  it('allows one non-deleted configuration per client and type (INACTIVE ones count)', async () => {
    await start();
    const hooks = api(core.token);
    const created = await hooks.create(createBody());
    expect(created.status).toBe(201);
    expect(
      expectCoreError(
        await hooks.create(createBody({ url: 'https://other.acme.example.com/x' })),
        400,
        'UNIQUE_VIOLATION',
      ),
    ).toMatch(/MONEY_IN/);
    await hooks.patch(created.body.id, { webhook_status: 'INACTIVE' });
    expectCoreError(await hooks.create(createBody()), 400, 'UNIQUE_VIOLATION');
    // Every other type is free.
    for (const type of ['STATUS_UPDATE', 'CEP', 'REPORT', 'REFUND']) {
      const response = await hooks.create(createBody({ webhook_type: type }));
      expect(response.status).toBe(201);
      expect(zCreateWebhookResponse.safeParse(response.body).success).toBe(true);
    }
  });

  it('400 for missing or malformed fields, never echoing the token', async () => {
    await start();
    const hooks = api(core.token);
    const { token: _token, ...withoutToken } = createBody();
    expect(expectCoreError(await hooks.create(withoutToken), 400, 'MISSING_REQUIRED_FIELDS')).toMatch(/token/);
    const { webhook_type: _type, ...withoutType } = createBody();
    expectCoreError(await hooks.create(withoutType), 400, 'MISSING_REQUIRED_FIELDS');
    expectCoreError(
      await call(`${core.sandbox.urls.core}/v1/clients/${CLIENT}/webhooks`, { method: 'POST', headers: core.bearer() }),
      400,
      'MISSING_REQUIRED_FIELDS',
    );

    const short = await hooks.create(createBody({ token: 'short-token-value' }));
    expect(expectCoreError(short, 400, 'DATA_ERROR')).not.toContain('short-token-value');
    expectCoreError(await hooks.create(createBody({ webhook_type: 'PAYOUT' })), 400, 'DATA_ERROR');
    expectCoreError(await hooks.create(createBody({ auth_type: 'BASIC' })), 400, 'DATA_ERROR');
    expectCoreError(await hooks.create(createBody({ client_id: 'not-a-uuid' })), 400, 'DATA_ERROR');
    expectCoreError(await hooks.create(createBody({ url: 'not a url' })), 400, 'DATA_ERROR');
    // client_id must be the path's client.
    expectCoreError(await hooks.create(createBody({ client_id: OTHER_CLIENT })), 400, 'DATA_ERROR');
    expect((await hooks.list()).body).toEqual([]);
  });

  it('400 for URLs that do not meet the delivery requirements (public HTTPS)', async () => {
    await start();
    const hooks = api(core.token);
    for (const url of [
      'http://hooks.acme.example.com/money-in',
      'ftp://hooks.acme.example.com/money-in',
      'https://10.1.2.3/money-in',
      'https://172.20.0.1/money-in',
      'https://192.168.1.5/money-in',
      'https://169.254.169.254/latest',
      'https://[fd00::1]/money-in',
      'https://printer.local/money-in',
      'https://intranet/money-in',
      'https://user:pass@hooks.acme.example.com/money-in',
    ]) {
      const response = await hooks.create(createBody({ url }));
      expect(expectCoreError(response, 400, 'DATA_ERROR'), url).toMatch(/delivery requirements/);
    }
    expect((await hooks.create(createBody({ url: 'https://203.0.113.10/money-in' }))).status).toBe(201);
  });

  it('accepts http and https on localhost / 127.0.0.1 / ::1 when allowLocalWebhookUrls is on (the default)', async () => {
    await start();
    const hooks = api(core.token);
    const urls = [
      'http://127.0.0.1:4020/webhooks/core/money-in',
      'https://localhost:4020/cep',
      'http://[::1]:4020/report',
    ];
    const types = ['MONEY_IN', 'CEP', 'REPORT'];
    for (const [i, url] of urls.entries()) {
      const response = await hooks.create(createBody({ url, webhook_type: types[i] }));
      expect(response.status).toBe(201);
      expect(response.body.url).toBe(url);
    }
    // Other private addresses stay refused.
    expectCoreError(
      await hooks.create(createBody({ url: 'http://10.0.0.1/x', webhook_type: 'REFUND' })),
      400,
      'DATA_ERROR',
    );
  });

  it('refuses localhost when allowLocalWebhookUrls is off', async () => {
    await start({ settings: { allowLocalWebhookUrls: false } });
    const hooks = api(core.token);
    for (const url of [
      'http://127.0.0.1:4020/money-in',
      'https://localhost/money-in',
      'https://127.0.0.1/money-in',
      'http://[::1]/money-in',
    ]) {
      expectCoreError(await hooks.create(createBody({ url })), 400, 'DATA_ERROR');
    }
    expect((await hooks.create(createBody())).status).toBe(201);
  });

  it('applies the URL requirements to updates too', async () => {
    await start({ settings: { allowLocalWebhookUrls: false } });
    const hooks = api(core.token);
    const created = await hooks.create(createBody());
    expectCoreError(await hooks.patch(created.body.id, { url: 'http://127.0.0.1:4020/x' }), 400, 'DATA_ERROR');
    expect((await hooks.get(created.body.id)).body.url).toBe(createBody().url);
  });
});

describe('webhook update, retrieve, delete and list errors', () => {
  it('400 for an empty or malformed update body, leaving the configuration unchanged', async () => {
    await start();
    const hooks = api(core.token);
    const created = await hooks.create(createBody());
    const id = created.body.id as string;
    expectCoreError(await hooks.patch(id, {}), 400, 'MISSING_REQUIRED_FIELDS');
    expectCoreError(await hooks.patch(id, { color: 'blue' }), 400, 'MISSING_REQUIRED_FIELDS');
    expectCoreError(await hooks.patch(id, { webhook_status: 'PAUSED' }), 400, 'DATA_ERROR');
    expectCoreError(await hooks.patch(id, { token: 'too-short' }), 400, 'DATA_ERROR');
    expectCoreError(await hooks.patch(id, { url: 'not a url' }), 400, 'DATA_ERROR');
    expectCoreError(
      await hooks.patch(id, { url: 'http://hooks.acme.example.com/x', webhook_status: 'INACTIVE' }),
      400,
      'DATA_ERROR',
    );
    expectCoreError(await hooks.patch(id, 'INACTIVE'), 400, 'DATA_ERROR');
    expect((await hooks.get(id)).body).toEqual(created.body);
    expect(core.state.webhooks.get(id)!.token).toBe(WEBHOOK_TOKEN);
  });

  it('404 for an unknown, malformed or another client’s configuration id; 401 for another client’s path', async () => {
    await start();
    const acme = api(core.token);
    const otherToken = await addOther();
    const other = api(otherToken, OTHER_CLIENT);
    const theirs = await other.create(createBody({ client_id: OTHER_CLIENT }));
    expect(theirs.status).toBe(201);
    const theirId = theirs.body.id as string;

    for (const id of [theirId, '99999999-9999-4999-8999-999999999999', 'not-a-uuid']) {
      expectCoreError(await acme.get(id), 404, 'RESOURCE_NOT_FOUND');
      expectCoreError(await acme.patch(id, { webhook_status: 'INACTIVE' }), 404, 'RESOURCE_NOT_FOUND');
      expectCoreError(await acme.remove(id), 404, 'RESOURCE_NOT_FOUND');
    }
    expect((await acme.list()).body).toEqual([]);
    // Their configuration is untouched.
    expect((await other.get(theirId)).body.webhookStatus).toBe('ACTIVE');

    // ACME's token on the other client's path: 401, whatever the operation.
    const acmeOnTheirs = api(core.token, OTHER_CLIENT);
    expectCoreError(await acmeOnTheirs.list(), 401, 'UNAUTHORIZED');
    expectCoreError(await acmeOnTheirs.get(theirId), 401, 'UNAUTHORIZED');
    expectCoreError(await acmeOnTheirs.create(createBody({ client_id: OTHER_CLIENT })), 401, 'UNAUTHORIZED');
  });

  it('401 without a bearer token, with an invalid one or an expired one', async () => {
    await start();
    const token = core.token;
    const created = await api(token).create(createBody());
    expectCoreError(await api(undefined).list(), 401, 'UNAUTHORIZED');
    expectCoreError(await api(undefined).create(createBody()), 401, 'UNAUTHORIZED');
    expectCoreError(await api('not.a.token').get(created.body.id), 401, 'UNAUTHORIZED');
    // An API key is not a bearer token.
    expectCoreError(
      await call(`${core.sandbox.urls.core}/v1/clients/${CLIENT}/webhooks`, {
        headers: { 'x-api-key': SEED_CLIENT.apiKeys.staging },
      }),
      401,
      'UNAUTHORIZED',
    );
    await core.control.advanceClock({ body: { seconds: 24 * 3600 } });
    expectCoreError(await api(token).patch(created.body.id, { webhook_status: 'INACTIVE' }), 401, 'UNAUTHORIZED');
    expectCoreError(await api(token).remove(created.body.id), 401, 'UNAUTHORIZED');
  });

  it('400 for malformed list parameters', async () => {
    await start();
    const hooks = api(core.token);
    expectCoreError(await hooks.list('?webhook_type=PAYOUT'), 400, 'DATA_ERROR');
    expectCoreError(await hooks.list('?webhook_status=PAUSED'), 400, 'DATA_ERROR');
  });
});
