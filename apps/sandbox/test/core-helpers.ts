// Shared by the core service's tests: the default seed's ids, a sandbox with a bearer token taken
// through the real routes (bootCore), webhook registration to real receivers, the deliveries a
// receiver got (checked against their generated schemas) and the core error body.
import type { SeedInput } from '@paykit/contracts';
import type { components } from '@paykit/core-client/paths';
import { zCoreError } from '@paykit/core-client/zod';
import { expect } from 'vitest';
import type * as z from 'zod';
import { CLIENT_ID, DEFAULT_SEED, type Sandbox, type SandboxOptions } from '../src/index.ts';
import { isoMexicoCity } from '../src/products/core/time.ts';
import { call, controlClient, startReceiver, startTestSandbox, T0, type Receiver } from './helpers.ts';

export type WebhookType = components['schemas']['WebhookType'];
export type WebhookAuthType = components['schemas']['WebhookAuthType'];

// ---- the default seed ----

export const SEED_CLIENT = DEFAULT_SEED.core.clients[0]!;
export const CLIENT = CLIENT_ID;
export const STAGING_KEY = SEED_CLIENT.apiKeys.staging;
export const STAGING_CREDENTIAL = SEED_CLIENT.credentials.find((c) => c.environment === 'staging')!;

/** Instruments of the default seed. */
export const ACME = '66666666-6666-4666-8666-000000000001';
export const BODEGA = '66666666-6666-4666-8666-000000000002';
export const JUAN = '66666666-6666-4666-8666-000000000003';
export const SUPPLIER_BBVA = '66666666-6666-4666-8666-000000000004';
export const PAYROLL_BANORTE = '66666666-6666-4666-8666-000000000005';
/** Accounts of the default seed. */
export const ACME_ACCOUNT = '55555555-5555-4555-8555-000000000001';
export const BODEGA_ACCOUNT = '55555555-5555-4555-8555-000000000002';
/** The bank id of the platform's bank (646) in the default seed. */
export const PLATFORM_BANK = '44444444-4444-4444-8444-000000000646';
/** A well-formed id nothing in the sandbox has. */
export const UNKNOWN = '99999999-9999-4999-8999-999999999999';
/** What every seeded platform account holds at start (centavos). */
export const START_BALANCE = 100_000_000n;

/** The delivery token every webhook the tests register carries (32+ characters, as the spec asks). */
export const WEBHOOK_TOKEN = 'whk_core_test_0123456789abcdef0123456789abcdef';

/** T0 + seconds, as the core writes date-times (ISO 8601, -06:00). */
export const at = (seconds: number): string => isoMexicoCity(Date.parse(T0) + seconds * 1000);

// ---- a second client ----

export const OTHER_CLIENT = '11111111-1111-4111-8111-222222222222';
export const OTHER_KEY = 'pk_staging_sandbox_other_000000001';
export const OTHER_SECRET = 'cs_staging_sandbox_other_00000001';

type SeedCoreInput = NonNullable<SeedInput['core']>;

/** Seeds a second client (staging credential OTHER_SECRET, key OTHER_KEY) through the control API, with `extra` accounts and instruments. */
export async function addOtherClient(
  sandbox: Sandbox,
  extra: Pick<SeedCoreInput, 'accounts' | 'instruments'> = {},
): Promise<void> {
  const answer = await controlClient(sandbox).addSeed({
    body: {
      core: {
        clients: [
          {
            clientId: OTHER_CLIENT,
            name: 'Otra Empresa SA',
            apiKeys: { staging: OTHER_KEY, production: 'pk_production_sandbox_other_00001' },
            credentials: [
              { id: '22222222-2222-4222-8222-000000000101', environment: 'staging', clientSecret: OTHER_SECRET },
            ],
          },
        ],
        ...extra,
      },
    },
  });
  expect(answer.status).toBe(200);
}

// ---- HTTP ----

/** A bearer token for the client, created through the real route (asserted 200). */
export async function tokenFor(
  sandbox: Sandbox,
  clientId = CLIENT,
  apiKey = STAGING_KEY,
  secret = STAGING_CREDENTIAL.clientSecret,
): Promise<string> {
  const response = await call(`${sandbox.urls.core}/v1/clients/${clientId}/auth/credential-tokens`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey },
    body: { client_id: clientId, client_secret: secret },
  });
  expect(response.status).toBe(200);
  return response.body.token as string;
}

