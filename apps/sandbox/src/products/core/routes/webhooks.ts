// Core webhook configurations: one per client and event type, created ACTIVE, moved between
// ACTIVE and INACTIVE by PATCH, soft-deleted by DELETE. Events of a type go to the client's
// ACTIVE, non-deleted configuration of that type (state.activeWebhook).
import {
  zCreateWebhookBody,
  zUpdateWebhookBody,
  zWebhookId,
  zWebhookStatus,
  zWebhookType,
} from '@paykit/core-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireBearer, requireOwnClient } from '../auth/caller.ts';
import { parseBody } from './parse.ts';
import { CoreHttpError } from '../errors.ts';
import type { CoreService } from '../index.ts';
import type { Ok, Schema } from '../spec.ts';
import type { WebhookConfig } from '../state.ts';
import { mexicoCityWithOffset } from '../time.ts';
import { webhookUrlProblem } from '../webhooks/url.ts';

interface ClientParams {
  clientId: string;
}
interface WebhookParams extends ClientParams {
  id: string;
}

/** The OAuth delivery fields PATCH accepts (their protocol is not shown; the sandbox stores them). */
const OAUTH_FIELDS = ['auth_client_id', 'auth_client_secret', 'auth_url', 'auth_scope', 'auth_audience'] as const;
const UPDATE_FIELDS = ['url', 'token', 'webhook_status', ...OAUTH_FIELDS] as const;

type WebhookConfiguration = Schema<'WebhookConfiguration'>;

/**
 * sandbox choice: the list body is not shown (the spec leaves it open); a bare JSON array of the
 * configurations, each as creation answers it.
 */
type WebhookList = WebhookConfiguration[];

/**
 * The audit fields the documentation shows on a configuration, the string "None" when unset
 * (Python's str(None), as the published answers write them). sandbox choice: configurations are
 * never blocked here, and who deleted one is not recorded, so blockedAt, blockedBy and deletedBy
 * stay "None".
 */
interface AuditNone {
  blockedAt: 'None';
  deletedBy: 'None';
  blockedBy: 'None';
}

/** The configuration as the API shows it: never the token, auth_type or OAuth secrets (write fields). */
function renderWebhook(webhook: WebhookConfig): WebhookConfiguration & AuditNone {
  return {
    id: webhook.id,
    clientId: webhook.clientId,
    url: webhook.url,
    webhookType: webhook.webhookType,
    webhookStatus: webhook.webhookStatus,
    createdAt: mexicoCityWithOffset(webhook.createdAtMs),
    updatedAt: mexicoCityWithOffset(webhook.updatedAtMs),
    deletedAt: webhook.deletedAtMs === null ? 'None' : mexicoCityWithOffset(webhook.deletedAtMs),
    blockedAt: 'None',
    deletedBy: 'None',
    blockedBy: 'None',
  };
}

