// How every product client calls one generated SDK function through the pipeline: the transport
// sends, the tolerant reader reads, and whatever went wrong becomes one of our typed errors.
import type { ZodType } from 'zod';
import { readTolerantly, type DriftOptions } from './drift.ts';
import type { ProductName } from './environments.ts';
import { PaykitError, RequestValidationError, UnexpectedResponseError } from './errors.ts';
import { abortedByCaller } from './aborted-by-caller.ts';
import { apiErrorFrom } from '../internal/api-error-from.ts';
import { sanitizeCause } from '../internal/sanitize-cause.ts';
import { SentResult, noResponseValidation } from '../internal/sender.ts';
import { rememberResponse } from './response-info.ts';
import { requestIdOf, type RequestOptions, type Transport } from './transport.ts';

export interface InvokeContext {
  product: ProductName;
  transport: Transport;
  drift?: DriftOptions;
  /** The client's own secrets (API key, client secret, token), scrubbed by value from every error. */
  secrets?: () => readonly (string | undefined)[];
}

export interface SdkResult {
  data?: unknown;
  error?: unknown;
  response?: Response;
}

export interface SdkExtra {
  fetch: typeof fetch;
  responseValidator: (data: unknown) => Promise<void>;
  throwOnError: false;
}

/**
 * Calls one generated SDK function through the pipeline:
 * - passes { fetch: transport.with({ ...requestOptions, operation }), responseValidator: a no-op,
 *   throwOnError: false } into `call` (the SDK's strict response validation is replaced by the
 *   tolerant reader);
 * - a ZodError from the SDK's requestValidator → RequestValidationError (nothing was sent);
 * - a 4xx/5xx → apiErrorFrom(response, body, { product, operation, requestId });
 * - a 2xx → readTolerantly(schema, data, { product, operation }, ctx.drift);
 * - TimeoutError / ConnectionError / UserAbortError (a caller's abort) are thrown as they are.
 */
export async function invoke<T>(
  ctx: InvokeContext,
  operation: string,
  schema: ZodType<T>,
  call: (extra: SdkExtra) => Promise<SdkResult>,
  requestOptions?: RequestOptions,
): Promise<T> {
  const extra: SdkExtra = {
    fetch:
      requestOptions === undefined
        ? operationFetch(ctx.transport, operation)
        : ctx.transport.with({ ...requestOptions, operation }),
    responseValidator: noResponseValidation,
    throwOnError: false,
  };
  let result: SdkResult;
  try {
    result = await call(extra);
  } catch (error) {
    throw normalise(error, ctx, operation, requestOptions);
  }
  if (result instanceof SentResult) {
    // A JSON 2xx the SDK client parsed from the bytes the transport sent: no Response is needed.
    const { sent } = result;
    if (
      typeof result.data === 'string' &&
      !isJsonContentType(sent.header('content-type')) &&
      isNonJsonBody(result.data)
    ) {
      throw notJson(ctx, operation, sent.status, sent.requestId, sent.header('content-type'));
    }
    const data = readTolerantly(schema, result.data, { product: ctx.product, operation }, ctx.drift);
    rememberResponse(data, sent.status, sent, sent.requestId);
    return data;
  }
  const response = result?.response;
  if (!response) {
    throw normalise(
      result?.error ?? new Error('the SDK returned neither a response nor an error'),
      ctx,
      operation,
      requestOptions,
    );
  }
  if (!response.ok) {
    throw apiErrorFrom(response, result.error, {
      product: ctx.product,
      operation,
      requestId: requestIdOf(response) ?? 'unknown',
      secrets: knownSecrets(ctx),
    });
  }
  const requestId = requestIdOf(response) ?? 'unknown';
  const contentType = response.headers.get('content-type');
  if (result.error !== undefined) {
    // A 2xx whose body the SDK could not parse. Its parser's message quotes the body: keep none of it.
    throw new UnexpectedResponseError(ctx.product, operation, {
      status: response.status,
      requestId,
      contentType,
      reason: 'a body that could not be read as JSON',
    });
  }
  if (!isJsonContentType(contentType) && isNonJsonBody(result.data)) {
    throw notJson(ctx, operation, response.status, requestId, contentType);
  }
  const data = readTolerantly(schema, result.data, { product: ctx.product, operation }, ctx.drift);
  rememberResponse(data, response.status, response, requestId);
  return data;
}

