// Probes, metrics and the admin API (gatewayOps): list and show stored events, and replay one —
// re-run its validation and decision with today's rules, keeping the result beside the event.
// The admin API needs `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>` and is off without one;
// /metrics needs `Authorization: Bearer <METRICS_TOKEN>` when one is set. No probe names the database.
import {
  CORE_EVENT_TYPES,
  gatewayOps,
  type CoreEventType,
  type GatewayProblem,
  type ReplayView,
  type StoredEventView,
} from '@paykit/contracts';
import { WebhookVerificationError, createCoreWebhookVerifier } from '@paykit/runtime';
import {
  StoreInputError,
  StoreUnavailableError,
  type Database,
  type EventStore,
  type ReplayRecord,
  type StoredEvent,
} from '@paykit/store';
import { initServer, type RequestValidationError } from '@ts-rest/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialHeaders } from './auth.ts';
import type { GatewayConfig } from './config.ts';
import { evaluateCash, evaluateCore, type EvaluationDeps } from './evaluate.ts';
import { evaluateDirectDebit } from './direct-debit.ts';
import type { GatewayMetrics } from './metrics.ts';
import { problem, type ProblemCode } from './problems.ts';

export interface OpsDeps {
  config: GatewayConfig;
  database: Database;
  events: EventStore;
  metrics: GatewayMetrics;
  deps: EvaluationDeps;
  /** Sends an error answer from a hook. */
  refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    code: ProblemCode,
    message: string,
  ): FastifyReply;
  /** An error answer for a ts-rest handler to return. */
  refusal<S extends number>(
    request: FastifyRequest,
    status: S,
    code: ProblemCode,
    message: string,
  ): { status: S; body: GatewayProblem };
  /** Answers a request that breaks the contract (query, path) with 400. */
  invalidRequest(error: RequestValidationError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

/**
 * Whether a request is for the admin API, by the route it matched: never by the URL as sent, since
 * the router decodes it (`/%61dmin/events` reaches the admin routes while not starting with /admin/).
 */
function isAdminRequest(request: FastifyRequest): boolean {
  return (request.routeOptions.url ?? '').startsWith('/admin/');
}

const READY_TIMEOUT_MS = 1_000;

function view(event: StoredEvent): StoredEventView {
  return {
    seq: event.seq,
    source: event.source,
    eventType: event.eventType,
    dedupeKey: event.dedupeKey,
    idMsg: event.idMsg,
    transactionId: event.transactionId,
    operationId: event.operationId,
    receivedAt: event.receivedAt.toISOString(),
    payload: event.payload,
    headers: event.headers,
    drift: event.drift,
    outcome: event.outcome,
    reason: event.reason,
    answerStatus: event.answerStatus,
    refundReason: event.refundReason,
    deliveries: event.deliveries,
  };
}

function replayView(replay: ReplayRecord): Omit<ReplayView, 'sameAsStored'> {
  return { ...replay, replayedAt: replay.replayedAt.toISOString() };
}

/** Re-evaluates a stored event from its raw bytes, as a delivery would be evaluated now. */
async function replay(event: StoredEvent, deps: EvaluationDeps): Promise<Omit<ReplayRecord, 'replayedAt'>> {
  const evaluation =
    event.source === 'cash'
      ? evaluateCash(event.rawBody)
      : event.source === 'direct_debit'
        ? evaluateDirectDebit(event.rawBody)
        : (CORE_EVENT_TYPES as string[]).includes(event.eventType)
          ? await evaluateCore(event.eventType as CoreEventType, event.rawBody, deps)
          : undefined;
  if (evaluation === undefined) {
    return {
      seq: event.seq,
      drift: [],
      outcome: 'stored',
      reason: `no evaluation for a ${event.source} ${event.eventType} event; kept as stored`,
      answerStatus: event.answerStatus,
      refundReason: null,
    };
  }
  if ('refused' in evaluation) {
    return {
      seq: event.seq,
      drift: [],
      outcome: 'rejected',
      reason: `today this body would be refused ${evaluation.status} ${evaluation.error}: ${evaluation.message}`,
      answerStatus: evaluation.status,
      refundReason: null,
    };
  }
  const { decision } = evaluation;
  return {
    seq: event.seq,
    drift: evaluation.drift,
    outcome: decision.outcome,
    reason: decision.reason,
    answerStatus: decision.answerStatus,
    refundReason: decision.refundReason,
  };
}

export async function registerOps(app: FastifyInstance, ops: OpsDeps): Promise<void> {
  const { config, database, events, metrics, refuse, refusal } = ops;
  const verifyAdmin = config.adminToken ? createCoreWebhookVerifier([config.adminToken]) : undefined;
  const verifyMetrics = config.metricsToken ? createCoreWebhookVerifier([config.metricsToken]) : undefined;
  app.addHook('onRequest', async (request, reply) => {
    if (verifyMetrics && request.routeOptions.url === '/metrics') {
      try {
        verifyMetrics(credentialHeaders(request.raw.rawHeaders));
      } catch (error) {
        if (error instanceof WebhookVerificationError)
          return refuse(
            request,
            reply.header('www-authenticate', 'Bearer'),
            401,
            'unauthorized',
            'Send Authorization: Bearer <METRICS_TOKEN>.',
          );
        throw error;
      }
      return undefined;
    }
    if (!isAdminRequest(request)) return undefined;
    if (!verifyAdmin)
      return refuse(
        request,
        reply,
        403,
        'admin_disabled',
        'The admin API is off: set GATEWAY_ADMIN_TOKEN (a random token of 32+ characters) and restart the gateway.',
      );
    try {
      verifyAdmin(credentialHeaders(request.raw.rawHeaders));
    } catch (error) {
      if (error instanceof WebhookVerificationError)
        return refuse(request, reply, 401, 'unauthorized', 'Send Authorization: Bearer <GATEWAY_ADMIN_TOKEN>.');
      throw error;
    }
    return undefined;
  });
  /** The store's refusals as answers: an outage is 503; a value it cannot take (a seq past bigint, a NUL) is 400. */
  const outage = (request: FastifyRequest, error: unknown) => {
    if (error instanceof StoreUnavailableError)
      return refusal(request, 503, 'store_unavailable', 'The event store does not answer; try again shortly.');
    if (error instanceof StoreInputError)
      return refusal(request, 400, 'bad_request', `${error.message.slice(0, 200)}.`);
    throw error;
  };

  const s = initServer();
  s.registerRouter(
    gatewayOps,
    s.router(gatewayOps, {
      healthz: async () => ({ status: 200, body: { status: 'ok' } }),
      readyz: async () => {
        // Says which kind of store only: the description names its user, host and database.
        const unready = (why: string) => ({
          status: 503 as const,
          body: problem(
            'store_unavailable',
            `The ${database.kind} store ${why}; deliveries are answered 503 until it answers again.`,
          ),
        });
        try {
          await database.ping(READY_TIMEOUT_MS);
        } catch {
          return unready(`did not answer within ${READY_TIMEOUT_MS} ms`);
        }
        // A fresh connection may answer while the ones in use hang: those would hold every commit.
        const connections = database.connections?.();
        if (
          connections &&
          connections.queryTimeoutMs > 0 &&
          connections.longestBusyMs > connections.queryTimeoutMs + READY_TIMEOUT_MS
        ) {
          return unready(
            `has a connection in use for ${connections.longestBusyMs} ms, past its ${connections.queryTimeoutMs} ms deadline`,
          );
        }
        return { status: 200, body: { status: 'ready', store: database.kind } };
      },
      metrics: async ({ reply }) => {
        const text = await metrics.registry.metrics();
        void reply.header('content-type', metrics.registry.contentType);
        return { status: 200, body: text };
      },
      listEvents: async ({ query, request }) => {
        try {
          const list = await events.list({
            source: query.source,
            eventType: query.eventType,
            outcome: query.outcome,
            before: query.before,
            limit: query.limit,
          });
          return { status: 200, body: { events: list.map(view) } };
        } catch (error) {
          return outage(request, error);
        }
      },
      getEvent: async ({ params, request }) => {
        try {
          const event = await events.get(params.seq);
          if (!event)
            return {
              status: 404,
              body: problem('not_found', `No stored event ${params.seq}; list them with GET /admin/events.`),
            };
          return {
            status: 200,
            body: {
              event: view(event),
              replays: (await events.replays(params.seq)).map(replayView),
              rawBody: Buffer.from(event.rawBody).toString('base64'),
            },
          };
        } catch (error) {
          return outage(request, error);
        }
      },
      replayEvent: async ({ params, request }) => {
        try {
          const event = await events.get(params.seq);
          if (!event)
            return {
              status: 404,
              body: problem('not_found', `No stored event ${params.seq}; list them with GET /admin/events.`),
            };
          const result = await events.recordReplay(await replay(event, ops.deps));
          const sameAsStored =
            result.outcome === event.outcome &&
            result.answerStatus === event.answerStatus &&
            result.refundReason === event.refundReason;
          return { status: 200, body: { ...replayView(result), sameAsStored } };
        } catch (error) {
          return outage(request, error);
        }
      },
    }),
    app,
    { responseValidation: false, requestValidationErrorHandler: ops.invalidRequest },
  );
}
