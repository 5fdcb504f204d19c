// The core error body (reference: code = gRPC status code mapped to HTTP, message, details[]).
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Schema } from './spec.ts';

export type CoreReason = Schema<'CoreErrorReason'>;

/** gRPC status codes the sandbox maps HTTP statuses from. */
const GRPC: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 500: 13 };

export class CoreHttpError extends Error {
  readonly status: 400 | 401 | 404 | 409 | 500;
  readonly reason: CoreReason;
  readonly domain: string;
  readonly errorCode: string | undefined;

  constructor(status: 400 | 401 | 404 | 409 | 500, reason: CoreReason, message: string, domain = 'core', errorCode?: string) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.domain = domain;
    this.errorCode = errorCode;
  }
}

export function coreErrorBody(status: number, reason: CoreReason, message: string, domain = 'core', errorCode?: string): Schema<'CoreError'> {
  return {
    code: GRPC[status] ?? 2,
    message,
    details: [{ reason, domain, metadata: { http_code: String(status), ...(errorCode ? { error_code: errorCode } : {}) } }],
  };
}

export function sendCoreError(reply: FastifyReply, error: CoreHttpError): FastifyReply {
  return reply.code(error.status).send(coreErrorBody(error.status, error.reason, error.message, error.domain, error.errorCode));
}

/**
 * Every failure inside the core plugin becomes a core error body: malformed JSON, oversize or
 * non-JSON bodies are 400 DATA_ERROR (the core service never answers 422), anything unexpected
 * is 500 INTERNAL, and nothing crashes the process.
 */
export function installCoreErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | CoreHttpError, request, reply) => {
    if (error instanceof CoreHttpError) return sendCoreError(reply, error);
    const status = error.statusCode ?? 500;
    if (status === 413) return sendCoreError(reply, new CoreHttpError(400, 'DATA_ERROR', 'The request body is larger than the service accepts.'));
    if (status === 415) return sendCoreError(reply, new CoreHttpError(400, 'DATA_ERROR', 'Send the request body as application/json.'));
    if (status >= 400 && status < 500) return sendCoreError(reply, new CoreHttpError(400, 'DATA_ERROR', `Malformed request: ${error.message}`));
    request.log.error({ err: error }, 'core handler failed');
    return sendCoreError(reply, new CoreHttpError(500, 'INTERNAL', 'Unexpected error in the sandbox core service.'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendCoreError(reply, new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `No core operation at ${request.method} ${request.url}.`)),
  );
}
