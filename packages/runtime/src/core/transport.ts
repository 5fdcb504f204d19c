// The one request pipeline every client uses: a `fetch` with per-attempt timeouts, the caller's
// AbortSignal, request ids, retries with full-jitter backoff (only for requests that are safe to
// repeat) and redacted logging. Products hand it to their generated hey-api client
// (`createClient({ baseUrl, fetch: transport.fetch })`), which has no retries or timeouts itself.
import { randomUUID } from 'node:crypto';
import type { ProductName } from './environments.ts';
import { ConfigurationError, ConnectionError, PaykitError, TimeoutError, type AbortStage } from './errors.ts';
import { abortedByCaller } from './aborted-by-caller.ts';
import { sanitizeCause } from '../internal/sanitize-cause.ts';
import type { LogEntry, Logger } from './logger.ts';
import { collectSecrets, redactBody, redactHeaders, redactUrl, rememberRequestSecrets } from './redact.ts';
import { backoffDelay, isRetryableStatus, retryPolicy, type RetryPolicy } from '../internal/retry.ts';
import { failureCode, mayRepeat, retryRowFor, type RetryRow } from './retry-table.ts';
import {
  Abort,
  fetchSend,
  headerOf,
  parsedUrl,
  toResponse,
  undiciSend,
  type Answer,
  type AnswerHeaders,
  type Send,
} from '../internal/undici-send.ts';
import { registerSender } from '../internal/sender.ts';

/** fetch over the transport's default sender (for a fetch-shaped step inside a transport, such as request signing). */
export { undiciFetch } from '../internal/undici-send.ts';

export interface TransportOptions {
  product: ProductName;
  /** Per attempt, from sending the request to the last byte of the response (default 30 000). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /**
   * The fetch that actually sends, called once per attempt as fetch(url, init), init carrying the
   * body bytes read once. Default: undici's dispatcher over a keep-alive pool (src/internal/undici-send.ts),
   * honouring HTTP_PROXY / HTTPS_PROXY / NO_PROXY; pass `globalThis.fetch` to send through fetch
   * (a fetch-level mock, say).
   */
  fetch?: typeof fetch;
  logger?: Logger;
  /** Aborts every request of this transport (client shutdown). */
  signal?: AbortSignal;
  requestIdHeader?: string;
  /** Injected in tests to observe backoff delays without waiting. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  userAgent?: string;
}

export interface RequestOptions {
  /**
   * The whole call: every attempt, the waits between them and the body reads end by then (each
   * attempt is also bounded by the transport's per-attempt timeoutMs). Default: no limit beyond
   * the per-attempt one.
   */
  timeoutMs?: number;
  /**
   * When the call started, as `performance.now()` in this process, for a client that spent part of
   * the call before sending (sign-in): `timeoutMs` counts from here. Default: when the transport
   * receives the request.
   */
  startedAt?: number;
  maxRetries?: number;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /** The SDK operation (createPennyValidation…), for logs and error messages. */
  operation?: string;
}

export interface Transport {
  readonly options: Required<Pick<TransportOptions, 'product' | 'timeoutMs'>> & TransportOptions;
  /**
   * fetch with timeouts, AbortSignal, request ids, retries (as the retry table allows) and redacted
   * logging. Returns the Response (4xx/5xx included: errors are built by apiErrorFrom); throws
   * TimeoutError / ConnectionError after the last attempt, and UserAbortError (its cause the
   * signal's reason) as soon as a caller's signal aborts (never retried).
   */
  fetch: typeof fetch;
  /** The same pipeline with per-request options (pass as the `fetch` of one SDK call). */
  with(options: RequestOptions): typeof fetch;
  /**
   * The same pipeline without a Request in between: the request as url, method, headers and body
   * (a string is encoded once; bytes are sent as they are), and the answer as its status,
   * headers, request id and body bytes, a Response made only if asked for. What the SDK client of
   * `createSdkClient` uses; `fetch` stays for everyone else.
   */
  send(request: TransportRequest, options?: RequestOptions): Promise<TransportResult>;
}

