// Core webhook configurations. Registration generates the delivery token (random, 32 bytes) unless
// one is given and returns it once, for the caller to store: the platform never shows it again,
// and the client never logs it (the runtime redacts `token` in logged bodies).
import { randomBytes } from 'node:crypto';
import { invoke, type RequestOptions } from '@paykit/runtime';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, updateWebhook } from './generated/sdk.gen.ts';
import type {
  DeleteWebhookResponse,
  GetWebhookResponse,
  ListWebhooksResponse,
  UpdateWebhookResponse,
  WebhookAuthType,
  WebhookConfiguration,
  WebhookStatus,
  WebhookType,
  WebhookUpdateRequestWritable,
} from './generated/types.gen.ts';
import {
  zCreateWebhookResponse,
  zDeleteWebhookResponse,
  zGetWebhookResponse,
  zListWebhooksResponse,
  zUpdateWebhookResponse,
} from './generated/zod.gen.ts';
import { bearerAuth, withToken, type ClientDeps } from './auth.ts';

/** Bytes of randomness in a generated delivery token (the reference: random, at least 32 bytes). */
export const WEBHOOK_TOKEN_BYTES = 32;

/** A new delivery token: 32 random bytes, base64url (43 characters). */
export function generateWebhookToken(): string {
  return randomBytes(WEBHOOK_TOKEN_BYTES).toString('base64url');
}

export interface RegisterWebhookInput {
  webhookType: WebhookType;
  /** Public HTTPS URL that receives the deliveries. */
  url: string;
  /** AUTH (default): deliveries carry `Authorization: Bearer <token>`. */
  authType?: WebhookAuthType;
  /** The delivery token; generated when omitted. At least 32 characters. Secret. */
  token?: string;
}

export interface RegisteredWebhook {
  webhook: WebhookConfiguration;
  /** The delivery token, returned this once: store it (a secret store, not a log) to verify deliveries. */
  token: string;
}

/** Fields of a webhook update (camelCase; sent as the reference's snake_case). At least one. */
export interface WebhookPatch {
  url?: string;
  /** A new delivery token (at least 32 characters). Use `rotateToken` to have one generated. */
  token?: string;
  webhookStatus?: WebhookStatus;
  authClientId?: unknown;
  authClientSecret?: unknown;
  authUrl?: unknown;
  authScope?: unknown;
  authAudience?: unknown;
}

function patchBody(patch: WebhookPatch): WebhookUpdateRequestWritable {
  const body: WebhookUpdateRequestWritable = {
    url: patch.url,
    token: patch.token,
    webhook_status: patch.webhookStatus,
    auth_client_id: patch.authClientId,
    auth_client_secret: patch.authClientSecret,
    auth_url: patch.authUrl,
    auth_scope: patch.authScope,
    auth_audience: patch.authAudience,
  };
  // Absent fields are not sent: "at least one field" counts the present ones.
  for (const key of Object.keys(body) as (keyof WebhookUpdateRequestWritable)[])
    if (body[key] === undefined) delete body[key];
  return body;
}

export function webhookOperations(deps: ClientDeps) {
  const { options, sdk, ctx, tokens } = deps;
  const clientId = options.clientId;

  /** Changes the URL, token, status (ACTIVE/INACTIVE) or OAuth fields (at least one). */
  const update = (id: string, patch: WebhookPatch, requestOptions?: RequestOptions): Promise<UpdateWebhookResponse> => {
    const body = patchBody(patch);
    return withToken(
      deps,
      tokens,
      'updateWebhook',
      (bearer, callOptions) =>
        invoke(
          ctx,
          'updateWebhook',
          zUpdateWebhookResponse,
          (extra) => updateWebhook({ client: sdk, path: { clientId, id }, body, auth: bearerAuth(bearer), ...extra }),
          callOptions,
        ),
      requestOptions,
    );
  };

  return {
    /** Registers the receiver of one event type (one configuration per type). Returns the configuration and its token. */
    async register(input: RegisterWebhookInput, requestOptions?: RequestOptions): Promise<RegisteredWebhook> {
      const token = input.token ?? generateWebhookToken();
      const body = {
        client_id: clientId,
        url: input.url,
        token,
        webhook_type: input.webhookType,
        auth_type: input.authType ?? 'AUTH',
      };
      const webhook = await withToken(
        deps,
        tokens,
        'createWebhook',
        (bearer, callOptions) =>
          invoke(
            ctx,
            'createWebhook',
            zCreateWebhookResponse,
            (extra) => createWebhook({ client: sdk, path: { clientId }, body, auth: bearerAuth(bearer), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
      return { webhook, token };
    },

    /** The configurations (the reference does not show the list's layout: the platform's answer as it is). */
    list(requestOptions?: RequestOptions): Promise<ListWebhooksResponse> {
      return withToken(
        deps,
        tokens,
        'listWebhooks',
        (bearer, callOptions) =>
          invoke(
            ctx,
            'listWebhooks',
            zListWebhooksResponse,
            (extra) => listWebhooks({ client: sdk, path: { clientId }, auth: bearerAuth(bearer), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },

    /** One configuration (layout not shown by the reference). */
    get(id: string, requestOptions?: RequestOptions): Promise<GetWebhookResponse> {
      return withToken(
        deps,
        tokens,
        'getWebhook',
        (bearer, callOptions) =>
          invoke(
            ctx,
            'getWebhook',
            zGetWebhookResponse,
            (extra) => getWebhook({ client: sdk, path: { clientId, id }, auth: bearerAuth(bearer), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },

    update,

    /**
     * Replaces the delivery token with a generated one and returns it once. Accept both the old
     * and the new token in `verifyCoreWebhook` until deliveries carry the new one.
     */
    async rotateToken(
      id: string,
      requestOptions?: RequestOptions,
    ): Promise<{ webhook: UpdateWebhookResponse; token: string }> {
      const token = generateWebhookToken();
      const webhook = await update(id, { token }, requestOptions);
      return { webhook, token };
    },

    /** Soft delete (`deletedAt` set). */
    delete(id: string, requestOptions?: RequestOptions): Promise<DeleteWebhookResponse> {
      return withToken(
        deps,
        tokens,
        'deleteWebhook',
        (bearer, callOptions) =>
          invoke(
            ctx,
            'deleteWebhook',
            zDeleteWebhookResponse,
            (extra) => deleteWebhook({ client: sdk, path: { clientId, id }, auth: bearerAuth(bearer), ...extra }),
            callOptions,
          ),
        requestOptions,
      );
    },
  };
}

export type CoreWebhooks = ReturnType<typeof webhookOperations>;
