// The webhook routes (gatewayWebhooks) in a context of their own that keeps raw bodies: each
// delivery is authenticated on its headers before its body is read (cash: both signature headers
// present; its signature is checked over the body in deliveries.ts), then handed to its handler.
import {
  CASH_WEBHOOK_PATH,
  CORE_EVENT_PATHS,
  CORE_EVENT_TYPES,
  DIRECT_DEBIT_WEBHOOK_PATH,
  gatewayWebhooks,
} from '@paykit/contracts';
import { initServer } from '@ts-rest/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { cashHeadersPresent, coreAuthenticator, credentialHeaders } from './auth.ts';
import type { GatewayConfig } from './config.ts';
import type { DeliveryHandlers } from './deliveries.ts';
import { directDebitAuthenticator } from './direct-debit.ts';
import { routeOf, type HttpApp } from './http-app.ts';

/** Why a delivery is not authenticated, judged on its headers alone; undefined when it is (request.authenticatedBy says how). */
function headerAuthentication(config: GatewayConfig): (request: FastifyRequest) => string | undefined {
  const authenticators = new Map(
    CORE_EVENT_TYPES.map((type) => [CORE_EVENT_PATHS[type] as string, coreAuthenticator(type, config.core[type])]),
  );
  authenticators.set(DIRECT_DEBIT_WEBHOOK_PATH, directDebitAuthenticator(config.directDebit));
  return (request) => {
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
}

export async function registerWebhookRoutes(
  app: FastifyInstance,
  config: GatewayConfig,
  http: HttpApp,
  handlers: DeliveryHandlers,
): Promise<void> {
  const { refuse, invalidRequest } = http;
  const authenticationProblem = headerAuthentication(config);
  const s = initServer();
  await app.register(async (webhooks) => {
    // Raw bytes: the cash signature covers them exactly, and evaluate.ts reads the JSON itself.
    webhooks.removeAllContentTypeParsers();
    webhooks.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
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
        coreMoneyIn: ({ body, request }) => handlers.handleCore('MONEY_IN', request, body as Buffer),
        coreStatusUpdate: handlers.coreRoute('STATUS_UPDATE'),
        coreCep: handlers.coreRoute('CEP'),
        coreRefund: handlers.coreRoute('REFUND'),
        coreReport: handlers.coreRoute('REPORT'),
        cash: ({ body, request }) => handlers.handleCash(request, body as Buffer),
        directDebit: async ({ body, request }) => {
          const answer = await handlers.handleDirectDebit(request, body as Buffer);
          // The route's contract answers 200 when stored; every other answer is a problem.
          return answer.status === 200 ? { status: 200, body: answer.body } : answer;
        },
      }),
      webhooks,
      { responseValidation: false, requestValidationErrorHandler: invalidRequest },
    );
  });
}