export interface TransportRequest {
  url: string;
  method: string;
  /**
   * Owned by the transport from here on (request id, user agent and per-request headers are set
   * on it). A plain record (names in any case) is what the transport sends as it is: cheaper for
   * fetch to read than a Headers.
   */
  headers: Headers | Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
  redirect?: RequestRedirect;
}

export interface TransportResult {
  /**
   * The answer as a Response (`requestIdOf` knows it), made when first read: a caller that needs
   * only the status, a header and the bytes never pays for one.
   */
  readonly response: Response;
  /** The body bytes, read under the timeout (undefined for a status outside 200–599). */
  readonly bytes: Uint8Array<ArrayBuffer> | undefined;
  /** The HTTP status. */
  readonly status: number;
  /** The server's `x-request-id` (the transport's requestIdHeader) when it sent one, else the one the request was sent with. */
  readonly requestId: string;
  /** A response header, as Headers#get reads it (lowercase name; null when absent). */
  header(name: string): string | null;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Bodies up to this size are parsed (and redacted) for log entries; larger ones are summarised. */
export const MAX_LOGGED_BODY_BYTES = 64 * 1024;

const requestIds = new WeakMap<Response, string>();

/** The request id of a transport response: the server's `x-request-id` when it sent one, else ours. */
export function requestIdOf(response: Response): string | undefined {
  return requestIds.get(response);
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function createTransport(options: TransportOptions): Transport {
  if (!options || typeof options.product !== 'string') {
    throw new ConfigurationError('createTransport needs { product }: the product name used in logs and errors.');
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  checkTimeout(timeoutMs, 'timeoutMs');
  let policy: RetryPolicy;
  try {
    policy = retryPolicy(options.retry);
  } catch (error) {
    throw new ConfigurationError(error instanceof Error ? error.message : 'invalid retry policy');
  }
  const resolved = { ...options, product: options.product, timeoutMs };
  const customFetch = options.fetch;
  const send: Send = customFetch === undefined ? undiciSend() : fetchSend(customFetch);
  const settings: Settings = {
    product: options.product,
    timeoutMs,
    policy,
    send,
    logger: options.logger,
    signal: options.signal,
    requestIdHeader: (options.requestIdHeader ?? 'x-request-id').toLowerCase(),
    sleep: options.sleep ?? defaultSleep,
    random: options.random ?? Math.random,
    userAgent: options.userAgent,
    deadlines: createDeadlines(),
    rows: new Map(),
  };
  const checkOptions = (requestOptions: RequestOptions): void => {
    if (requestOptions.timeoutMs !== undefined) checkTimeout(requestOptions.timeoutMs, 'timeoutMs');
    if (requestOptions.startedAt !== undefined && !Number.isFinite(requestOptions.startedAt)) {
      throw new ConfigurationError(`startedAt must be a performance.now() time (got ${requestOptions.startedAt}).`);
    }
    if (
      requestOptions.maxRetries !== undefined &&
      !(Number.isInteger(requestOptions.maxRetries) && requestOptions.maxRetries >= 0)
    ) {
      throw new ConfigurationError(`maxRetries must be an integer ≥ 0 (got ${requestOptions.maxRetries}).`);
    }
  };
  // Each fetch this transport hands out is registered with its direct sender, so the SDK client
  // of createSdkClient, given one of them, skips the Request round trip (see src/internal/sender.ts).
  const fetchWith = (requestOptions: RequestOptions): typeof fetch => {
    const bound: typeof fetch = (input, init) => run(settings, input, init, requestOptions);
    registerSender(bound, (request) => exchange(settings, toIncoming(request), requestOptions, false));
    return bound;
  };
  return {
    options: resolved,
    fetch: fetchWith({}),
    with(requestOptions: RequestOptions): typeof fetch {
      checkOptions(requestOptions);
      return fetchWith(requestOptions);
    },
    send(request: TransportRequest, requestOptions: RequestOptions = {}): Promise<TransportResult> {
      checkOptions(requestOptions);
      return exchange(settings, toIncoming(request), requestOptions, false);
    },
  };
}

function toIncoming(request: TransportRequest): IncomingRequest {
  const headers = headerRecord(request.headers);
  let body: Uint8Array<ArrayBuffer> | undefined;
  if (typeof request.body === 'string') {
    body = new TextEncoder().encode(request.body);
    // What fetch itself would have sent for a string body.
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  } else {
    body = request.body;
  }
  // The URL as fetch (and a Request) would read it, for logs and messages alike.
  return {
    url: parsedUrl(request.url).href,
    method: normaliseMethod(request.method),
    headers,
    body,
    redirect: request.redirect ?? 'follow',
    signal: request.signal,
  };
}

interface Settings {
  deadlines: Deadlines;
  /** The retry table's row of each operation and method this transport sent, looked up once. */
  rows: Map<string | undefined, Map<string, RetryRow>>;
  product: ProductName;
  timeoutMs: number;
  policy: RetryPolicy;
  send: Send;
  logger: Logger | undefined;
  signal: AbortSignal | undefined;
  requestIdHeader: string;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  userAgent: string | undefined;
}

interface Deadline {
  at: number;
  ms: number;
  abort: Abort;
}

interface Deadlines {
  /** Aborts `abort` with a TimeoutError `ms` from now, unless removed first. */
  add(ms: number, abort: Abort): Deadline;
  remove(deadline: Deadline): void;
}

/**
 * The attempts' timeouts of one transport on one timer, armed for the earliest deadline: arming
 * and clearing a Node timer on every request costs more than a Set entry. The timer is re-armed
 * only for an earlier deadline, and holds the process open only while an attempt is under way.
 */
function createDeadlines(): Deadlines {
  const pending = new Set<Deadline>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedAt = Infinity;
  const arm = (at: number): void => {
    if (timer !== undefined) clearTimeout(timer);
    armedAt = at;
    timer = setTimeout(onTimer, Math.max(1, Math.ceil(at - performance.now())));
  };
  const onTimer = (): void => {
    timer = undefined;
    armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const deadline of pending) {
      if (deadline.at <= now + 1) {
        pending.delete(deadline);
        deadline.abort.abort(new DOMException(`no response within ${deadline.ms} ms`, 'TimeoutError'));
      } else if (deadline.at < next) {
        next = deadline.at;
      }
    }
    if (next !== Infinity) arm(next);
  };
  return {
    add(ms, abort) {
      const deadline: Deadline = { at: performance.now() + ms, ms, abort };
      pending.add(deadline);
      if (deadline.at < armedAt) arm(deadline.at);
      else if (pending.size === 1) timer?.ref();
      return deadline;
    },
    remove(deadline) {
      pending.delete(deadline);
      if (pending.size === 0) timer?.unref();
    },
  };
}

function checkTimeout(value: number, name: string): void {
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigurationError(`${name} must be a positive number of milliseconds (got ${value}).`);
}

async function run(
  s: Settings,
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  ro: RequestOptions,
): Promise<Response> {
  return (await exchange(s, await readRequest(input, init), ro, true)).response;
}

/**
 * The pipeline proper: one request (body bytes read once) through attempts, timeouts, retries and
 * logs. `readable`: the caller gets a Response whose body it can read (fetch); otherwise the
 * response as received, its body already read into `bytes` (send: one read, no copy).
 */
async function exchange(
  s: Settings,
  incoming: IncomingRequest,
  ro: RequestOptions,
  readable: boolean,
): Promise<TransportResult> {
  // The request's own signal (a Request's, or init.signal) joins the caller signals.
  const callerSignals =
    s.signal || ro.signal || incoming.signal ? signalsOf(s.signal, ro.signal, incoming.signal) : NO_SIGNALS;
  const { url, method, headers, body } = incoming;
  const aborted = firstAborted(callerSignals);
  if (aborted) throw abortedByCaller(whereOf(s, ro), 'before-sending', aborted.reason);

  if (ro.headers) for (const name of Object.keys(ro.headers)) headers[name.toLowerCase()] = ro.headers[name]!;
  if (s.userAgent !== undefined && headers['user-agent'] === undefined) headers['user-agent'] = s.userAgent;
  let requestId = headers[s.requestIdHeader];
  if (requestId === undefined || requestId === '') {
    requestId = randomUUID();
    headers[s.requestIdHeader] = requestId;
  }
  // One deadline for the call (a caller's timeoutMs), and one per attempt (the transport's).
  const timeoutMs = ro.timeoutMs ?? s.timeoutMs;
  const endsAt = ro.timeoutMs === undefined ? Infinity : (ro.startedAt ?? performance.now()) + ro.timeoutMs;
  const maxRetries = ro.maxRetries ?? s.policy.maxRetries;
  const idempotencyKey = headers['idempotency-key'];
  // The retry table decides, per operation: an idempotent method, a POST the platform dedupes by
  // its key (and this one carries it), or a POST repeated only when it certainly never left.
  const row = rowFor(s, ro.operation, method);
  const safe = mayRepeat(row, idempotencyKey, { kind: 'answer' });
  const contentType = headers['content-type'] ?? null;
  const secrets = (): string[] => collectSecrets(headers, jsonOf(body, contentType));

  // Without a logger, nothing is prepared for log entries (no redaction, no timings).
  const logging = s.logger !== undefined;
  const log = logging ? makeLog(s, ro.operation, method, url, requestId) : noLog;
  const requestHeadersForLog = logging ? redactHeaders(headers) : NO_LOGGED_HEADERS;
  const requestBodyForLog = logging ? describeBody(body, contentType) : undefined;

  for (let attempt = 0; ; attempt++) {
    // One Abort per attempt, aborted at its deadline (the transport's shared timer) or by any
    // caller signal. (Cheaper than AbortSignal.timeout + AbortSignal.any, whose timer would stay
    // armed for timeoutMs after every request, or an AbortController per attempt.)
    const abort = new Abort();
    const leftMs = endsAt - performance.now();
    if (leftMs < 1) throw callTimeout(s, ro, url, requestId, timeoutMs, attempt, row.why, safe);
    const deadline = s.deadlines.add(Math.min(s.timeoutMs, leftMs), abort);
    const onCallerAbort =
      callerSignals.length === 0 ? undefined : (): void => abort.abort(firstAborted(callerSignals)?.reason);
    if (onCallerAbort) for (const signal of callerSignals) signal.addEventListener('abort', onCallerAbort);
    const started = logging ? performance.now() : 0;
    if (logging)
      log({ event: 'request', attempt: attempt + 1, headers: requestHeadersForLog, body: requestBodyForLog });

    let answer: Answer | undefined;
    let failure: unknown;
    try {
      // A fresh request per attempt from the bytes read once: a body stream can be sent only once.
      // The sender reads the body under the same abort: the timeout covers the whole exchange, a
      // connection cut mid-body is retried like any network error, and logs can show the
      // (redacted) body.
      answer = await s.send(url, { method, headers, body, redirect: incoming.redirect }, abort);
    } catch (error) {
      failure = error;
    } finally {
      s.deadlines.remove(deadline);
      if (onCallerAbort) for (const signal of callerSignals) signal.removeEventListener('abort', onCallerAbort);
    }
    const durationMs = logging ? Math.round(performance.now() - started) : 0;

    if (answer) {
      const { status } = answer;
      if (s.logger) {
        log({
          event: 'response',
          attempt: attempt + 1,
          status,
          durationMs,
          headers: redactHeaders(flatHeaders(answer.headers)),
          body: describeBody(answer.bytes, headerOf(answer.headers, 'content-type')),
        });
      }
      const delayMs =
        isRetryableStatus(status) && safe && attempt < maxRetries
          ? backoffDelay(attempt, s.policy, headerOf(answer.headers, 'retry-after'), s.random)
          : Infinity;
      // A retry that could not start before the call's deadline is not made: the answer stands.
      if (performance.now() + delayMs < endsAt) {
        log({
          event: 'retry',
          attempt: attempt + 1,
          status,
          delayMs,
          headers: requestHeadersForLog,
          error: `HTTP ${status}`,
        });
        await wait(s.sleep, delayMs, callerSignals, s, ro, requestId);
        continue;
      }
      // Only an error is ever built from a response (apiErrorFrom): a 2xx needs no secrets.
      const ok = status >= 200 && status <= 299;
      return new Exchanged(
        answer,
        headerOf(answer.headers, s.requestIdHeader) || requestId,
        readable,
        ok ? undefined : secrets,
      );
    }

    const callerAbort = firstAborted(callerSignals);
    if (callerAbort) {
      log({
        event: 'error',
        attempt: attempt + 1,
        durationMs,
        headers: requestHeadersForLog,
        error: 'aborted by the caller',
      });
      throw abortedByCaller(whereOf(s, ro), 'in-flight', callerAbort.reason, requestId);
    }
    if (failure instanceof PaykitError) throw failure;
    const timedOut = abort.aborted;
    const what = timedOut
      ? `timed out after ${Math.min(timeoutMs, s.timeoutMs)} ms`
      : sanitizeCause(failure, secrets()).message;
    const retryDelayMs =
      mayRepeat(row, idempotencyKey, { kind: 'failure', code: timedOut ? undefined : failureCode(failure) }) &&
      attempt < maxRetries
        ? backoffDelay(attempt, s.policy, null, s.random)
        : Infinity;
    if (performance.now() + retryDelayMs < endsAt) {
      const delayMs = retryDelayMs;
      log({ event: 'retry', attempt: attempt + 1, durationMs, delayMs, headers: requestHeadersForLog, error: what });
      await wait(s.sleep, delayMs, callerSignals, s, ro, requestId);
      continue;
    }
    log({ event: 'error', attempt: attempt + 1, durationMs, headers: requestHeadersForLog, error: what });
    const where = whereOf(s, ro);
    const attempts = `${attempt + 1} attempt${attempt === 0 ? '' : 's'}`;
    const notRetried = safe ? '' : `; not retried: ${row.why}, so check its effect before repeating it`;
    if (timedOut) {
      const cause = abort.reason instanceof Error ? abort.reason : undefined;
      if (performance.now() >= endsAt - 1)
        throw callTimeout(s, ro, url, requestId, timeoutMs, attempt + 1, row.why, safe, cause);
      throw new TimeoutError(
        `${where}: no response from ${shortUrl(url)} within ${s.timeoutMs} ms (${attempts})${notRetried} — raise timeoutMs, or check that the service is up`,
        cause ? { requestId, timeoutMs: s.timeoutMs, cause } : { requestId, timeoutMs: s.timeoutMs },
      );
    }
    const cause = sanitizeCause(failure, secrets());
    const code = (cause as { code?: unknown }).code;
    throw new ConnectionError(
      `${where}: could not reach ${shortUrl(url)}${typeof code === 'string' ? ` (${code})` : ''} (${attempts})${notRetried} — check baseUrl, the network, and that the service is running`,
      { requestId, cause },
    );
  }
}

/**
 * retryRowFor, remembered per operation and method. Both are the code's few strings; past a
 * bound (a caller naming operations at will) rows are looked up without being kept.
 */
function rowFor(s: Settings, operation: string | undefined, method: string): RetryRow {
  let byMethod = s.rows.get(operation);
  if (byMethod === undefined) {
    byMethod = new Map();
    if (s.rows.size < 1000) s.rows.set(operation, byMethod);
  }
  let row = byMethod.get(method);
  if (row === undefined) {
    row = retryRowFor(s.product, operation, method);
    if (byMethod.size < 16) byMethod.set(method, row);
  }
  return row;
}

/** The call as messages name it: the product, and the operation when known. */
function whereOf(s: Settings, ro: RequestOptions): string {
  return ro.operation ? `${s.product} ${ro.operation}` : s.product;
}

/** The call's own deadline passed (a caller's timeoutMs, counted from startedAt when given). */
function callTimeout(
  s: Settings,
  ro: RequestOptions,
  url: string,
  requestId: string,
  timeoutMs: number,
  made: number,
  why: string,
  safe: boolean,
  cause?: Error,
): TimeoutError {
  const where = whereOf(s, ro);
  const attempts = made === 0 ? 'no attempt could start' : `${made} attempt${made === 1 ? '' : 's'}`;
  const notRetried = safe ? '' : `; not retried: ${why}, so check its effect before repeating it`;
  return new TimeoutError(
    `${where}: the call's timeoutMs of ${timeoutMs} ms ran out before ${shortUrl(url)} answered (${attempts}, sign-in and retries included)${notRetried} — raise timeoutMs, or check that the service is up`,
    cause ? { requestId, timeoutMs, cause } : { requestId, timeoutMs },
  );
}

/** Request headers as the transport keeps them: lowercase names. */
type HeaderRecord = Record<string, string>;

const NO_SIGNALS: readonly AbortSignal[] = [];
const NO_LOGGED_HEADERS: Record<string, string> = {};
const noLog = (): void => {};

function signalsOf(...signals: (AbortSignal | null | undefined)[]): AbortSignal[] {
  const out: AbortSignal[] = [];
  for (const signal of signals) if (signal) out.push(signal);
  return out;
}

/** A record with lowercase names (the caller's own record when its names already are). */
function headerRecord(headers: Headers | HeaderRecord): HeaderRecord {
  if (headers instanceof Headers) {
    const out: HeaderRecord = {};
    headers.forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower !== name) {
      const value = headers[name]!;
      delete headers[name];
      headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
    }
  }
  return headers;
}

interface IncomingRequest {
  url: string;
  method: string;
  headers: HeaderRecord;
  body: Uint8Array<ArrayBuffer> | undefined;
  redirect: RequestRedirect;
  signal?: AbortSignal;
}

function firstAborted(signals: readonly AbortSignal[]): AbortSignal | undefined {
  for (const signal of signals) if (signal.aborted) return signal;
  return undefined;
}

/** The request as url, method, headers, body bytes (read once, re-sent on every attempt) and its own signal. */
async function readRequest(input: RequestInfo | URL, init: RequestInit | undefined): Promise<IncomingRequest> {
  // Fast path for the common shapes (a string body, or none): no intermediate Request.
  if (
    !(input instanceof Request) &&
    (init?.body === undefined || init.body === null || typeof init.body === 'string')
  ) {
    const headers = headerRecord(new Headers(init?.headers));
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (typeof init?.body === 'string') {
      body = new TextEncoder().encode(init.body);
      // What fetch itself would have sent for a string body.
      headers['content-type'] ??= 'text/plain;charset=UTF-8';
    }
    const url = new URL(input instanceof URL ? input.href : input).href;
    return {
      url,
      method: normaliseMethod(init?.method ?? 'GET'),
      headers,
      body,
      redirect: init?.redirect ?? 'follow',
      signal: init?.signal ?? undefined,
    };
  }
  const request = input instanceof Request && init === undefined ? input : new Request(input, init);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  return {
    url: request.url,
    method: request.method,
    headers: headerRecord(request.headers),
    body,
    redirect: request.redirect,
    signal: request.signal,
  };
}

const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

function normaliseMethod(method: string): string {
  if (NORMALISED_METHODS.has(method)) return method;
  const upper = method.toUpperCase();
  return NORMALISED_METHODS.has(upper) ? upper : method;
}

type LogFields = Omit<LogEntry, 'product' | 'operation' | 'method' | 'url' | 'requestId'>;

function makeLog(
  s: Settings,
  operation: string | undefined,
  method: string,
  url: string,
  requestId: string,
): (fields: LogFields) => void {
  const logger = s.logger;
  if (!logger) return () => {};
  const loggedUrl = redactUrl(url);
  return (fields) => {
    const entry: LogEntry = { product: s.product, method, url: loggedUrl, requestId, ...fields, event: fields.event };
    if (operation !== undefined) entry.operation = operation;
    for (const key of Object.keys(entry) as (keyof LogEntry)[]) if (entry[key] === undefined) delete entry[key];
    try {
      logger(entry);
    } catch {
      // A failing logger must not fail the request.
    }
  };
}

/**
 * What exchange returns: the answer, its Response made only when someone reads `response` (the
 * SDK client reads the status, a header and the bytes; invoke never needs a Response on success).
 */
class Exchanged implements TransportResult {
  readonly #answer: Answer;
  readonly #readable: boolean;
  readonly #secrets: (() => string[]) | undefined;
  #response: Response | undefined;
  readonly requestId: string;