export function registerWebhookRoutes(app: FastifyInstance, core: CoreService): void {
  /** The bearer's own client id: another client's path is a 401 (../auth/caller.ts), never a peek. */
  const callerFor = (request: FastifyRequest<{ Params: ClientParams }>): string => {
    const caller = requireBearer(core.state, core.runtime.clock, request);
    requireOwnClient(caller, request.params.clientId);
    return caller.clientId;
  };

  /** This client's non-deleted configuration; anything else (malformed id, another client's, deleted) is 404. */
  const findWebhook = (clientId: string, id: string): WebhookConfig => {
    const webhook = zWebhookId.safeParse(id).success ? core.state.webhooks.get(id) : undefined;
    if (!webhook || webhook.clientId !== clientId || webhook.deletedAtMs !== null) {
      throw new CoreHttpError(404, 'RESOURCE_NOT_FOUND', 'Webhook configuration not found for this client.');
    }
    return webhook;
  };

  const checkUrl = (url: string): void => {
    const problem = webhookUrlProblem(url, core.runtime.settings.allowLocalWebhookUrls);
    if (problem)
      throw new CoreHttpError(400, 'DATA_ERROR', `The webhook URL does not meet the delivery requirements: ${problem}`);
  };

  app.post<{ Params: ClientParams }>('/v1/clients/:clientId/webhooks', async (request, reply) => {
    const clientId = callerFor(request);
    const body = parseBody(zCreateWebhookBody, request.body, 'Webhook creation');
    if (body.client_id !== clientId)
      throw new CoreHttpError(400, 'DATA_ERROR', 'client_id in the body must be the client id in the path.');
    checkUrl(body.url);
    for (const existing of core.state.webhooks.values()) {
      if (
        existing.clientId === clientId &&
        existing.webhookType === body.webhook_type &&
        existing.deletedAtMs === null
      ) {
        throw new CoreHttpError(
          400,
          'UNIQUE_VIOLATION',
          `A ${body.webhook_type} webhook configuration already exists for this client (${existing.id}): update it with PATCH or delete it first.`,
        );
      }
    }
    const nowMs = core.runtime.clock.nowMs();
    const webhook: WebhookConfig = {
      id: core.runtime.random.uuid(),
      clientId,
      url: body.url,
      webhookType: body.webhook_type,
      webhookStatus: 'ACTIVE',
      token: body.token,
      authType: body.auth_type,
      oauth: {},
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      deletedAtMs: null,
    };
    core.state.webhooks.set(webhook.id, webhook);
    // sandbox choice: the reference does not show the success code of creation; 201 Created.
    return reply.code(201).send(renderWebhook(webhook) satisfies Ok<'createWebhook'>);
  });

  app.get<{ Params: ClientParams; Querystring: Record<string, unknown> }>(
    '/v1/clients/:clientId/webhooks',
    async (request) => {
      const clientId = callerFor(request);
      // sandbox choice: list query parameters are not shown; the sandbox accepts the optional filters
      // webhook_type and webhook_status (a malformed value is the reference's 400 "malformed
      // parameters") and ignores any other parameter.
      const query = request.query ?? {};
      const type = query.webhook_type === undefined ? undefined : zWebhookType.safeParse(query.webhook_type);
      const status = query.webhook_status === undefined ? undefined : zWebhookStatus.safeParse(query.webhook_status);
      if (type?.success === false)
        throw new CoreHttpError(400, 'DATA_ERROR', `webhook_type must be one of ${zWebhookType.options.join(', ')}.`);
      if (status?.success === false)
        throw new CoreHttpError(
          400,
          'DATA_ERROR',
          `webhook_status must be one of ${zWebhookStatus.options.join(', ')}.`,
        );
      // sandbox choice: the list body is not shown; a bare JSON array of the configurations, deleted
      // ones excluded, in creation order.
      const list: WebhookList = [...core.state.webhooks.values()]
        .filter((w) => w.clientId === clientId && w.deletedAtMs === null)
        .filter((w) => (type ? w.webhookType === type.data : true) && (status ? w.webhookStatus === status.data : true))
        .map(renderWebhook);
      return list satisfies Ok<'listWebhooks'>;
    },
  );

  app.get<{ Params: WebhookParams }>('/v1/clients/:clientId/webhooks/:id', async (request) => {
    const clientId = callerFor(request);
    // sandbox choice: the retrieve body is not shown (the spec leaves it open); the
    // configuration, as creation returns it (WebhookConfiguration).
    return renderWebhook(findWebhook(clientId, request.params.id)) satisfies Ok<'getWebhook'>;
  });

  app.patch<{ Params: WebhookParams }>('/v1/clients/:clientId/webhooks/:id', async (request) => {
    const clientId = callerFor(request);
    const webhook = findWebhook(clientId, request.params.id);
    // "At least one field" is checked on the known fields first: the generated schema keeps
    // unknown keys (so {"color": 1} would pass it) and reports {} as a malformed body.
    const raw = request.body;
    if (
      raw !== null &&
      typeof raw === 'object' &&
      !Array.isArray(raw) &&
      !UPDATE_FIELDS.some((field) => (raw as Record<string, unknown>)[field] !== undefined)
    ) {
      throw new CoreHttpError(
        400,
        'MISSING_REQUIRED_FIELDS',
        `Webhook update: send at least one of ${UPDATE_FIELDS.join(', ')}.`,
      );
    }
    const body = parseBody(zUpdateWebhookBody, raw, 'Webhook update');
    if (body.url !== undefined) checkUrl(body.url);
    // Validated in full before anything changes: a rejected update leaves the configuration as it was.
    if (body.url !== undefined) webhook.url = body.url;
    if (body.token !== undefined) webhook.token = body.token;
    if (body.webhook_status !== undefined) webhook.webhookStatus = body.webhook_status;
    for (const field of OAUTH_FIELDS) if (body[field] !== undefined) webhook.oauth[field] = body[field];
    webhook.updatedAtMs = core.runtime.clock.nowMs();
    // sandbox choice: the update body is not shown (the spec leaves it open); the updated
    // configuration (WebhookConfiguration).
    return renderWebhook(webhook) satisfies Ok<'updateWebhook'>;
  });

  app.delete<{ Params: WebhookParams }>('/v1/clients/:clientId/webhooks/:id', async (request) => {
    const clientId = callerFor(request);
    const webhook = findWebhook(clientId, request.params.id);
    const nowMs = core.runtime.clock.nowMs();
    webhook.deletedAtMs = nowMs;
    webhook.updatedAtMs = nowMs;
    // sandbox choice: the delete body is not shown (the spec leaves it open); 200 with the
    // soft-deleted configuration (WebhookConfiguration, deletedAt set). A second DELETE is a 404:
    // the configuration is gone for the client.
    return renderWebhook(webhook) satisfies Ok<'deleteWebhook'>;
  });
}
