// Core bootstrap calls over real HTTP: credential retrieval and token creation with x-api-key,
// the JWT they issue, its 24-hour expiry on the sandbox clock, and every error row of the
// reference's status-code table for these two operations.
import { zCreateCredentialTokenResponse, zListClientCredentialsResponse } from '@paykit/core-client/zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/index.ts';
import {
  addOtherClient,
  CLIENT,
  expectCoreError,
  OTHER_CLIENT,
  OTHER_KEY,
  OTHER_SECRET,
  SEED_CLIENT,
  STAGING_CREDENTIAL,
  STAGING_KEY,
} from './core-helpers.ts';
import { call, controlClient, startTestSandbox } from './helpers.ts';

const PRODUCTION_KEY = SEED_CLIENT.apiKeys.production;
const PRODUCTION_CREDENTIAL = SEED_CLIENT.credentials.find((c) => c.environment === 'production')!;

// No bootCore here: these tests count token creations, and bootCore creates one.
let sandbox: Sandbox;
beforeEach(async () => {
  sandbox = await startTestSandbox();
});
afterEach(() => sandbox.close());

const credentialsUrl = (clientId = CLIENT) => `${sandbox.urls.core}/v1/clients/${clientId}/credentials`;
const tokensUrl = (clientId = CLIENT) => `${sandbox.urls.core}/v1/clients/${clientId}/auth/credential-tokens`;
const listCredentials = (key?: string, clientId = CLIENT) =>
  call(credentialsUrl(clientId), { headers: key ? { 'x-api-key': key } : {} });
const createToken = (key: string | undefined, body: unknown, clientId = CLIENT) =>
  call(tokensUrl(clientId), { method: 'POST', headers: key ? { 'x-api-key': key } : {}, body });
const stagingToken = async () => {
  const response = await createToken(STAGING_KEY, {
    client_id: CLIENT,
    client_secret: STAGING_CREDENTIAL.clientSecret,
  });
  expect(response.status).toBe(200);
  return response.body.token as string;
};
const bearerCall = (token: string) =>
  call(`${sandbox.urls.core}/v1/clients/${CLIENT}/webhooks`, { headers: { authorization: `Bearer ${token}` } });

