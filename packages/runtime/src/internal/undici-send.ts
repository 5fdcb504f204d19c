// The transport's default sender: undici's dispatcher API over one keep-alive pool (an `Agent`, or
// an `EnvHttpProxyAgent` when HTTP_PROXY / HTTPS_PROXY / NO_PROXY are set), the answer collected
// as status, headers and body bytes. Node's `fetch` is undici too, but pays for WHATWG streams,
// Headers and a signal per request; `undici.request` for a Readable body stream and an async
// resource per request; a dispatch handler that gathers the bytes pays for neither. What fetch
// does beyond it is done here: redirects are followed as fetch follows them (a 303, and a 301/302
// after a POST, become a GET without the body; at most 20), except that a redirect to another
// origin keeps only the headers that cannot authenticate (fetch would keep x-api-key and the cash
// signatures); compressed bodies are decoded; an abort rejects with its reason, whenever it comes
// (waiting for a connection, for the answer, or mid-body). A `fetch` passed to the transport
// replaces all this.
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { decodeBody } from './decode-body.ts';

export interface SendInit {
  method: string;
  /** Lowercase names, as the transport keeps them. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  redirect: RequestRedirect;
}

/** Response headers as undici parses them: lowercase names, a list for a repeated header. */
export type AnswerHeaders = Record<string, string | string[] | undefined>;

/** One answer, read to its end. */
export interface Answer {
  status: number;
  statusText: string;
  headers: AnswerHeaders;
  /** The body, every Content-Encoding undone (undefined for a status outside 200–599, which only a custom fetch gives). */
  bytes: Uint8Array<ArrayBuffer> | undefined;
  /** A custom fetch's own Response (its body read into `bytes`). */
  response?: Response;
}

/**
 * How the transport cuts an attempt short (its deadline, a caller's abort): a flag, a reason and
 * one listener, where an AbortController would cost an EventTarget and its listeners per attempt.
 */
export class Abort {
  aborted = false;
  reason: unknown = undefined;
  #listener: ((reason: unknown) => void) | undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.(reason);
  }

  /** The one listener told of the abort (undefined: none). */
  listen(listener: ((reason: unknown) => void) | undefined): void {
    this.#listener = listener;
  }
}

export type Send = (url: string, init: SendInit, abort: Abort) => Promise<Answer>;

/** The value of a response header, as Headers#get gives it (a repeated header joined with ", "); null when absent. */
export function headerOf(headers: AnswerHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return typeof value === 'string' ? value : value.join(', ');
}

// An idle connection is closed after 4 s, or a second before the server's announced Keep-Alive
// timeout: a request is never written to a connection the server is closing at that moment.
const POOL_OPTIONS = { keepAliveTimeout: 4_000, keepAliveTimeoutThreshold: 1_000 } as const;
const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy'] as const;

/** One pool per proxy configuration, shared by every transport created under it. */
const pools = new Map<string, Dispatcher>();

/** The pool for the proxy variables as they are now: a plain keep-alive Agent when none is set. */
export function dispatcherFromEnvironment(env: NodeJS.ProcessEnv = process.env): Dispatcher {
  const values = PROXY_VARIABLES.map((name) => env[name] ?? '');
  const key = values.join('\n');
  let pool = pools.get(key);
  if (pool === undefined) {
    const proxied = values.slice(0, 4).some((value) => value !== '');
    pool = proxied ? new EnvHttpProxyAgent(POOL_OPTIONS) : new Agent(POOL_OPTIONS);
    pools.set(key, pool);
  }
  return pool;
}

/** A sender over `dispatcher` (default: the pool the proxy variables choose when it is made). */
export function undiciSend(dispatcher: Dispatcher = dispatcherFromEnvironment()): Send {
  return (url, init, abort) => send(dispatcher, url, init, abort, 0);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** fetch's limit. */
const MAX_REDIRECTS = 20;
/** Headers that describe a body: dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];
/**
 * The only request headers a redirect to another origin keeps. An allowlist, not a list of
 * credentials: x-api-key, Authorization, cookies, the cash signature headers and any header a
 * product adds for auth later must never reach a host the request was not meant for.
 */
const CROSS_ORIGIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'x-request-id',
  'idempotency-key',
  'content-type',
  'content-length',
  'content-language',
  'content-encoding',
]);
/** Statuses whose Response has no body (one given would make the Response constructor throw). */
export const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Parsed URLs of the few endpoints a client calls again and again. */
const urls = new Map<string, URL>();
/** The last one asked for: a URL built anew for each call is a new string, costlier to hash than to compare. */
let last: { url: string; parsed: URL } | undefined;

/** `new URL(url)`, remembered (the transport reads its href, the sender its origin and path). */
export function parsedUrl(url: string): URL {
  if (last !== undefined && last.url === url) return last.parsed;
  let found = urls.get(url);
  if (found === undefined) {
    found = new URL(url);
    if (urls.size >= 1000) urls.clear();
    urls.set(url, found);
  }
  last = { url, parsed: found };
  return found;
}

