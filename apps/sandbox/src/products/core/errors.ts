// The core error body, gRPC-style as the platform's documentation shows it: code (gRPC's), message
// "API Error", details[] of google.rpc.ErrorInfo whose metadata.error_detail says what went wrong.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Schema } from './spec.ts';

export type CoreReason = Schema<'CoreErrorReason'>;

/**
 * The gRPC status code of each reason (the body's `code` is gRPC's, not HTTP's: the documented
 * FAILED_PRECONDITION 400 carries 9). sandbox choice for the reasons the documentation shows no
 * code for: the gRPC code of the same name or meaning.
 */
const GRPC_BY_REASON: Record<CoreReason, number> = {
  DATA_ERROR: 3, // INVALID_ARGUMENT
  MISSING_REQUIRED_FIELDS: 3, // INVALID_ARGUMENT
  FAILED_PRECONDITION: 9,
  RESOURCE_NOT_FOUND: 5, // NOT_FOUND
  UNAUTHORIZED: 16, // UNAUTHENTICATED
  PERMISSION_DENIED: 7,
  UNIQUE_VIOLATION: 6, // ALREADY_EXISTS
  INTERNAL: 13,
};

export class CoreHttpError extends Error {
  readonly status: 400 | 401 | 404 | 409 | 500;
  readonly reason: CoreReason;
  readonly domain: string;
  readonly errorCode: string | undefined;

  constructor(
    status: 400 | 401 | 404 | 409 | 500,
    reason: CoreReason,
    message: string,
    domain = 'CORE',
    errorCode?: string,
  ) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.domain = domain;
    this.errorCode = errorCode;
  }
}

/**
 * The documented gRPC-style body: `message` is the generic "API Error"; the reason in words is
 * `details[0].metadata.error_detail`, with `http_code` as a string, inside a google.rpc.ErrorInfo.
 * (Documented on the private account lifecycle page.)
 */
export function coreErrorBody(
  status: number,
  reason: CoreReason,
  message: string,
  domain = 'CORE',
  errorCode?: string,
): Schema<'CoreError'> {
  return {
    code: GRPC_BY_REASON[reason] ?? 2,
    message: 'API Error',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain,
        metadata: { error_detail: message, http_code: String(status), ...(errorCode ? { error_code: errorCode } : {}) },
      },
    ],
  };
}

export function sendCoreError(reply: FastifyReply, error: CoreHttpError): FastifyReply {
  return reply
    .code(error.status)
    .send(coreErrorBody(error.status, error.reason, error.message, error.domain, error.errorCode));
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
    if (status === 413)
      return sendCoreError(
        reply,
        new CoreHttpError(400, 'DATA_ERROR', 'The request body is larger than the service accepts.'),
      );
    if (status === 415)
      return sendCoreError(reply, new CoreHttpError(400, 'DATA_ERROR', 'Send the request body as application/json.'));
    if (status >= 400 && status < 500)
      return sendCoreError(reply, new CoreHttpError(400, 'DATA_ERROR', `Malformed request: ${error.message}`));
    request.log.error({ err: error }, 'core handler failed');
    return sendCoreError(reply, new CoreHttpError(500, 'INTERNAL', 'Unexpected error in the sandbox core service.'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendCoreError(
      reply,
      new CoreHttpError(404, 'RESOURCE_NOT_FOUND', `No core operation at ${request.method} ${request.url}.`),
    ),
  );
}