function decodeJwtPart(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('core flow: credentials → token → bearer call', () => {
  it('retrieves the staging credential, creates a JWT valid 24 hours and uses it', async () => {
    const credentials = await listCredentials(STAGING_KEY);
    expect(credentials.status).toBe(200);
    expect(zListClientCredentialsResponse.safeParse(credentials.body).success).toBe(true);
    expect(credentials.body).toEqual({
      data: [
        {
          id: STAGING_CREDENTIAL.id,
          client_id: CLIENT,
          client_secret: STAGING_CREDENTIAL.clientSecret,
          environment: 'staging',
          status: 'ACTIVE',
          created_at: '2026-05-07T12:00:00.000-06:00',
          updated_at: '2026-05-07T12:00:00.000-06:00',
          deleted_at: 'None',
          api_key: STAGING_KEY,
        },
      ],
    });

    const secret = credentials.body.data[0].client_secret as string;
    const created = await createToken(STAGING_KEY, { client_id: CLIENT, client_secret: secret });
    expect(created.status).toBe(200);
    expect(zCreateCredentialTokenResponse.safeParse(created.body).success).toBe(true);
    expect(created.body).toMatchObject({
      client_id: CLIENT,
      client_credential_id: STAGING_CREDENTIAL.id,
      status: 'ACTIVE',
      expires_at: '2026-05-08 12:00:00.000000',
      created_at: '2026-05-07 12:00:00.000000-06:00',
      updated_at: '2026-05-07 12:00:00.000000-06:00',
      deleted_at: 'None',
    });

    // A real JWT: three base64url parts, HS256, claims naming client, environment and credential.
    const token = created.body.token as string;
    const parts = token.split('.');
    expect(parts).toHaveLength(3);
    for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeJwtPart(parts[0]!)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = decodeJwtPart(parts[1]!);
    // expires_at is Mexico City time without an offset: read as UTC-6 it is the JWT's exp.
    const expiresAtMs = Date.parse(`${(created.body.expires_at as string).replace(' ', 'T').slice(0, 23)}-06:00`);
    expect(payload.exp).toBe(expiresAtMs / 1000);
    expect(payload).toMatchObject({
      sub: CLIENT,
      env: 'staging',
      cred: STAGING_CREDENTIAL.id,
      iat: Date.parse('2026-05-07T12:00:00-06:00') / 1000,
      jti: created.body.id,
    });
    expect(Buffer.from(parts[2]!, 'base64url')).toHaveLength(32);

    const listed = await bearerCall(token);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([]);

    const counters = await controlClient(sandbox).getCounters();
    expect(counters.status).toBe(200);
    expect(counters.body.tokenCreations).toBe(1);
  });

  it('issues a different token on every creation, and earlier tokens stay valid', async () => {
    const first = await stagingToken();
    const second = await stagingToken();
    expect(second).not.toBe(first);
    expect((await bearerCall(first)).status).toBe(200);
    expect((await bearerCall(second)).status).toBe(200);
    expect((await controlClient(sandbox).getCounters()).body).toMatchObject({ tokenCreations: 2 });
  });

  it('expires the token 24 hours after creation on the sandbox clock', async () => {
    const token = await stagingToken();
    const control = controlClient(sandbox);
    await control.advanceClock({ body: { seconds: 24 * 3600 - 1 } });
    expect((await bearerCall(token)).status).toBe(200);
    await control.advanceClock({ body: { seconds: 1 } });
    const message = expectCoreError(await bearerCall(token), 401, 'UNAUTHORIZED');
    expect(message).toMatch(/expired/);
    // A new token works again.
    expect((await bearerCall(await stagingToken())).status).toBe(200);
  });

  it('keeps the environments apart: the production key lists and accepts only the production credential', async () => {
    const credentials = await listCredentials(PRODUCTION_KEY);
    expect(credentials.status).toBe(200);
    expect(zListClientCredentialsResponse.safeParse(credentials.body).success).toBe(true);
    expect(credentials.body.data).toHaveLength(1);
    expect(credentials.body.data[0]).toMatchObject({
      id: PRODUCTION_CREDENTIAL.id,
      environment: 'production',
      api_key: PRODUCTION_KEY,
    });

    const created = await createToken(PRODUCTION_KEY, {
      client_id: CLIENT,
      client_secret: PRODUCTION_CREDENTIAL.clientSecret,
    });
    expect(created.status).toBe(200);
    expect(zCreateCredentialTokenResponse.safeParse(created.body).success).toBe(true);
    expect(created.body.client_credential_id).toBe(PRODUCTION_CREDENTIAL.id);
    expect(decodeJwtPart((created.body.token as string).split('.')[1]!)).toMatchObject({
      env: 'production',
      cred: PRODUCTION_CREDENTIAL.id,
    });
    expect((await bearerCall(created.body.token)).status).toBe(200);

    // The production credential with the staging key (and the reverse): another environment → 400.
    const crossed = await createToken(STAGING_KEY, {
      client_id: CLIENT,
      client_secret: PRODUCTION_CREDENTIAL.clientSecret,
    });
    expect(expectCoreError(crossed, 400, 'FAILED_PRECONDITION')).toMatch(/production.*staging/);
    const reverse = await createToken(PRODUCTION_KEY, {
      client_id: CLIENT,
      client_secret: STAGING_CREDENTIAL.clientSecret,
    });
    expectCoreError(reverse, 400, 'FAILED_PRECONDITION');
  });

  it('refuses a token once its credential is no longer ACTIVE', async () => {
    const token = await stagingToken();
    sandbox.products.core.state.credentials.get(STAGING_CREDENTIAL.id)!.status = 'INACTIVE';
    expectCoreError(await bearerCall(token), 401, 'UNAUTHORIZED');
  });
});

describe('credential retrieval errors', () => {
  it('400 DATA_ERROR for a malformed client id', async () => {
    expectCoreError(await listCredentials(STAGING_KEY, 'not-a-uuid'), 400, 'DATA_ERROR');
  });

  it('401 for a missing, invalid or another client’s API key', async () => {
    await addOtherClient(sandbox);
    expect(expectCoreError(await listCredentials(undefined), 401, 'UNAUTHORIZED')).toMatch(/x-api-key/);
    expectCoreError(await listCredentials('pk_staging_wrong_key_00000000000'), 401, 'UNAUTHORIZED');
    expectCoreError(await listCredentials(OTHER_KEY), 401, 'UNAUTHORIZED');
  });

  it('404 for an unknown client (with a valid key) and when the environment has no ACTIVE credential', async () => {
    expectCoreError(
      await listCredentials(STAGING_KEY, '99999999-9999-4999-8999-999999999999'),
      404,
      'RESOURCE_NOT_FOUND',
    );
    // Without a valid key, an unknown client stays a 401: nothing is revealed.
    expectCoreError(
      await listCredentials('pk_staging_wrong_key_00000000000', '99999999-9999-4999-8999-999999999999'),
      401,
      'UNAUTHORIZED',
    );

    sandbox.products.core.state.credentials.get(STAGING_CREDENTIAL.id)!.status = 'INACTIVE';
    expectCoreError(await listCredentials(STAGING_KEY), 404, 'RESOURCE_NOT_FOUND');
    // The other environment is not affected.
    expect((await listCredentials(PRODUCTION_KEY)).status).toBe(200);
  });

  it('lists an INACTIVE credential beside an ACTIVE one, and never a deleted one', async () => {
    await controlClient(sandbox).addSeed({
      body: {
        core: {
          clients: [
            {
              ...SEED_CLIENT,
              credentials: [
                {
                  id: '22222222-2222-4222-8222-000000000003',
                  environment: 'staging',
                  clientSecret: 'cs_staging_sandbox_inactive_00001',
                  status: 'INACTIVE',
                },
                {
                  id: '22222222-2222-4222-8222-000000000004',
                  environment: 'staging',
                  clientSecret: 'cs_staging_sandbox_deleted_000001',
                },
              ],
            },
          ],
        },
      },
    });
    sandbox.products.core.state.credentials.get('22222222-2222-4222-8222-000000000004')!.deletedAtMs =
      Date.parse('2026-05-07T12:00:00-06:00');
    const credentials = await listCredentials(STAGING_KEY);
    expect(credentials.status).toBe(200);
    expect(zListClientCredentialsResponse.safeParse(credentials.body).success).toBe(true);
    expect(credentials.body.data.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      [STAGING_CREDENTIAL.id, 'ACTIVE'],
      ['22222222-2222-4222-8222-000000000003', 'INACTIVE'],
    ]);
  });
});