/** Asserts the core error body with its status (also in metadata.http_code) and reason, and returns its message. */
export function expectCoreError(response: { status: number; body: unknown }, status: number, reason: string): string {
  expect(response.status).toBe(status);
  const parsed = zCoreError.safeParse(response.body);
  expect(parsed.success).toBe(true);
  expect(parsed.data!.details[0]!.reason).toBe(reason);
  expect(parsed.data!.details[0]!.metadata.http_code).toBe(String(status));
  // gRPC-style: `message` is the generic "API Error"; the reason in words is error_detail.
  expect(parsed.data!.message).toBe('API Error');
  return parsed.data!.details[0]!.metadata.error_detail ?? '';
}

/**
 * The deliveries a receiver got at `path`, each parsed with its generated `schema` (no issues).
 * Every request the receiver got must carry WEBHOOK_TOKEN as its bearer.
 */
export function deliveriesAt<S extends z.ZodType>(receiver: Receiver, path: string, schema: S): z.output<S>[] {
  for (const request of receiver.requests) expect(request.headers.authorization).toBe(`Bearer ${WEBHOOK_TOKEN}`);
  return receiver.requests
    .filter((request) => request.url === path)
    .map((request) => {
      const parsed = schema.safeParse(request.json);
      expect(parsed.error?.issues ?? []).toEqual([]);
      return parsed.data as z.output<S>;
    });
}

// ---- bootCore ----

export interface WebhookOptions {
  authType?: WebhookAuthType;
  /** Another client (with its own bearer token). */
  clientId?: string;
  bearer?: string;
}

export interface CoreHarness {
  readonly sandbox: Sandbox;
  readonly control: ReturnType<typeof controlClient>;
  /** A staging bearer token of the seed's client, created through the real route. */
  readonly token: string;
  /** The core state (sandbox.products.core.state). */
  readonly state: Sandbox['products']['core']['state'];
  /** `{ authorization: 'Bearer <token>' }`, for `token` unless another is given. */
  bearer(token?: string): Record<string, string>;
  /** A receiver that close() closes. */
  receiver(): Promise<Receiver>;
  /**
   * Registers a webhook of `type` with WEBHOOK_TOKEN (asserted 201) and returns its id. A receiver
   * gets it at `/<type>`; a string is the whole URL.
   */
  registerWebhook(type: WebhookType, to: Receiver | string, options?: WebhookOptions): Promise<string>;
  /** Registers one webhook per type at `/<type>` of the receiver. */
  subscribe(to: Receiver, types: readonly WebhookType[], options?: WebhookOptions): Promise<void>;
  advance(seconds: number): ReturnType<ReturnType<typeof controlClient>['advanceClock']>;
  /** Closes the sandbox and every receiver this harness started. */
  close(): Promise<void>;
}

/** A test sandbox (helpers.ts's startTestSandbox) with a staging bearer token of the seed's client. */
export async function bootCore(options: SandboxOptions = {}): Promise<CoreHarness> {
  const sandbox = await startTestSandbox(options);
  const control = controlClient(sandbox);
  let token: string;
  try {
    token = await tokenFor(sandbox);
  } catch (error) {
    await sandbox.close();
    throw error;
  }
  const receivers: Receiver[] = [];
  const bearer = (value = token) => ({ authorization: `Bearer ${value}` });
  const registerWebhook = async (
    type: WebhookType,
    to: Receiver | string,
    webhook: WebhookOptions = {},
  ): Promise<string> => {
    const clientId = webhook.clientId ?? CLIENT;
    const response = await call(`${sandbox.urls.core}/v1/clients/${clientId}/webhooks`, {
      method: 'POST',
      headers: bearer(webhook.bearer),
      body: {
        client_id: clientId,
        url: typeof to === 'string' ? to : `${to.url}/${type}`,
        token: WEBHOOK_TOKEN,
        webhook_type: type,
        auth_type: webhook.authType ?? 'AUTH',
      },
    });
    expect(response.status).toBe(201);
    return response.body.id as string;
  };
  return {
    sandbox,
    control,
    token,
    get state() {
      return sandbox.products.core.state;
    },
    bearer,
    receiver: async () => {
      const receiver = await startReceiver();
      receivers.push(receiver);
      return receiver;
    },
    registerWebhook,
    subscribe: async (to, types, webhook) => {
      for (const type of types) await registerWebhook(type, to, webhook);
    },
    advance: (seconds) => control.advanceClock({ body: { seconds } }),
    close: async () => {
      await sandbox.close();
      await Promise.all(receivers.splice(0).map((r) => r.close()));
    },
  };
}

/**
 * money_out's documented nested body from flat test fields: amount, currency (MXN unless given),
 * description and external_reference move into transaction_request; the rest stays on top.
 */
export function transferBody(fields: Record<string, unknown>): Record<string, unknown> {
  const { amount, currency = 'MXN', description, external_reference, ...parties } = fields;
  return { ...parties, transaction_request: { amount, currency, description, external_reference } };
}
