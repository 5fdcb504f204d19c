// The control API (contract: @paykit/contracts sandboxControl), served under /_sandbox.
import { describeValidationIssues, type Seed, sandboxControl } from '@paykit/contracts';
import { initServer, type RequestValidationError } from '@ts-rest/fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxRuntime } from '../runtime.ts';
import type { Products } from '../server.ts';
import { ControlError } from './errors.ts';

export interface ControlDeps {
  runtime: SandboxRuntime;
  products: Products;
  seed(): Seed;
  addSeed(part: Partial<Seed>): Seed;
  reset(): void;
}

const s = initServer();

/**
 * A request that breaks the control contract gets 400 in the control API's own error shape
 * ({ error, hint }, as its other errors), naming each field and what it expects (never its value).
 */
function invalidRequest(error: RequestValidationError, request: FastifyRequest, reply: FastifyReply): void {
  const issues = describeValidationIssues(error);
  void reply.code(400).send({
    error: `${request.method} ${request.routeOptions.url ?? ''} does not take this request: ${issues.join('; ').slice(0, 400) || 'invalid input'}.`,
    hint: 'The control API is the sandboxControl contract in @paykit/contracts; apps/sandbox/README.md lists its routes.',
  });
}

type Answer<T> = { status: 200; body: T } | { status: 404 | 409; body: { error: string; hint?: string } };

export async function registerControl(app: FastifyInstance, deps: ControlDeps): Promise<void> {
  const { runtime, products } = deps;
  const clockState = () => ({
    now: runtime.clock.now().toISOString(),
    mode: runtime.clock.mode,
    pendingTasks: runtime.clock.pendingTasks,
  });
  // Lifecycle steps that fall due when the clock moves may deliver events: let them be sent
  // before answering, so a caller that advanced the clock sees their effects.
  const settle = async () => {
    await runtime.clock.idle();
    await runtime.deliveries.idle();
  };
  /**
   * Runs a platform-side trigger and waits for the deliveries it caused to be attempted once;
   * a ControlError becomes its 404/409 answer with a hint.
   */
  const attempt = async <T>(run: () => T | Promise<T>): Promise<Answer<T>> => {
    try {
      const body = await run();
      await settle();
      return { status: 200, body };
    } catch (error) {
      if (error instanceof ControlError)
        return { status: error.status, body: { error: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
      throw error;
    }
  };

  const router = s.router(sandboxControl, {
    getSeed: async () => ({ status: 200, body: deps.seed() }),
    addSeed: async ({ body }) => ({ status: 200, body: deps.addSeed(body) }),
    reset: async () => {
      deps.reset();
      return { status: 200, body: { ok: true as const } };
    },
    getClock: async () => ({ status: 200, body: clockState() }),
    advanceClock: async ({ body }) => {
      await runtime.clock.advance(Math.round(body.seconds * 1000));
      await settle();
      return { status: 200, body: clockState() };
    },
    setClock: async ({ body }) => {
      const target = new Date(body.at).getTime();
      if (target < runtime.clock.nowMs()) {
        return {
          status: 400,
          body: {
            error: `The clock is at ${runtime.clock.now().toISOString()}; it only moves forward.`,
            hint: 'Restart the sandbox to start over.',
          },
        };
      }
      await runtime.clock.setTo(target);
      await settle();
      return { status: 200, body: clockState() };
    },
    getFaults: async () => ({ status: 200, body: runtime.faults }),
    setFaults: async ({ body }) => {
      runtime.faults = body;
      return { status: 200, body: runtime.faults };
    },
    getCounters: async () => ({ status: 200, body: runtime.counters.snapshot() }),
    listDeliveries: async ({ query }) => ({ status: 200, body: { deliveries: runtime.deliveries.list(query) } }),

    triggerIncomingSpei: ({ body }) => attempt(() => products.core.incomingSpei(body)),
    triggerCepOutcome: ({ params, body }) => attempt(() => products.core.cepOutcome(params.transactionId, body)),
    triggerSpeiSettle: ({ params }) => attempt(() => products.core.settleSpei(params.transactionId)),
    triggerSpeiReject: ({ params, body }) => attempt(() => products.core.rejectSpei(params.transactionId, body)),
    triggerSpeiReverse: ({ params }) => attempt(() => products.core.reverseSpei(params.transactionId)),
    triggerReport: ({ body }) => attempt(() => products.core.emitReport(body)),
    // Read-only: nothing is delivered, so there is nothing to settle.
    getReportFile: async ({ params, query }) => {
      try {
        return { status: 200, body: products.core.reportFile(params.fileName, query.clientId) };
      } catch (error) {
        if (error instanceof ControlError)
          return { status: error.status, body: { error: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
        throw error;
      }
    },
    triggerChargeResult: ({ params, body }) => attempt(() => products.directDebit.settleCharge(params.chargeId, body)),
    createCashOperation: ({ body }) => attempt(() => products.cash.createOperation(body)),
    setCashOperationStatus: ({ params, body }) =>
      attempt(() => products.cash.setOperationStatus(params.operationId, body.status)),
  });
  await app.register(s.plugin(router), { requestValidationErrorHandler: invalidRequest });
}
