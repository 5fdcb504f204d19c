// The cash error body. The reference shows only the status codes (401 for a wrong client id or
// signature, 404 for get-active with none active), never a body.
// sandbox choice: every cash error answers `{ error: "<what is wrong and what to do>" }`.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';

export class CashHttpError extends Error {
  readonly status: 400 | 401 | 404 | 500;

  constructor(status: 400 | 401 | 404 | 500, message: string) {
    super(message);
    this.status = status;
  }
}

export function cashErrorBody(message: string): { error: string } {
  return { error: message };
}

export function sendCashError(reply: FastifyReply, error: CashHttpError): FastifyReply {
  return reply.code(error.status).send(cashErrorBody(error.message));
}

/**
 * Failures that happen before the request could be authenticated (the body could not be read:
 * too large, wrong content-length, aborted) are 401 as well: without the exact body the
 * signature cannot be verified, and an unauthenticated request always gets 401 first.
 * `describeHeaders` names what is wrong with the signing headers when something is.
 */
export function installCashErrorHandler(
  app: FastifyInstance,
  describeHeaders: (headers: Record<string, unknown>) => string | null,
  bodyLimitBytes: number,
): void {
  app.setErrorHandler((error: FastifyError | CashHttpError, request, reply) => {
    if (error instanceof CashHttpError) return sendCashError(reply, error);
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const headerProblem = describeHeaders(request.headers);
      if (headerProblem) return sendCashError(reply, new CashHttpError(401, headerProblem));
      const why =
        status === 413
          ? `the request body is larger than the ${bodyLimitBytes} bytes the sandbox reads`
          : `the request body could not be read (${error.message})`;
      return sendCashError(
        reply,
        new CashHttpError(
          401,
          `The signature could not be verified: ${why}. Send a smaller JSON body and sign exactly the bytes you send.`,
        ),
      );
    }
    request.log.error({ err: error }, 'cash handler failed');
    return sendCashError(reply, new CashHttpError(500, 'Unexpected error in the sandbox cash service.'));
  });
}
