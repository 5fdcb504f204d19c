// The gateway's HTTP server: the webhook routes (gatewayWebhooks) in a context of their own that
// keeps raw bodies, the probes, metrics and admin API (gatewayOps), and the error answers. Each
// delivery is authenticated before its body is read, evaluated (evaluate.ts), committed
// (intake.ts) and only then answered.
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS, DIRECT_DEBIT_WEBHOOK_PATH, CORE_EVENT_TYPES, gatewayWebhooks, type CashAnswer, type CoreEventType, type GatewayProblem, type MoneyInRejected, type Received } from '@paykit/contracts';
import { StoreInputError, StoreUnavailableError, createAccountStore, createEventStore, migrate, openDatabase, withLongStatements, type Account, type AccountStore, type CommitInfo, type Database, type EventStore } from '@paykit/store';
import { initServer, type RequestValidationError } from '@ts-rest/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import { createAccountCache } from './account-cache.ts';
import { cashHeadersPresent, coreAuthenticator, credentialHeaders, verifyCash } from './auth.ts';
import type { GatewayConfig } from './config.ts';
import { directDebitAuthenticator, evaluateDirectDebit } from './direct-debit.ts';
import { evaluateCash, evaluateCore, type Evaluation, type EvaluationDeps, type Refusal } from './evaluate.ts';
import { keptHeaders, storeEvaluation, type IntakeResult } from './intake.ts';
import { createLogger } from './logging.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { defaultRules, type MoneyInRule } from './policy.ts';
import { registerOps } from './ops.ts';
import { path as problemPath, problem, validationMessage, type ProblemCode } from './problems.ts';

export interface GatewayOptions {
  config: GatewayConfig;
  /** An open database (tests); otherwise opened from config (DATABASE_URL, or PGlite under PAYKIT_DATA_DIR). Migrated either way. */
  database?: Database;
  /** Where logs go (tests); otherwise GATEWAY_LOG_FILE or stdout. */
  logDestination?: DestinationStream;
  /** MONEY_IN rules; default defaultRules(config.policy). */
  rules?: readonly MoneyInRule[];
  /** The clock for the cash timestamp tolerance (tests). */
  now?: () => Date;
  /** Node process metrics on /metrics (default true). */
  processMetrics?: boolean;
}

export interface Gateway {
  url: string;
  port: number;
  app: FastifyInstance;
  database: Database;
  events: EventStore;
  accounts: AccountStore;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Stops taking deliveries, waits for those in flight and their commits, closes the store. */
  close(): Promise<void>;
}

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
const routeOf = (request: FastifyRequest): string | undefined => request.routeUrl ?? request.routeOptions.url;


