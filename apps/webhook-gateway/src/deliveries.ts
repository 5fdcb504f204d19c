// What a delivery goes through once its route is known: evaluated (evaluate.ts, direct-debit.ts),
// committed (intake.ts), then answered with the status its contract gives. A store outage is 503
// (nothing acknowledged, so the platform redelivers); a cash delivery's signature is verified here,
// over the raw body, before anything in it is read.
import type { CashAnswer, CoreEventType, GatewayProblem, MoneyInRejected, Received } from '@paykit/contracts';
import { StoreInputError, StoreUnavailableError, type EventStore } from '@paykit/store';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { credentialHeaders, verifyCash } from './auth.ts';
import type { GatewayConfig } from './config.ts';
import type { DecisionDeps } from './account-cache.ts';
import { evaluateDirectDebit } from './direct-debit.ts';
import { evaluateCash, evaluateCore, type Evaluation, type Refusal } from './evaluate.ts';
import { routeOf, type RefusalAnswer } from './http-app.ts';
import { keptHeaders, storeEvaluation, type IntakeResult } from './intake.ts';
import type { GatewayMetrics } from './metrics.ts';

type ReceivedAnswer = { status: 200 | 201 | 202; body: Received };
type RejectedAnswer = { status: 422; body: MoneyInRejected };
type ProblemAnswer = { status: 400 | 401 | 413 | 415 | 422 | 503; body: GatewayProblem };
const isRejection = (answer: ReceivedAnswer | RejectedAnswer | ProblemAnswer): answer is RejectedAnswer =>
  'refundReason' in answer.body;

export interface DeliveryContext {
  config: GatewayConfig;
  events: EventStore;
  metrics: GatewayMetrics;
  logger: Logger;
  decisions: DecisionDeps;
  refusal: RefusalAnswer;
  /** The clock for the cash timestamp tolerance. */
  now: () => Date;
}

export interface DeliveryHandlers {
  handleCore(
    type: CoreEventType,
    request: FastifyRequest,
    raw: Buffer,
  ): Promise<ReceivedAnswer | RejectedAnswer | ProblemAnswer>;
  /** Routes other than MONEY_IN never refuse with a refundReason. */
  coreRoute(
    type: Exclude<CoreEventType, 'MONEY_IN'>,
  ): (input: { body: unknown; request: FastifyRequest }) => Promise<ReceivedAnswer | ProblemAnswer>;
  handleCash(request: FastifyRequest, raw: Buffer): Promise<{ status: 200; body: CashAnswer } | ProblemAnswer>;
  /** A direct debit delivery, authenticated by its headers before the body was read. */
  handleDirectDebit(request: FastifyRequest, raw: Buffer): Promise<ReceivedAnswer | ProblemAnswer>;
}

export function deliveryHandlers(context: DeliveryContext): DeliveryHandlers {
  const { config, events, metrics, logger, decisions, refusal, now } = context;

  const unavailable = (request: FastifyRequest, error: unknown) => {
    logger.warn(
      { route: routeOf(request), err: error instanceof Error ? error.message : String(error) },
      'store unavailable: answered 503',
    );
    return refusal(
      request,
      503,
      'store_unavailable',
      'The event store cannot commit right now; nothing was acknowledged. Redeliver (the platform does so on its own).',
    );
  };

  /** Commits an evaluated delivery: its stored result, or the 503 answer of an outage. */
  const commit = async (
    request: FastifyRequest,
    raw: Buffer,
    evaluation: Evaluation,
  ): Promise<IntakeResult | { status: 400 | 503; body: GatewayProblem }> => {
    try {
      const result = await storeEvaluation(events, metrics, evaluation, {
        raw,
        headers: keptHeaders(request.headers, request.authenticatedBy),
        receivedAt: new Date(),
        deadline: request.startedAt + config.commitTimeoutMs,
        onAccountChanged: decisions.onAccountChanged,
      });
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            route: routeOf(request),
            type: evaluation.eventType,
            seq: result.seq,
            duplicate: result.duplicate,
            status: result.answerStatus,
            drift: evaluation.drift.length,
          },
          'delivery stored',
        );
      }
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) return unavailable(request, error);
      // A body no PostgreSQL column can hold (nested past 1,000 levels, say): no platform event is
      // like that, and a redelivery would fail the same way, so it is refused, not 503.
      if (error instanceof StoreInputError)
        return refusal(request, 400, 'unstorable', `The event cannot be stored: ${error.message.slice(0, 200)}.`);
      throw error;
    }
  };

  const handleCore = async (
    type: CoreEventType,
    request: FastifyRequest,
    raw: Buffer,
  ): Promise<ReceivedAnswer | RejectedAnswer | ProblemAnswer> => {
    let evaluation: Evaluation | Refusal;
    try {
      // The account lookup counts against the same budget as the commit.
      evaluation = await evaluateCore(type, raw, decisions.deps, request.startedAt + config.commitTimeoutMs);
    } catch (error) {
      // The account lookup could not reach the store: no decision without the facts.
      if (error instanceof StoreUnavailableError) return unavailable(request, error);
      throw error;
    }
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    if (result.answerStatus === 422 && result.refundReason !== null) {
      return {
        status: 422,
        body: {
          refundReason: result.refundReason,
          message: 'Credit refused by policy; the platform refunds it to the payer.',
        },
      };
    }
    const status = result.answerStatus === 201 || result.answerStatus === 202 ? result.answerStatus : 200;
    return { status, body: { received: true, duplicate: result.duplicate, seq: result.seq } };
  };

  const coreRoute =
    (type: Exclude<CoreEventType, 'MONEY_IN'>) =>
    async ({ body, request }: { body: unknown; request: FastifyRequest }) => {
      const answer = await handleCore(type, request, body as Buffer);
      if (isRejection(answer)) throw new Error(`a ${type} delivery cannot be refused with a refundReason`);
      return answer;
    };

  const handleCash = async (
    request: FastifyRequest,
    raw: Buffer,
  ): Promise<{ status: 200; body: CashAnswer } | ProblemAnswer> => {
    const verified = verifyCash(raw, credentialHeaders(request.raw.rawHeaders), config.cash, now());
    if (!verified.ok) return refusal(request, 401, 'unauthorized', verified.message);
    request.authenticatedBy = verified.by;
    const evaluation = evaluateCash(raw);
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    if (evaluation.eventType === 'webhook.activation')
      return {
        status: 200,
        body: { status: 'active', message: 'Signature verified; the endpoint accepts cash events.' },
      };
    return { status: 200, body: { status: 'received', message: result.duplicate ? 'Already stored.' : 'Stored.' } };
  };

  const handleDirectDebit = async (request: FastifyRequest, raw: Buffer): Promise<ReceivedAnswer | ProblemAnswer> => {
    const evaluation = evaluateDirectDebit(raw);
    if ('refused' in evaluation) return refusal(request, evaluation.status, evaluation.error, evaluation.message);
    const result = await commit(request, raw, evaluation);
    if ('body' in result) return result;
    return { status: 200, body: { received: true, duplicate: result.duplicate, seq: result.seq } };
  };

  return { handleCore, coreRoute, handleCash, handleDirectDebit };
}
