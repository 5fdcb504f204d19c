// The transport's default sender: one request over node:http or node:https with a keep-alive
// agent, answered as a buffered Response. Node's `fetch` (undici) costs this machine about 240–275
// µs of CPU per call on a small JSON GET, and more for every AbortSignal it is given (a listener, a
// weak reference and a finalizer per request); node:http costs 160–190 µs. What `fetch` does that
// node:http does not is done here too: redirects are followed as fetch follows them (a 303, and a
// 301/302 after a POST, become a GET without the body; Authorization and cookies stay on the
// origin; at most 20), compressed bodies are decoded, a POST without a body says Content-Length: 0,
// and an abort rejects with the signal's reason. A `fetch` passed to the transport replaces all this.
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

export interface SendInit {
  method: string;
  /** Lowercase names, as the transport keeps them. */
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  signal: AbortSignal;
  redirect: RequestRedirect;
}

export type Send = (url: string, init: SendInit) => Promise<Response>;

// An idle connection is closed after 4 s, or sooner when the server's Keep-Alive header announces
// a shorter timeout (Node's agent then keeps a second's margin): a request is never written to a
// connection the server is closing at that moment (ECONNRESET), which undici avoids the same way.
const IDLE_MS = 4_000;
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: IDLE_MS }),
  'https:': new https.Agent({ keepAlive: true, timeout: IDLE_MS }),
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** fetch's limit. */
const MAX_REDIRECTS = 20;
/** Headers that describe a body: dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];
/** Headers that only the origin they were meant for may see. */
const ORIGIN_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];
/** Statuses whose Response has no body (one given would make the Response constructor throw). */
export const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Methods node:http would send with chunked encoding when no length is given (fetch sends Content-Length: 0). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Parsed URLs of the few endpoints a client calls again and again. */
const urls = new Map<string, URL>();

/** `new URL(url)`, remembered (the transport reads its href, the sender its parts). */
export function parsedUrl(url: string): URL {
  let found = urls.get(url);
  if (found === undefined) {
    found = new URL(url);
    if (urls.size >= 1000) urls.clear();
    urls.set(url, found);
  }
  return found;
}

export const nodeSend: Send = (url, init) => send(url, init, 0);

function send(url: string, init: SendInit, hops: number): Promise<Response> {
  const target = parsedUrl(url);
  const agent = target.protocol === 'http:' || target.protocol === 'https:' ? agents[target.protocol] : undefined;
  // Anything else (data:, a scheme a custom global fetch knows): fetch's own business.
  if (agent === undefined) return globalThis.fetch(url, toFetchInit(init));
  const { signal } = init;
  if (signal.aborted) return Promise.reject(signal.reason);
  // The length fetch would have sent (a copy: the transport's record is sent again on a retry, maybe by fetch).
  const length = init.body !== undefined ? String(init.body.byteLength) : BODY_METHODS.has(init.method) ? '0' : undefined;
  const headers = length === undefined || init.headers['content-length'] !== undefined ? init.headers : { ...init.headers, 'content-length': length };
  const module = target.protocol === 'https:' ? https : http;

  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const request = module.request(target, { method: init.method, headers, agent }, (incoming) => {
      const status = incoming.statusCode ?? 0;
      const location = incoming.headers.location;
      if (REDIRECTS.has(status) && location !== undefined && init.redirect !== 'manual') {
        incoming.resume();
        if (init.redirect === 'error') return finish(() => reject(new TypeError(`redirect to ${location} refused (redirect: "error")`)));
        return finish(() => {
          try {
            resolve(send(...redirected(target, status, location, init, hops)));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      }
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      // A connection cut mid-body is an 'error' (ECONNRESET); a close without 'end' is the same loss.
      incoming.on('error', (error) => finish(() => reject(error)));
      incoming.once('close', () => finish(() => reject(Object.assign(new Error('the connection closed before the whole answer arrived'), { code: 'ECONNRESET' }))));
      incoming.once('end', () => {
        finish(() => {
          try {
            resolve(toResponse(status, incoming.statusMessage ?? '', incoming.rawHeaders, chunks));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
    });
    const onAbort = (): void => {
      request.destroy();
      finish(() => reject(signal.reason));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // `on`, not `once`: a second 'error' after the first (a destroyed socket) must not crash the process.
    request.on('error', (error) => finish(() => reject(error)));
    request.end(init.body);
  });
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
  const headers = { ...init.headers };
  let { method, body } = init;
  if (status === 303 ? method !== 'GET' && method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) delete headers[name];
  }
  if (next.origin !== from.origin) for (const name of ORIGIN_HEADERS) delete headers[name];
  return [next.href, { ...init, method, headers, body }, hops + 1];
}

function toResponse(status: number, statusText: string, rawHeaders: string[], chunks: Buffer[]): Response {
  // What a Response can hold (fetch refuses the same answers).
  if (status < 200 || status > 599) throw new TypeError(`the server answered with HTTP status ${status}, which is not a final answer`);
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
  // A reason phrase a Response cannot hold (odd characters) is dropped rather than fail the answer.
  const init = { status, statusText: /^[\t\x20-\x7e\x80-\xff]*$/.test(statusText) ? statusText : '', headers };
  if (NULL_BODY_STATUSES.has(status)) return new Response(null, init);
  let body: Uint8Array = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const encoding = headers.get('content-encoding');
  const decoded = encoding !== null && body.byteLength > 0 ? decode(body, encoding) : undefined;
  if (decoded !== undefined) {
    body = decoded;
    // The bytes are decoded: a consumer must not decode them again.
    headers.delete('content-encoding');
  }
  return new Response(body as Uint8Array<ArrayBuffer>, init);
}

const KNOWN_CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br', ...('zstdDecompressSync' in zlib ? ['zstd'] : [])]);

/** A body as fetch would give it: every coding of Content-Encoding undone, last applied first; undefined (the bytes as sent, like fetch) for a coding it does not know. */
function decode(body: Uint8Array, contentEncoding: string): Uint8Array | undefined {
  let bytes = body;
  const codings = contentEncoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0 || !codings.every((coding) => KNOWN_CODINGS.has(coding))) return undefined;
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') bytes = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    else if (coding === 'deflate') bytes = bytes[0] !== undefined && (bytes[0] & 0x0f) === 8 ? zlib.inflateSync(bytes) : zlib.inflateRawSync(bytes);
    else if (coding === 'br') bytes = zlib.brotliDecompressSync(bytes);
    else bytes = (zlib as unknown as { zstdDecompressSync(b: Uint8Array): Buffer }).zstdDecompressSync(bytes);
  }
  return bytes;
}

function toFetchInit(init: SendInit): RequestInit {
  return { method: init.method, headers: init.headers, body: init.body as Uint8Array<ArrayBuffer> | undefined, signal: init.signal, redirect: init.redirect };
}
