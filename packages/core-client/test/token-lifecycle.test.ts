// The bearer token's lifecycle against the sandbox: one creation for 1,000 concurrent calls,
// refresh before expiry, one refresh after a 401, a shared token store, and the credential
// checks of the bootstrap (environment, ACTIVE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxProcess } from '@paykit/testing/sandbox';
import {
  AuthenticationError,
  createCoreClient,
  MemoryTokenStore,
  tokenStoreKey,
  type StoredToken,
} from '@paykit/core-client';
import {
  startSeededSandbox,
  requestCount,
  type SandboxTime,
  stagingClient,
  tokenCreations,
  type CoreSeed,
} from './helpers.ts';

let sandbox: SandboxProcess;
let seed: CoreSeed;
let time: SandboxTime;

const LIST_WEBHOOKS = 'GET /core/v1/clients/:clientId/webhooks';
const DAY = 24 * 3600;

beforeAll(async () => {
  ({ sandbox, seed, time } = await startSeededSandbox());
});

afterAll(async () => {
  await sandbox?.close();
});

describe('one token for many calls', () => {
  it('creates exactly one token for 1,000 concurrent calls once the cached token has expired', async () => {
    const core = stagingClient(sandbox, seed, time);
    const first = await core.tokens.current();
    await time.advance(DAY); // the client's clock moves too: its token is now expired
    const before = await tokenCreations(sandbox);
    const listsBefore = await requestCount(sandbox, LIST_WEBHOOKS);

    const results = await Promise.all(Array.from({ length: 1000 }, () => core.webhooks.list()));

    expect(results).toHaveLength(1000);
    expect(results.every((r) => Array.isArray(r))).toBe(true);
    expect(await tokenCreations(sandbox)).toBe(before + 1);
    // No call was refused and repeated: exactly 1,000 list requests reached the sandbox.
    expect(await requestCount(sandbox, LIST_WEBHOOKS)).toBe(listsBefore + 1000);
    const second = await core.tokens.current();
    expect(second.token).not.toBe(first.token);
    expect(Date.parse(second.expiresAt)).toBe(time.now.getTime() + DAY * 1000);
  });

  it('replaces the token refreshMarginSeconds before expires_at, not after', async () => {
    const core = stagingClient(sandbox, seed, time, { refreshMarginSeconds: 600 });
    const token = await core.tokens.current();
    const creations = await tokenCreations(sandbox);

    await time.advance(DAY - 601); // 601 s left: still outside the margin
    expect((await core.tokens.current()).token).toBe(token.token);
    expect(await tokenCreations(sandbox)).toBe(creations);

    await time.advance(2); // 599 s left: inside the margin, although the platform would still accept it
    const replaced = await core.tokens.current();
    expect(replaced.token).not.toBe(token.token);
    expect(await tokenCreations(sandbox)).toBe(creations + 1);
  });

  it('shares one token between clients through a token store', async () => {
    const store = new MemoryTokenStore();
    const a = stagingClient(sandbox, seed, time, { tokenStore: store });
    const b = stagingClient(sandbox, seed, time, { tokenStore: store });
    const before = await tokenCreations(sandbox);
    const tokenA = await a.tokens.current();
    await b.webhooks.list();
    expect((await b.tokens.current()).token).toBe(tokenA.token);
    expect(await tokenCreations(sandbox)).toBe(before + 1);
    expect((await store.get(tokenStoreKey('staging', seed.clientId)))?.id).toBe(tokenA.id);
  });

  it('uses the given clientSecret without retrieving the credentials', async () => {
    const credentialReads = await requestCount(sandbox, 'GET /core/v1/clients/:clientId/credentials');
    const core = stagingClient(sandbox, seed, time, { clientSecret: seed.stagingSecret });
    const token = await core.tokens.current();
    expect(token.credentialId).toBe(seed.stagingCredentialId);
    expect(await requestCount(sandbox, 'GET /core/v1/clients/:clientId/credentials')).toBe(credentialReads);
  });
});