async function send(dispatcher: Dispatcher, url: string, init: SendInit, abort: Abort, hops: number): Promise<Answer> {
  const target = parsedUrl(url);
  // Anything else (data:, a scheme a custom global fetch knows): fetch's own business.
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return fetchSend(globalThis.fetch)(url, init, abort);
  const answer = await exchange(dispatcher, target, init, abort);
  const { status, headers } = answer;
  const location = headers.location;
  if (REDIRECTS.has(status) && typeof location === 'string' && init.redirect !== 'manual') {
    if (init.redirect === 'error') throw new TypeError(`redirect to ${location} refused (redirect: "error")`);
    return send(dispatcher, ...redirected(target, status, location, init, hops), abort, hops + 1);
  }
  // What a Response can hold (fetch refuses the same answers).
  if (status < 200 || status > 599)
    throw new TypeError(`the server answered with HTTP status ${status}, which is not a final answer`);
  const encoding = headerOf(headers, 'content-encoding');
  if (encoding !== null && answer.bytes !== undefined && answer.bytes.byteLength > 0) {
    const decoded = decodeBody(answer.bytes, encoding);
    if (decoded !== undefined) {
      answer.bytes = decoded as Uint8Array<ArrayBuffer>;
      // The bytes are decoded: a consumer must not decode them again.
      delete headers['content-encoding'];
    }
  }
  return answer;
}

/** One request on the pool, its answer read to the end; rejects with the abort's reason as soon as it aborts. */
function exchange(dispatcher: Dispatcher, target: URL, init: SendInit, abort: Abort): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    if (abort.aborted) return reject(abort.reason);
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let statusText = '';
    let headers: AnswerHeaders = {};
    const chunks: Buffer[] = [];
    let length = 0;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      abort.listen(undefined);
      reject(error);
    };
    // Waiting for a connection, the request is not started yet: the promise settles now, and the
    // request is aborted as soon as it starts (onRequestStart).
    abort.listen((reason) => {
      controller?.abort(reason instanceof Error ? reason : new Error(String(reason)));
      fail(reason);
    });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (abort.aborted)
          started.abort(abort.reason instanceof Error ? abort.reason : new Error(String(abort.reason)));
      },
      onResponseStart(_controller, statusCode, responseHeaders, statusMessage) {
        // 1xx are informational: the answer follows.
        if (statusCode < 200) return;
        status = statusCode;
        statusText = statusMessage ?? '';
        headers = responseHeaders as AnswerHeaders;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
        length += chunk.byteLength;
      },
      onResponseEnd() {
        if (settled) return;
        settled = true;
        abort.listen(undefined);
        resolve({ status, statusText, headers, bytes: joined(chunks, length) });
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.pathname + target.search,
          method: init.method as Dispatcher.HttpMethod,
          headers: init.headers,
          body: init.body,
        },
        handler,
      );
    } catch (error) {
      fail(error);
    }
  });
}

/** The body's chunks as one Uint8Array: a view of the one chunk a small answer comes in (undici hands over chunks it no longer uses), else a copy. */
function joined(chunks: readonly Buffer[], length: number): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1) {
    const [chunk] = chunks as [Buffer];
    return new Uint8Array(chunk.buffer as ArrayBuffer, chunk.byteOffset, chunk.byteLength);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The request a redirect asks for, as fetch makes it (the answer that asked is not sent again). */
function redirected(from: URL, status: number, location: string, init: SendInit, hops: number): [string, SendInit] {
  if (hops >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects, the last to ${location}`);
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TypeError(`a redirect to an address that is not a URL: ${location.slice(0, 200)}`);
  }
  let headers = { ...init.headers };
  let { method, body } = init;
  if (
    status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST'
  ) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (next.origin !== from.origin) {
    headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name)));
  }
  return [next.href, { ...init, method, headers, body }];
}

/** A sender over a fetch (a custom one, or the global fetch for a scheme undici does not speak): its Response, the body read under the abort. */
export function fetchSend(fetchFn: typeof fetch): Send {
  return async (url, init, abort) => {
    const controller = new AbortController();
    if (abort.aborted) controller.abort(abort.reason);
    else abort.listen((reason) => controller.abort(reason));
    try {
      const response = await fetchFn(url, {
        method: init.method,
        headers: init.headers,
        body: init.body as Uint8Array<ArrayBuffer> | undefined,
        signal: controller.signal,
        redirect: init.redirect,
      });
      const headers: AnswerHeaders = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      // fetch has decoded the body: a consumer of the bytes must not decode them again.
      delete headers['content-encoding'];
      // A status outside 200–599 (an opaque redirect) has no body to read.
      const bytes =
        response.status < 200 || response.status > 599 ? undefined : new Uint8Array(await response.arrayBuffer());
      return { status: response.status, statusText: response.statusText, headers, bytes, response };
    } finally {
      abort.listen(undefined);
    }
  };
}

/** The answer as a Response whose body can be read (null for a status that cannot have one). */
export function toResponse(answer: Answer): Response {
  const { status, statusText, bytes } = answer;
  const headers = new Headers();
  for (const name in answer.headers) {
    const value = answer.headers[name];
    if (typeof value === 'string') headers.append(name, value);
    else if (value !== undefined) for (const one of value) headers.append(name, one);
  }
  // A reason phrase a Response cannot hold (odd characters) is dropped rather than fail the answer.
  const init = { status, statusText: /^[\t\x20-\x7e\x80-\xff]*$/.test(statusText) ? statusText : '', headers };
  return new Response(NULL_BODY_STATUSES.has(status) || bytes === undefined ? null : bytes, init);
}

/**
 * A `fetch` over the same sender (the pool the proxy variables choose): for a fetch-shaped step
 * inside the transport (cash's request signing) that must send the way the transport does,
 * redirects to another origin included.
 */
export async function undiciFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const abort = new Abort();
  const { signal } = request;
  if (signal.aborted) throw signal.reason;
  const onAbort = (): void => abort.abort(signal.reason);
  signal.addEventListener('abort', onAbort);
  try {
    return toResponse(
      await send(
        dispatcherFromEnvironment(),
        request.url,
        { method: request.method, headers, body, redirect: request.redirect },
        abort,
        0,
      ),
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