export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const logger = createLogger(config, options.logDestination);
  const ownsDatabase = options.database === undefined;
  const databaseOptions = {
    databaseUrl: config.databaseUrl,
    dataDir: `${config.dataDir}/pglite`,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  };
  const database = options.database ?? (await openDatabase(databaseOptions));
  try {
    // Not under the deadline of deliveries' statements: a migration may rewrite a large table.
    const migrated = await withLongStatements(database, ownsDatabase ? databaseOptions : {}, (db) => migrate(db));
    if (migrated.applied.length > 0) logger.info({ applied: migrated.applied }, 'store migrated');
  } catch (error) {
    if (ownsDatabase) await database.close();
    throw error;
  }
  const metrics = createMetrics({ defaultMetrics: options.processMetrics ?? true, connections: () => database.connections?.() });
  const events = createEventStore(database, {
    onCommit: ({ events: size, ms, ok }: CommitInfo) => {
      metrics.commitSeconds.observe({ ok: String(ok) }, ms / 1000);
      if (ok) metrics.batchSize.observe(size);
    },
  });
  const accounts = createAccountStore(database);
  const rules = options.rules ?? defaultRules(config.policy);
  const accountCache = createAccountCache(accounts, { hit: () => metrics.accountReads.inc({ result: 'hit' }), miss: () => metrics.accountReads.inc({ result: 'miss' }) });
  const deps: EvaluationDeps = { readAccount: (clabe, deadline) => accountCache.read(clabe, deadline), rules };
  const onAccountChanged = (clabe: string, account: Account | undefined): void => {
    metrics.accountReads.inc({ result: 'changed' });
    accountCache.remember(clabe, account);
  };
  // A replay commits nothing, so nothing would catch an outdated copy: it reads the store itself.
  const replayDeps: EvaluationDeps = { readAccount: (clabe, deadline) => accounts.lookup(clabe, { deadline }), rules };
  const now = options.now ?? (() => new Date());
  const authenticators = new Map(CORE_EVENT_TYPES.map((type) => [CORE_EVENT_PATHS[type] as string, coreAuthenticator(type, config.core[type])]));
  authenticators.set(DIRECT_DEBIT_WEBHOOK_PATH, directDebitAuthenticator(config.directDebit));

  const app = Fastify({
    logger: false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Slow clients (slowloris): a request whose headers, or whole body, take longer than these is
    // answered 408 and closed. Node checks them every connectionsCheckingInterval (30 s unless set).
    requestTimeout: config.requestTimeoutMs,
    http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1_000, Math.floor(config.headersTimeoutMs / 2)) },
  });
  app.decorateRequest('startedAt', 0);
  app.decorateRequest('authenticatedBy', undefined);
  app.decorateRequest('routeUrl', undefined);
  // The hooks on every delivery's path take a callback rather than being async: no promise and no
  // extra turn of the microtask queue per hook and request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.answerSeconds.observe({ route: routeOf(request) ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  /** Counts and logs a refused request; returns its answer (status and short JSON error). */
  const refusal = <S extends number>(request: FastifyRequest, status: S, code: ProblemCode, message: string): { status: S; body: GatewayProblem } => {
    const route = routeOf(request);
    metrics.refused.inc({ route: route ?? 'unmatched', status: String(status) });
    logger.info({ route, status, error: code }, 'request refused');
    return { status, body: problem(code, message) };
  };
  /** The same, sent from a hook or handler outside ts-rest. */
  const refuse = (request: FastifyRequest, reply: FastifyReply, status: number, code: ProblemCode, message: string): FastifyReply => {
    const answer = refusal(request, status, code, message);
    return reply.code(answer.status).send(answer.body);
  };
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status === 413) return refuse(request, reply, 413, 'body_too_large', `The body is over ${config.bodyLimitBytes} bytes (GATEWAY_BODY_LIMIT_BYTES).`);
    if (status === 415) return refuse(request, reply, 415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    if (status === 400 && error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return refuse(request, reply, 400, 'invalid_json', 'The body is empty; a delivery is a JSON object.');
    if (status >= 400 && status < 500) return refuse(request, reply, status, 'bad_request', error.message.slice(0, 200));
    // A fault of ours: nothing was stored, so ask for the delivery again rather than answer 500.
    logger.error({ err: { message: error.message, stack: error.stack }, route: routeOf(request) }, 'unexpected error');
    return refuse(request, reply, 503, 'internal_error', 'The gateway could not process this delivery and stored nothing; it will be accepted when redelivered.');
  });
  const notFound = (request: FastifyRequest, reply: FastifyReply) =>
    refuse(request, reply, 404, 'not_found', `No route ${request.method} ${problemPath(request.url)}. Deliveries go to ${Object.values(CORE_EVENT_PATHS).join(', ')}, ${CASH_WEBHOOK_PATH} or ${DIRECT_DEBIT_WEBHOOK_PATH}.`);
  app.setNotFoundHandler(notFound);
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    request.routeUrl = request.routeOptions.url;
    // An unknown route is 404 whatever its body: without this its body would be parsed first (400, 413).
    if (request.is404) notFound(request, reply);
    else done();
  });
  /** A request that breaks its route's contract (the admin API's query or path): 400 in the gateway's own shape. */
  const invalidRequest = (error: RequestValidationError, request: FastifyRequest, reply: FastifyReply) => refuse(request, reply, 400, 'bad_request', validationMessage(error));

  const unavailable = (request: FastifyRequest, error: unknown) => {
    logger.warn({ route: routeOf(request), err: error instanceof Error ? error.message : String(error) }, 'store unavailable: answered 503');
    return refusal(request, 503, 'store_unavailable', 'The event store cannot commit right now; nothing was acknowledged. Redeliver (the platform does so on its own).');
  };

  /** Commits an evaluated delivery: its stored result, or the 503 answer of an outage. */
  const commit = async (request: FastifyRequest, raw: Buffer, evaluation: Evaluation): Promise<IntakeResult | { status: 400 | 503; body: GatewayProblem }> => {
    try {
      const result = await storeEvaluation(events, metrics, evaluation, {
        raw,
        headers: keptHeaders(request.headers, request.authenticatedBy),
        receivedAt: new Date(),
        deadline: request.startedAt + config.commitTimeoutMs,
        onAccountChanged,
      });
      if (logger.isLevelEnabled('info')) {
        logger.info({ route: routeOf(request), type: evaluation.eventType, seq: result.seq, duplicate: result.duplicate, status: result.answerStatus, drift: evaluation.drift.length }, 'delivery stored');
      }
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) return unavailable(request, error);
      // A body no PostgreSQL column can hold (nested past 1,000 levels, say): no platform event is
      // like that, and a redelivery would fail the same way, so it is refused, not 503.
      if (error instanceof StoreInputError) return refusal(request, 400, 'unstorable', `The event cannot be stored: ${error.message.slice(0, 200)}.`);
      throw error;
    }
  };

  type ReceivedAnswer = { status: 200 | 201 | 202; body: Received };
  type RejectedAnswer = { status: 422; body: MoneyInRejected };
  type ProblemAnswer = { status: 400 | 401 | 413 | 415 | 422 | 503; body: GatewayProblem };
  const isRejection = (answer: ReceivedAnswer | RejectedAnswer | ProblemAnswer): answer is RejectedAnswer => 'refundReason' in answer.body;

  const handleCore = async (type: CoreEventType, request: FastifyRequest, raw: Buffer): Promise<ReceivedAnswer | RejectedAnswer | ProblemAnswer> => {
    let evaluation: Evaluation | Refusal;
    try {
      // The account lookup counts against the same budget as the commit.
      evaluation = await evaluateCore(type, raw, deps, request.startedAt + config.commitTimeoutMs);
    } catch (error) {
      // The account lookup could not reach the store: no decision without the facts.
      if (error instanceof StoreUnavailableError) return unavailable(request, error);
      throw error;
    }
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    if (result.answerStatus === 422 && result.refundReason !== null) {
      return { status: 422, body: { refundReason: result.refundReason, message: 'Credit refused by policy; the platform refunds it to the payer.' } };
    }
    const status = result.answerStatus === 201 || result.answerStatus === 202 ? result.answerStatus : 200;
    return { status, body: { received: true, duplicate: result.duplicate, seq: result.seq } };
  };
  /** Routes other than MONEY_IN never refuse with a refundReason. */
  const coreRoute = (type: Exclude<CoreEventType, 'MONEY_IN'>) => async ({ body, request }: { body: unknown; request: FastifyRequest }) => {
    const answer = await handleCore(type, request, body as Buffer);
    if (isRejection(answer)) throw new Error(`a ${type} delivery cannot be refused with a refundReason`);
    return answer;
  };

  const handleCash = async (request: FastifyRequest, raw: Buffer): Promise<{ status: 200; body: CashAnswer } | ProblemAnswer> => {
    const verified = verifyCash(raw, credentialHeaders(request.raw.rawHeaders), config.cash, now());
    if (!verified.ok) return refusal(request, 401, 'unauthorized', verified.message);
    request.authenticatedBy = verified.by;
    const evaluation = evaluateCash(raw);
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    if (evaluation.eventType === 'webhook.activation') return { status: 200, body: { status: 'active', message: 'Signature verified; the endpoint accepts cash events.' } };
    return { status: 200, body: { status: 'received', message: result.duplicate ? 'Already stored.' : 'Stored.' } };
  };

  /** A direct debit delivery, authenticated by its headers before the body was read. */
  const handleDirectDebit = async (request: FastifyRequest, raw: Buffer): Promise<ReceivedAnswer | ProblemAnswer> => {
    const evaluation = evaluateDirectDebit(raw);
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    return { status: 200, body: { received: true, duplicate: result.duplicate, seq: result.seq } };
  };

  /** Why a delivery is not authenticated, judged on its headers alone; undefined when it is (request.authenticatedBy says how). */
  const authenticationProblem = (request: FastifyRequest): string | undefined => {
    const route = routeOf(request);
    // Cash: the signature covers the body, checked once it is read; both headers must be there now.
    if (route === CASH_WEBHOOK_PATH) return cashHeadersPresent(request.headers, config.cash);
    const authenticate = route === undefined ? undefined : authenticators.get(route);
    if (authenticate === undefined) return undefined;
    const auth = authenticate(credentialHeaders(request.raw.rawHeaders));
    if (!auth.ok) return auth.message;
    request.authenticatedBy = auth.by;
    return undefined;
  };

  const s = initServer();
  await app.register(async (webhooks) => {
    // Raw bytes: the cash signature covers them exactly, and evaluate.ts reads the JSON itself.
    webhooks.removeAllContentTypeParsers();
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    // Authentication before the body is read: a request without valid credentials costs nothing more.
    // A hook that answers does not call done(): the request goes no further.
    webhooks.addHook('onRequest', (request, reply, done) => {
      const unauthenticated = authenticationProblem(request);
      if (unauthenticated === undefined) done();
      else refuse(request, reply, 401, 'unauthorized', unauthenticated);
    });
    // No body and no content type: nothing was parsed, and a delivery is a JSON body.
    webhooks.addHook('preValidation', (request, reply, done) => {
      if (Buffer.isBuffer(request.body)) done();
      else refuse(request, reply, 415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    });
    s.registerRouter(
      gatewayWebhooks,
      s.router(gatewayWebhooks, {
        coreMoneyIn: ({ body, request }) => handleCore('MONEY_IN', request, body as Buffer),
        coreStatusUpdate: coreRoute('STATUS_UPDATE'),
        coreCep: coreRoute('CEP'),
        coreRefund: coreRoute('REFUND'),
        coreReport: coreRoute('REPORT'),
        cash: ({ body, request }) => handleCash(request, body as Buffer),
        directDebit: async ({ body, request }) => {
          const answer = await handleDirectDebit(request, body as Buffer);
          // The route's contract answers 200 when stored; every other answer is a problem.
          return answer.status === 200 ? { status: 200, body: answer.body } : answer;
        },
      }),
      webhooks,
      { responseValidation: false, requestValidationErrorHandler: invalidRequest },
    );
  });
  await app.register(async (ops) => registerOps(ops, { config, database, events, metrics, deps: replayDeps, refuse, refusal, invalidRequest }));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await events.close();
    if (ownsDatabase) await database.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, store: database.kind }, 'webhook gateway listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    app,
    database,
    events,
    accounts,
    metrics,
    logger,
    close: () =>
      (closing ??= (async () => {
        // A keep-alive connection busy when the close began turns idle once answered, and would
        // hold the close for its whole keep-alive (72 s): each is closed as soon as it is idle.
        const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
        try {
          await app.close();
        } finally {
          clearInterval(sweep);
        }
        await events.close();
        if (ownsDatabase) await database.close();
        logger.flush?.();
      })()),
  };
}