describe('a 401 in the middle of a run', () => {
  it('recovers with one refresh when the platform stops accepting a token the client believes valid', async () => {
    const core = stagingClient(sandbox, seed, time);
    await core.webhooks.list();
    const before = await tokenCreations(sandbox);
    const listsBefore = await requestCount(sandbox, LIST_WEBHOOKS);

    await time.advance(DAY + 60, false); // the sandbox's token expires; the client's clock does not move

    const results = await Promise.all(Array.from({ length: 20 }, () => core.webhooks.list()));
    expect(results.every((r) => Array.isArray(r))).toBe(true);
    expect(await tokenCreations(sandbox)).toBe(before + 1);
    // Each call: one 401, then one retry with the new token.
    expect(await requestCount(sandbox, LIST_WEBHOOKS)).toBe(listsBefore + 40);
    await time.sync();
  });

  it('after a 401, takes the token another process already put in the store instead of creating one', async () => {
    const store = new MemoryTokenStore();
    const key = tokenStoreKey('staging', seed.clientId);
    const core = stagingClient(sandbox, seed, time, { tokenStore: store });
    await core.webhooks.list();
    const own = (await store.get(key)) as StoredToken;

    await time.advance(3600); // an hour later another process creates a newer token and shares it
    const other = stagingClient(sandbox, seed, time, { tokenStore: new MemoryTokenStore() });
    const newer = await other.tokens.refresh();
    await store.set(key, newer);

    // Past the first token's expiry (not the newer one's); the client is not told.
    await time.advance(DAY - 3600 + 60, false);
    const before = await tokenCreations(sandbox);
    expect(Array.isArray(await core.webhooks.list())).toBe(true);
    expect(await tokenCreations(sandbox)).toBe(before);
    expect((await core.tokens.current()).token).toBe(newer.token);
    expect(newer.token).not.toBe(own.token);
    await time.sync();
  });
});

describe('credential checks', () => {
  it('refuses credentials of another environment, naming both environments', async () => {
    const core = createCoreClient({
      environment: 'production',
      baseUrl: sandbox.urls.core,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      now: () => time.now,
    });
    const error = await core.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const auth = error as AuthenticationError;
    expect(auth.reason).toBe('credential-environment');
    expect(auth.message).toContain('staging');
    expect(auth.message).toContain('production');
    expect(auth.message).toContain(seed.clientId);
    expect(auth.message).not.toContain(seed.stagingSecret);
    expect(auth.message).not.toContain(seed.stagingApiKey);
  });

  it('accepts a staging credential for environment "sandbox" (the simulator mirrors both)', async () => {
    const core = createCoreClient({
      environment: 'sandbox',
      baseUrl: sandbox.urls.core,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      now: () => time.now,
    });
    expect((await core.tokens.current()).credentialId).toBe(seed.stagingCredentialId);
  });

  it('says so when the client has no ACTIVE credential', async () => {
    const clientId = '11111111-1111-4111-8111-222222222222';
    const added = await sandbox.control.addSeed({
      body: {
        core: {
          clients: [
            {
              clientId,
              name: 'Inactive Co',
              apiKeys: { staging: 'pk_staging_inactive_0000000000001', production: 'pk_production_inactive_000000001' },
              credentials: [
                {
                  id: '22222222-2222-4222-8222-999999999999',
                  environment: 'staging',
                  clientSecret: 'cs_staging_inactive_00000000001',
                  status: 'INACTIVE',
                },
              ],
            },
          ],
          accounts: [],
          instruments: [],
        },
      },
    });
    expect(added.status).toBe(200);
    const core = createCoreClient({
      environment: 'staging',
      baseUrl: sandbox.urls.core,
      clientId,
      apiKey: 'pk_staging_inactive_0000000000001',
      now: () => time.now,
    });
    const error = (await core.tokens.current().catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.reason).toBe('no-active-credential');
    expect(error.message).toContain(clientId);
    expect(error.message).toContain('ACTIVE');
  });

  it('says which key to check when the API key is refused', async () => {
    const core = createCoreClient({
      environment: 'staging',
      baseUrl: sandbox.urls.core,
      clientId: seed.clientId,
      apiKey: 'pk_staging_wrong_key_000000000001',
      now: () => time.now,
    });
    const error = (await core.webhooks.list().catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.reason).toBe('api-key-refused');
    expect(error.status).toBe(401);
    expect(error.message).toContain('apiKey');
    expect(error.message).not.toContain('pk_staging_wrong_key_000000000001');
    expect(JSON.stringify(error)).not.toContain('pk_staging_wrong_key_000000000001');
  });

  it('says what to check when token creation refuses the client secret', async () => {
    const core = stagingClient(sandbox, seed, time, { clientSecret: 'cs_not_the_secret_000000000000001' });
    const error = (await core.webhooks.list().catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.reason).toBe('token-refused');
    expect(error.message).toContain('client secret');
    expect(error.message).not.toContain('cs_not_the_secret_000000000000001');
    expect(String(error.cause)).not.toContain('cs_not_the_secret_000000000000001');
  });
});