/**
 * A proxy's or load balancer's page answered in the platform's place: it is not the operation's
 * answer, and returning it as data would let a caller record it as one.
 */
function notJson(
  ctx: InvokeContext,
  operation: string,
  status: number,
  requestId: string,
  contentType: string | null,
): UnexpectedResponseError {
  return new UnexpectedResponseError(ctx.product, operation, {
    status,
    requestId,
    contentType,
    reason: 'a body that is not JSON',
  });
}

// transport.with({ operation }) for calls without request options, made once per transport and
// operation rather than on every call.
const operationFetches = new WeakMap<Transport, Map<string, typeof fetch>>();

function operationFetch(transport: Transport, operation: string): typeof fetch {
  let byOperation = operationFetches.get(transport);
  if (!byOperation) {
    byOperation = new Map();
    operationFetches.set(transport, byOperation);
  }
  let fetchFn = byOperation.get(operation);
  if (!fetchFn) {
    fetchFn = transport.with({ operation });
    byOperation.set(operation, fetchFn);
  }
  return fetchFn;
}

interface ZodLikeError {
  name: string;
  issues: { path: PropertyKey[]; message: string }[];
}

function isZodError(error: unknown): error is ZodLikeError {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

function knownSecrets(ctx: InvokeContext): string[] {
  return (ctx.secrets?.() ?? []).filter((s): s is string => typeof s === 'string' && s !== '');
}

function isJsonContentType(contentType: string | null): boolean {
  return contentType !== null && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());
}

/**
 * Whether the SDK read a body as something other than JSON: text with content, a stream, bytes.
 * An empty body (read as {} or '') is not counted: some operations answer 200 with nothing.
 */
function isNonJsonBody(data: unknown): boolean {
  if (typeof data === 'string') return data.trim() !== '';
  if (data instanceof ReadableStream) {
    // Release the connection: nobody will read this body.
    data.cancel().catch(() => undefined);
    return true;
  }
  return data instanceof ArrayBuffer || data instanceof Blob || data instanceof FormData;
}

function normalise(
  error: unknown,
  ctx: InvokeContext,
  operation: string,
  requestOptions: RequestOptions | undefined,
): unknown {
  const where = `${ctx.product} ${operation}`;
  if (isZodError(error)) {
    const issues = error.issues.map((issue) => ({
      path: issue.path.map((p) => (typeof p === 'number' ? p : String(p))),
      message: issue.message,
    }));
    const shown = issues.slice(0, 5).map((i) => `${i.path.length > 0 ? i.path.join('.') : '(request)'}: ${i.message}`);
    const more = issues.length > 5 ? `; and ${issues.length - 5} more` : '';
    return new RequestValidationError(
      `${where}: the request does not match the spec, so it was not sent: ${shown.join('; ')}${more} — fix these fields and call again`,
      issues,
    );
  }
  if (error instanceof PaykitError) return error;
  // The transport turns a caller's abort into a UserAbortError; a fetch of the caller's own (the
  // transport's `fetch` option) may still reject with the signal's reason or a bare AbortError.
  const signals = [requestOptions?.signal, ctx.transport.options.signal];
  if (signals.some((signal) => signal?.aborted && signal.reason === error))
    return abortedByCaller(where, 'in-flight', error);
  if (error instanceof DOMException && error.name === 'AbortError') return abortedByCaller(where, 'in-flight', error);
  const cause = sanitizeCause(error, knownSecrets(ctx));
  return new PaykitError(
    `${where}: the request failed before reaching the platform: ${cause.message} — check the arguments and the client's configuration`,
    {
      cause,
    },
  );
}
