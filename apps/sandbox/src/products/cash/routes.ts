// The cash service's HTTP routes, under /cash.
//
// Sandbox choices where the reference is silent (the README copies this block):
// - sandbox choice: create webhook answers 201 (the reference does not show the success code).
// - sandbox choice: get-active is `GET /api/v1/cash/webhooks/active` (path and method not shown);
//   200 with { id, endpoint_url, created_at } (everything but secret_token), 404 { error } when
//   no webhook of the client is active.
// - sandbox choice: update is `PATCH /api/v1/cash/webhooks/:id` with { endpoint_url } (path and
//   method not shown); the webhook is deactivated at once and a new activation test is sent to
//   the URL; 200 with { id, endpoint_url, created_at }; 404 for an id that is not the client's.
//   The same URL is re-tested too (how a client retries a failed activation); the
//   secret_token does not change.
// - sandbox choice: the activation test is sent once (no redelivery); any answer other than
//   200-299, a timeout or a network error leaves the webhook inactive.
// - sandbox choice: error bodies are { error: "<what is wrong and what to do>" } (not shown).
// - sandbox choice: X-Timestamp must be within ±settings.cash.clockSkewSeconds (default 300) of
//   the sandbox clock (the accepted skew is not shown), else 401.
// - sandbox choice: every request is authenticated first (401), also for unknown paths and for
//   bodies the sandbox could not read (too large); only then a malformed JSON body, a non-JSON
//   content type or an invalid endpoint_url is 400 { error }, and an unknown path 404 { error }.
// - sandbox choice: endpoint_url must be an absolute http(s) URL (the spec's pattern plus a URL
//   parse); loopback hosts are refused with 400 when settings.allowLocalWebhookUrls is off.
// - sandbox choice: events go to the webhook active when the operation changes; with none
//   active no event is sent or kept. Event deliveries are redelivered on the sandbox clock
//   (settings.delivery.redeliverySeconds) until a 2xx (a 422 stops them as well).
// - sandbox choice (control API): operations start pending; pending → paid, pending → expired,
//   paid → reversed; any other change is 409 (other transitions: not shown).
// - sandbox choice: the delivery log and control API name a cash client by its masked api_key
//   (`cash:abcd…wxyz`), never the key itself.
import { zCashWebhookCreateRequest } from '@paykit/cash-client/zod';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticate, describeHeaderProblem, keepRawBodies, rawBodyOf, type SigningContext } from './auth.ts';
import { CashHttpError, installCashErrorHandler, sendCashError } from './errors.ts';
import type { CashService } from './index.ts';
import type { Ok } from './spec.ts';
import { createdView, createWebhook, publicView, updateWebhook } from './webhooks.ts';

const WEBHOOKS = '/api/v1/cash/webhooks';

/** The api_key each authenticated request was signed with. */
const signedBy = new WeakMap<FastifyRequest, string>();

function apiKeyOf(request: FastifyRequest): string {
  const apiKey = signedBy.get(request);
  if (apiKey === undefined) throw new CashHttpError(401, 'The request was not authenticated.');
  return apiKey;
}

export function registerCashRoutes(app: FastifyInstance, cash: CashService): void {
  const signing: SigningContext = {
    secretOf: (apiKey) => cash.state.keys.get(apiKey),
    nowMs: () => cash.runtime.clock.nowMs(),
    clockSkewSeconds: () => cash.runtime.settings.cash.clockSkewSeconds,
  };
  keepRawBodies(app);
  installCashErrorHandler(
    app,
    (headers) => describeHeaderProblem(signing, headers),
    cash.runtime.settings.bodyLimitBytes,
  );

  // Authentication, then JSON parsing of the verified bytes: for every route and, as the scope's
  // hooks also run for its not-found handler, for unknown paths too.
  app.addHook('preValidation', async (request) => {
    signedBy.set(request, authenticate(signing, request));
    request.body = parseJson(request);
  });
  app.setNotFoundHandler((request, reply) =>
    sendCashError(
      reply,
      new CashHttpError(
        404,
        `No cash operation at ${request.method} ${request.url}. The cash routes are POST ${WEBHOOKS}, GET ${WEBHOOKS}/active and PATCH ${WEBHOOKS}/:id.`,
      ),
    ),
  );

  app.post(WEBHOOKS, async (request, reply) => {
    const endpointUrl = endpointUrlOf(request.body, cash.runtime.settings.allowLocalWebhookUrls);
    const webhook = createWebhook(cash.runtime, cash.state, apiKeyOf(request), endpointUrl);
    return reply.code(201).send(createdView(webhook) satisfies Ok<'createCashWebhook'>);
  });

  app.get(`${WEBHOOKS}/active`, async (request, reply) => {
    const webhook = cash.state.activeWebhook(apiKeyOf(request));
    if (!webhook) {
      throw new CashHttpError(
        404,
        'No cash webhook is active for this client. Create one (POST /api/v1/cash/webhooks) whose endpoint answers the activation test with HTTP 2xx.',
      );
    }
    return reply.code(200).send(publicView(webhook));
  });

  app.patch<{ Params: { id: string } }>(`${WEBHOOKS}/:id`, async (request, reply) => {
    const apiKey = apiKeyOf(request);
    const id = /^\d{1,15}$/.test(request.params.id) ? Number(request.params.id) : undefined;
    const webhook = id === undefined ? undefined : cash.state.webhooks.get(id);
    if (!webhook || webhook.apiKey !== apiKey) {
      throw new CashHttpError(
        404,
        `No cash webhook ${request.params.id} of this client. Use the id returned when the webhook was created.`,
      );
    }
    const endpointUrl = endpointUrlOf(request.body, cash.runtime.settings.allowLocalWebhookUrls);
    return reply.code(200).send(publicView(updateWebhook(cash.runtime, cash.state, webhook, endpointUrl)));
  });
}

/** The verified raw body as JSON (undefined when empty); 400 when it is not JSON. */
function parseJson(request: FastifyRequest): unknown {
  const raw = rawBodyOf(request);
  if (raw.length === 0) return undefined;
  const contentType = request.headers['content-type'] ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    throw new CashHttpError(400, `The body is sent as "${contentType}": send it as application/json.`);
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new CashHttpError(400, 'The request body is not valid JSON.');
  }
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

function endpointUrlOf(body: unknown, allowLocal: boolean): string {
  const parsed = zCashWebhookCreateRequest.safeParse(body);
  const endpointUrl = parsed.success ? parsed.data.endpoint_url : undefined;
  const url = endpointUrl === undefined ? undefined : URL.parse(endpointUrl);
  if (!parsed.success || endpointUrl === undefined || !url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new CashHttpError(
      400,
      'Send a JSON object with endpoint_url, an absolute http or https URL (e.g. {"endpoint_url":"https://hooks.example.com/webhooks/cash"}).',
    );
  }
  if (!allowLocal && LOOPBACK.test(url.hostname)) {
    throw new CashHttpError(
      400,
      `endpoint_url ${endpointUrl} is on this machine: the platform delivers to addresses it can reach. Use a public host.`,
    );
  }
  return endpointUrl;
}
