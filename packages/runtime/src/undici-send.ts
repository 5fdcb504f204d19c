// The transport's default sender: undici's `request` over one keep-alive pool (an `Agent`, or an
// `EnvHttpProxyAgent` when HTTP_PROXY / HTTPS_PROXY / NO_PROXY are set), answered as a buffered
// Response. Node's `fetch` is undici too, but pays for WHATWG streams and a signal per request;
// `request` is the cheapest way Node has to make a call. What fetch does beyond it is done here:
// redirects are followed as fetch follows them (a 303, and a 301/302 after a POST, become a GET
// without the body; at most 20), except that a redirect to another origin keeps only the headers
// that cannot authenticate (fetch would keep x-api-key and the cash signatures); compressed bodies
// are decoded; an abort rejects with the signal's reason. A `fetch` passed to the transport
// replaces all this.
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { decodeBody } from './decode-body.ts';

export interface SendInit {
  method: string;
  /** Lowercase names, as the transport keeps them. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  signal: AbortSignal;
  redirect: RequestRedirect;
}

export type Send = (url: string, init: SendInit) => Promise<Response>;

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
  return (url, init) => send(dispatcher, url, init, 0, false);
}

/**
 * The body bytes of a Response this sender made without a body stream (see `bufferedBodyOf`).
 * Building a Response around the bytes costs a web stream per call, about a third of what
 * undici.request itself costs; the transport reads the bytes from here instead.
 */
const bodies = new WeakMap<Response, Uint8Array>();

/** The bytes of an answer the default sender buffered (its Response then has no body of its own); undefined for any other Response. */
export function bufferedBodyOf(response: Response): Uint8Array | undefined {
  return bodies.get(response);
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
  'accept', 'accept-encoding', 'accept-language', 'user-agent', 'x-request-id', 'idempotency-key',
  'content-type', 'content-length', 'content-language', 'content-encoding',
]);
/** Statuses whose Response has no body (one given would make the Response constructor throw). */
export const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Parsed URLs of the few endpoints a client calls again and again. */
const urls = new Map<string, URL>();

/** `new URL(url)`, remembered (the transport reads its href, the sender its origin). */
export function parsedUrl(url: string): URL {
  let found = urls.get(url);
  if (found === undefined) {
    found = new URL(url);
    if (urls.size >= 1000) urls.clear();
    urls.set(url, found);
  }
  return found;
}

/** `readable`: the Response carries its body (a fetch's caller reads it); otherwise the bytes are kept aside for `bufferedBodyOf`. */
async function send(dispatcher: Dispatcher, url: string, init: SendInit, hops: number, readable: boolean): Promise<Response> {
  const target = parsedUrl(url);
  // Anything else (data:, a scheme a custom global fetch knows): fetch's own business.
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return globalThis.fetch(url, toFetchInit(init));
  const { signal } = init;
  if (signal.aborted) throw signal.reason;
  const answer = await request(target, {
    dispatcher,
    method: init.method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: init.body,
    signal,
  });
  const status = answer.statusCode;
  const location = answer.headers.location;
  if (REDIRECTS.has(status) && typeof location === 'string' && init.redirect !== 'manual') {
    await answer.body.dump();
    if (init.redirect === 'error') throw new TypeError(`redirect to ${location} refused (redirect: "error")`);
    return send(dispatcher, ...redirected(target, status, location, init, hops), readable);
  }
  // The body is read under the same signal: an abort mid-body rejects here with its reason.
  const bytes = await answer.body.bytes();
  return toResponse(status, answer.statusText, answer.headers, bytes, readable);
}

/** The request a redirect asks for, as fetch makes it (the answer that asked is not sent again). */
function redirected(from: URL, status: number, location: string, init: SendInit, hops: number): [string, SendInit, number] {
  if (hops >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects, the last to ${location}`);
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new TypeError(`a redirect to an address that is not a URL: ${location.slice(0, 200)}`);
  }
  let headers = { ...init.headers };
  let { method, body } = init;
  if (status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (next.origin !== from.origin) {
    headers = Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_HEADERS.has(name)));
  }
  return [next.href, { ...init, method, headers, body }, hops + 1];
}

function toResponse(status: number, statusText: string, raw: Record<string, string | string[] | undefined>, body: Uint8Array, readable: boolean): Response {
  // What a Response can hold (fetch refuses the same answers).
  if (status < 200 || status > 599) throw new TypeError(`the server answered with HTTP status ${status}, which is not a final answer`);
  const headers = new Headers();
  for (const name in raw) {
    const value = raw[name];
    if (typeof value === 'string') headers.append(name, value);
    else if (value !== undefined) for (const one of value) headers.append(name, one);
  }
  // A reason phrase a Response cannot hold (odd characters) is dropped rather than fail the answer.
  const init = { status, statusText: /^[\t\x20-\x7e\x80-\xff]*$/.test(statusText) ? statusText : '', headers };
  if (NULL_BODY_STATUSES.has(status)) return new Response(null, init);
  let bytes = body;
  const encoding = headers.get('content-encoding');
  const decoded = encoding !== null && bytes.byteLength > 0 ? decodeBody(bytes, encoding) : undefined;
  if (decoded !== undefined) {
    bytes = decoded;
    // The bytes are decoded: a consumer must not decode them again.
    headers.delete('content-encoding');
  }
  if (readable) return new Response(bytes as Uint8Array<ArrayBuffer>, init);
  const response = new Response(null, init);
  bodies.set(response, bytes);
  return response;
}

function toFetchInit(init: SendInit): RequestInit {
  return { method: init.method, headers: init.headers, body: init.body as Uint8Array<ArrayBuffer> | undefined, signal: init.signal, redirect: init.redirect };
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
  return send(dispatcherFromEnvironment(), request.url, { method: request.method, headers, body, signal: request.signal, redirect: request.redirect }, 0, true);
}