  constructor(answer: Answer, requestId: string, readable: boolean, secrets: (() => string[]) | undefined) {
    this.#answer = answer;
    this.requestId = requestId;
    this.#readable = readable;
    this.#secrets = secrets;
  }

  get status(): number {
    return this.#answer.status;
  }

  get bytes(): Uint8Array<ArrayBuffer> | undefined {
    return this.#answer.bytes;
  }

  header(name: string): string | null {
    return headerOf(this.#answer.headers, name);
  }

  get response(): Response {
    if (this.#response === undefined) {
      const answer = this.#answer;
      // A custom fetch's own Response, for a caller that does not read its body (send); else one over the bytes.
      const response =
        answer.response !== undefined && (!this.#readable || answer.bytes === undefined)
          ? answer.response
          : toResponse(answer);
      requestIds.set(response, this.requestId);
      if (this.#secrets) rememberRequestSecrets(response, this.#secrets);
      this.#response = response;
    }
    return this.#response;
  }
}

/** Response headers with a repeated header joined (for log entries). */
function flatHeaders(headers: AnswerHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    const value = headerOf(headers, name);
    if (value !== null) out[name] = value;
  }
  return out;
}

function isJsonType(contentType: string | null): boolean {
  return contentType !== null && /\bjson\b/i.test(contentType);
}

function jsonOf(bytes: Uint8Array | undefined, contentType: string | null): unknown {
  if (!bytes || bytes.byteLength === 0 || bytes.byteLength > MAX_LOGGED_BODY_BYTES * 16) return undefined;
  if (!isJsonType(contentType) && bytes[0] !== 0x7b && bytes[0] !== 0x5b) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/** A body for a log entry: redacted JSON when it is small JSON, else its size only. */
function describeBody(bytes: Uint8Array | undefined, contentType: string | null): unknown {
  if (!bytes || bytes.byteLength === 0) return undefined;
  if (bytes.byteLength <= MAX_LOGGED_BODY_BYTES && isJsonType(contentType)) {
    try {
      return redactBody(JSON.parse(new TextDecoder().decode(bytes)));
    } catch {
      // not JSON after all: fall through to the size
    }
  }
  return `[body: ${bytes.byteLength} bytes]`;
}

function shortUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** The injected sleep, cut short by a caller's abort (a UserAbortError). */
function wait(
  sleep: (ms: number) => Promise<void>,
  ms: number,
  signals: readonly AbortSignal[],
  s: Settings,
  ro: RequestOptions,
  requestId: string,
): Promise<void> {
  const stage: AbortStage = 'between-attempts';
  const aborted = firstAborted(signals);
  if (aborted) return Promise.reject(abortedByCaller(whereOf(s, ro), stage, aborted.reason, requestId));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      cleanup();
      reject(abortedByCaller(whereOf(s, ro), stage, firstAborted(signals)?.reason, requestId));
    };
    const cleanup = (): void => {
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
    };
    for (const signal of signals) signal.addEventListener('abort', onAbort);
    sleep(ms).then(
      () => {
        cleanup();
        resolve();
      },
      (error: unknown) => {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
