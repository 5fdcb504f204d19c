// Turning an error response into the error class its status names, with a message that quotes
// the server's words and says what to do, scrubbed of every secret value the request carried.
import type { ProductName } from '../core/environments.ts';
import {
  ApiError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  UnauthorizedError,
  UnprocessableError,
  type ApiErrorInit,
} from '../core/errors.ts';
import { requestSecretsOf, scrubSecrets } from '../core/redact.ts';
import { errorToken, serverText } from './error-body.ts';
import { parseRetryAfter } from './retry.ts';
import { truncate } from './truncate.ts';

const MAX_SERVER_TEXT = 300;

/** What to do about each kind of failure. */
function hintFor(status: number, retryAfterMs: number | undefined): string {
  if (status === 400)
    return 'fix the request: the fields named above do not meet the spec or the platform rejected them';
  if (status === 401)
    return 'check that the environment, client, credential and token (or API key / signature) belong together and have not expired';
  if (status === 403) return 'these credentials may not perform this operation';
  if (status === 404) return 'check the ids in the request: they must exist for this client in this environment';
  if (status === 409)
    return 'the resource is in a conflicting state, or an Idempotency-Key was reused with another payload or while its first request is in progress: retry later with the same payload, or use a new key';
  if (status === 422) return 'fix the fields listed in detail';
  if (status === 429)
    return retryAfterMs !== undefined
      ? `too many requests: wait ${Math.ceil(retryAfterMs / 1000)} s before retrying`
      : 'too many requests: slow down and retry later';
  if (status >= 500)
    return 'a server-side failure: retry later, and only repeat an operation that is safe to repeat (a read, or a POST with an Idempotency-Key)';
  return 'see status and body';
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  const text = body.trim();
  if (text === '') return undefined;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return body;
    }
  }
  return body;
}

/**
 * Builds the right subclass from an error response. `body` is what was read from it (JSON text,
 * parsed JSON, or plain text). Message: "<product> <operation>: HTTP 404 RESOURCE_NOT_FOUND:
 * <server message> — <what to do>". Every secret value of the request (known to the transport,
 * plus `ctx.secrets`) is scrubbed from the message, the body and the details.
 */
export function apiErrorFrom(
  response: Response,
  body: unknown,
  ctx: { product: ProductName; operation?: string; requestId: string; secrets?: readonly string[] },
): ApiError {
  const status = response.status;
  const parsed = parseBody(body);
  const secrets = [...requestSecretsOf(response), ...(ctx.secrets ?? [])];
  const retryAfterMs = status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
  const token = errorToken(parsed);
  const text = serverText(parsed);
  const where = ctx.operation ? `${ctx.product} ${ctx.operation}` : ctx.product;
  const message =
    `${where}: HTTP ${status}` +
    (token ? ` ${token}` : '') +
    (text ? `: ${truncate(scrubSecrets(text, secrets), MAX_SERVER_TEXT)}` : '') +
    ` — ${hintFor(status, retryAfterMs)}`;
  const init: ApiErrorInit = {
    status,
    body: parsed,
    requestId: ctx.requestId,
    product: ctx.product,
    headers: response.headers,
    secrets,
  };
  if (ctx.operation !== undefined) init.operation = ctx.operation;
  switch (true) {
    case status === 400:
      return new BadRequestError(message, init);
    case status === 401:
      return new UnauthorizedError(message, init);
    case status === 403:
      return new PermissionDeniedError(message, init);
    case status === 404:
      return new NotFoundError(message, init);
    case status === 409:
      return new ConflictError(message, init);
    case status === 422:
      return new UnprocessableError(message, init);
    case status === 429:
      return new RateLimitedError(message, retryAfterMs !== undefined ? { ...init, retryAfterMs } : init);
    case status >= 500:
      return new InternalServerError(message, init);
    default:
      return new ApiError(message, init);
  }
}