describe('token creation errors', () => {
  const body = { client_id: CLIENT, client_secret: STAGING_CREDENTIAL.clientSecret };

  it('400 DATA_ERROR for a malformed client id in the path', async () => {
    expectCoreError(await createToken(STAGING_KEY, body, 'not-a-uuid'), 400, 'DATA_ERROR');
  });

  it('401 for a missing, invalid or another client’s API key', async () => {
    await addOtherClient(sandbox);
    expectCoreError(await createToken(undefined, body), 401, 'UNAUTHORIZED');
    expectCoreError(await createToken('pk_staging_wrong_key_00000000000', body), 401, 'UNAUTHORIZED');
    expectCoreError(await createToken(OTHER_KEY, body), 401, 'UNAUTHORIZED');
  });

  it('400 for missing or malformed request data', async () => {
    expect(
      expectCoreError(await createToken(STAGING_KEY, { client_id: CLIENT }), 400, 'MISSING_REQUIRED_FIELDS'),
    ).toMatch(/client_secret/);
    expectCoreError(
      await call(tokensUrl(), { method: 'POST', headers: { 'x-api-key': STAGING_KEY } }),
      400,
      'MISSING_REQUIRED_FIELDS',
    );
    expectCoreError(
      await createToken(STAGING_KEY, { client_id: 42, client_secret: STAGING_CREDENTIAL.clientSecret }),
      400,
      'DATA_ERROR',
    );
    expectCoreError(await createToken(STAGING_KEY, ['not', 'an', 'object']), 400, 'DATA_ERROR');
    const malformedJson = await call(tokensUrl(), {
      method: 'POST',
      headers: { 'x-api-key': STAGING_KEY, 'content-type': 'application/json' },
      raw: '{"client_id":',
    });
    expectCoreError(malformedJson, 400, 'DATA_ERROR');
  });

  it('400 when the body’s client_id is not the path’s, or the secret is wrong (never echoing it)', async () => {
    await addOtherClient(sandbox);
    expectCoreError(await createToken(STAGING_KEY, { ...body, client_id: OTHER_CLIENT }), 400, 'DATA_ERROR');
    const wrong = await createToken(STAGING_KEY, {
      client_id: CLIENT,
      client_secret: 'cs_staging_guess_0000000000000001',
    });
    const message = expectCoreError(wrong, 400, 'DATA_ERROR');
    expect(message).not.toContain('cs_staging_guess');
    // Another client's secret is not this client's.
    expectCoreError(
      await createToken(STAGING_KEY, { client_id: CLIENT, client_secret: OTHER_SECRET }),
      400,
      'DATA_ERROR',
    );
  });

  it('400 for an INACTIVE credential (seeded through the control API) and for a deleted one', async () => {
    const seeded = await controlClient(sandbox).addSeed({
      body: {
        core: {
          clients: [
            {
              ...SEED_CLIENT,
              credentials: [
                {
                  id: '22222222-2222-4222-8222-000000000003',
                  environment: 'staging',
                  clientSecret: 'cs_staging_sandbox_inactive_00001',
                  status: 'INACTIVE',
                },
              ],
            },
          ],
        },
      },
    });
    expect(seeded.status).toBe(200);
    const inactive = await createToken(STAGING_KEY, {
      client_id: CLIENT,
      client_secret: 'cs_staging_sandbox_inactive_00001',
    });
    expect(expectCoreError(inactive, 400, 'FAILED_PRECONDITION')).toMatch(/INACTIVE/);

    sandbox.products.core.state.credentials.get(STAGING_CREDENTIAL.id)!.deletedAtMs =
      Date.parse('2026-05-07T12:00:00-06:00');
    expect(expectCoreError(await createToken(STAGING_KEY, body), 400, 'FAILED_PRECONDITION')).toMatch(/deleted/);

    // No failed attempt counts as a token creation.
    expect((await controlClient(sandbox).getCounters()).body).toMatchObject({ tokenCreations: 0 });
  });
});
