// The gateway's Fastify instance and its answers to what no route handles: limits and timeouts,
// the per-request timing and route, the answer-time metric, 404 before any body is read, and the
// short JSON refusal (counted and logged) that every refused request gets.
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, DIRECT_DEBIT_WEBHOOK_PATH, type GatewayProblem } from '@paykit/contracts';
import type { RequestValidationError } from '@ts-rest/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import type { GatewayMetrics } from './metrics.ts';
import { path as problemPath, problem, validationMessage, type ProblemCode } from './problems.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** performance.now() at arrival: the commit deadline counts from here. */
    startedAt: number;
    /** Which credential authenticated the delivery ("bearer token 1 of 2", "no auth", "cash secret 1 of 1"). */
    authenticatedBy: string | undefined;
    /** The route it matched, read once at arrival (request.routeOptions builds a new object at every read). */
    routeUrl: string | undefined;
  }
}

/** The route a request matched, for labels and logs; undefined when it matched none. */
export const routeOf = (request: FastifyRequest): string | undefined => request.routeUrl ?? request.routeOptions.url;

/** Counts and logs a refused request; returns its answer (status and short JSON error). */
export type RefusalAnswer = <S extends number>(
  request: FastifyRequest,
  status: S,
  code: ProblemCode,
  message: string,
) => { status: S; body: GatewayProblem };
/** The same, sent from a hook or handler outside ts-rest. */
export type RefusalReply = (
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: ProblemCode,
  message: string,
) => FastifyReply;

export interface HttpApp {
  app: FastifyInstance;
  refusal: RefusalAnswer;
  refuse: RefusalReply;
  /** A request that breaks its route's contract (the admin API's query or path): 400 in the gateway's own shape. */
  invalidRequest(error: RequestValidationError, request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

export function createHttpApp(config: GatewayConfig, metrics: GatewayMetrics, logger: Logger): HttpApp {
  const app = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Slow clients (slowloris): a request whose headers, or whole body, take longer than these is
    // answered 408 and closed. Node checks them every connectionsCheckingInterval (30 s unless set).
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.floor(config.headersTimeoutMs / 2)),
    },
  });
  app.decorateRequest('startedAt', 0);
  app.decorateRequest('authenticatedBy', undefined);
  app.decorateRequest('routeUrl', undefined);
  // The hooks on every delivery's path take a callback rather than being async: no promise and no
  // extra turn of the microtask queue per hook and request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.answerSeconds.observe(
      { route: routeOf(request) ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
  const refusal: RefusalAnswer = (request, status, code, message) => {
    const route = routeOf(request);
    metrics.refused.inc({ route: route ?? 'unmatched', status: String(status) });
    logger.info({ route, status, error: code }, 'request refused');
    return { status, body: problem(code, message) };
  };
  const refuse: RefusalReply = (request, reply, status, code, message) => {
    const answer = refusal(request, status, code, message);
    return reply.code(answer.status).send(answer.body);
  };
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413)
      return refuse(
        request,
        reply,
        413,
        'body_too_large',
        `The body is over ${config.bodyLimitBytes} bytes (GATEWAY_BODY_LIMIT_BYTES).`,
      );
    if (status === 415)
      return refuse(request, reply, 415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    if (status === 400 && error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
      return refuse(request, reply, 400, 'invalid_json', 'The body is empty; a delivery is a JSON object.');
    if (status >= 400 && status < 500)
      return refuse(request, reply, status, 'bad_request', error.message.slice(0, 200));
    // A fault of ours: nothing was stored, so ask for the delivery again rather than answer 500.
    logger.error({ err: { message: error.message, stack: error.stack }, route: routeOf(request) }, 'unexpected error');
    return refuse(
      request,
      reply,
      503,
      'internal_error',
      'The gateway could not process this delivery and stored nothing; it will be accepted when redelivered.',
    );
  });
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    refuse(
      request,
      reply,
      404,
      'not_found',
      `No route ${request.method} ${problemPath(request.url)}. Deliveries go to ${Object.values(CORE_EVENT_PATHS).join(', ')}, ${CASH_WEBHOOK_PATH} or ${DIRECT_DEBIT_WEBHOOK_PATH}.`,
    );
  app.setNotFoundHandler(notFound);
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    request.routeUrl = request.routeOptions.url;
    // An unknown route is 404 whatever its body: without this its body would be parsed first (400, 413).
    if (request.is404) notFound(request, reply);
    else done();
  });
  const invalidRequest = (error: RequestValidationError, request: FastifyRequest, reply: FastifyReply) =>
    refuse(request, reply, 400, 'bad_request', validationMessage(error));
  return { app, refusal, refuse, invalidRequest };
}
