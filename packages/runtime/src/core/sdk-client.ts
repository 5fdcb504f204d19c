// The client each product's generated SDK calls, a lean hey-api fetch client (the SDK is generated
// without hey-api's own, against sdk-types.ts): the subset the generated SDK functions call — request/get/post/put/patch/
// delete/head/options — with the same semantics (auth per security scheme, path and query
// serialisation, JSON bodies, `{ data, error, response }` results, `error` = the parsed body of a
// non-2xx), but without hey-api's per-call config merge, `new Request(...)` and a second read of
// the response. When its fetch is one a transport handed out (transport.fetch, transport.with(...),
// the usual case through invoke), it hands the request to the transport directly and parses the
// bytes the transport already buffered; any other fetch gets a Request, as with hey-api.
import { SentResult, noResponseValidation, senderOf } from '../internal/sender.ts';
import type { Client } from './sdk-types.ts';
import type { TransportResult } from './transport.ts';

/** A security scheme of an SDK operation, as the generated code writes it. */
export interface SdkAuthScheme {
  type: 'apiKey' | 'http';
  scheme?: 'basic' | 'bearer';
  /** Header (or query/cookie) name; default Authorization. */
  name?: string;
  in?: 'header' | 'query' | 'cookie';
  key?: string;
}

/** The token of a scheme (an API key, a bearer token), or undefined to send none for it. */
export type SdkAuth =
  | string
  | undefined
  | ((scheme: SdkAuthScheme) => string | undefined | Promise<string | undefined>);

type HeaderValue =
  | string
  | number
  | boolean
  | readonly (string | number | boolean)[]
  | Record<string, unknown>
  | null
  | undefined;
export type SdkHeaders = Headers | Record<string, HeaderValue>;

export interface SdkClientConfig {
  baseUrl: string;
  /** Normally a transport's fetch (transport.fetch). */
  fetch?: typeof fetch;
  auth?: SdkAuth;
  /** Sent with every request (merged under each call's own headers). */
  headers?: SdkHeaders;
}

type ParseAs = 'arrayBuffer' | 'auto' | 'blob' | 'formData' | 'json' | 'stream' | 'text';

/** What a generated SDK function (or a hand-written `sdk.request(...)`) passes. */
export interface SdkRequestOptions {
  method?: string;
  /** The path template, e.g. /v1/clients/{clientId}/webhooks. */
  url: string;
  baseUrl?: string;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: SdkHeaders;
  security?: readonly SdkAuthScheme[];
  auth?: SdkAuth;
  fetch?: typeof fetch;
  signal?: AbortSignal | null;
  requestValidator?: (data: unknown) => Promise<unknown>;
  responseValidator?: (data: unknown) => Promise<unknown>;
  responseTransformer?: (data: unknown) => Promise<unknown>;
  bodySerializer?: ((body: unknown) => unknown) | null;
  querySerializer?: ((query: Record<string, unknown>) => string) | object;
  parseAs?: ParseAs;
  responseStyle?: 'data' | 'fields';
  throwOnError?: boolean;
}

export interface SdkClientResult {
  data?: unknown;
  error?: unknown;
  response?: Response;
  request?: Request;
}

type Method = (options: SdkRequestOptions) => Promise<unknown>;

/** The members of a generated hey-api `Client` this client implements. */
export interface SdkClientShape {
  request: Method;
  get: Method;
  post: Method;
  put: Method;
  patch: Method;
  delete: Method;
  head: Method;
  options: Method;
}

/**
 * The SDK client of a product, e.g. `createSdkClient({ baseUrl, fetch: transport.fetch, auth })`:
 * give the result to the generated SDK functions as `client`.
 *
 * The one cast of this module is here: `Client` (sdk-types.ts) declares each method generic in
 * the operation's response and error maps, which TypeScript cannot relate to one implementation;
 * the methods take the options described by SdkRequestOptions and answer as hey-api's client
 * does, which is what the SDK functions rely on.
 */
export function createSdkClient<TClient extends object = Client>(config: SdkClientConfig): TClient {
  const client = buildClient(config);
  return client as unknown as TClient;
}

const DEFAULT_HEADERS: Record<string, string> = { 'Content-Type': 'application/json' };

function buildClient(config: SdkClientConfig): SdkClientShape {
  const baseUrl = config.baseUrl.endsWith('/') ? config.baseUrl.slice(0, -1) : config.baseUrl;
  // hey-api's config headers: its default Content-Type under the configured ones, merged once.
  // (Copied into fresh records: one that lost a key to `delete` is a slow dictionary to copy per call.)
  const merged = mergeHeaders(DEFAULT_HEADERS, config.headers);
  const all: HeaderRecord = {};
  const bodyless: HeaderRecord = {};
  for (const name of Object.keys(merged)) {
    all[name] = merged[name]!;
    if (name !== 'content-type') bodyless[name] = merged[name]!;
  }
  const client: ClientState = { baseUrl, config, all, bodyless, templates: new Map(), auth: undefined };
  const request: Method = (options) => send(client, options, options.method ?? 'GET');
  const method =
    (name: string): Method =>
    (options) =>
      send(client, options, name);
  return {
    request,
    get: method('GET'),
    post: method('POST'),
    put: method('PUT'),
    patch: method('PATCH'),
    delete: method('DELETE'),
    head: method('HEAD'),
    options: method('OPTIONS'),
  };
}

/** Headers as this client builds them: a record with lowercase names (what the transport sends as it is). */
type HeaderRecord = Record<string, string>;

/** What one SDK client works from: its configuration, prepared once. */
interface ClientState {
  baseUrl: string;
  config: SdkClientConfig;
  /** The config headers (hey-api's default Content-Type under the configured ones), and the same without Content-Type. */
  all: HeaderRecord;
  bodyless: HeaderRecord;
  /** Each path template of this client's base URL, split once (see templateParts). */
  templates: Map<string, string[]>;
  /** The last auth header set, checked: a client sends the same token call after call. */
  auth:
    | { scheme: SdkAuthScheme['scheme']; target: string | undefined; raw: string; name: string; value: string }
    | undefined;
}

async function send(client: ClientState, options: SdkRequestOptions, method: string): Promise<unknown> {
  const { config, baseUrl } = client;
  let request: Request | undefined;
  let response: Response | undefined;
  let sent: TransportResult | undefined;
  try {
    // Body-less requests start from the config headers without hey-api's default Content-Type,
    // which it would delete below anyway.
    const headers: HeaderRecord = { ...(options.body === undefined ? client.bodyless : client.all) };
    const own = options.headers;
    if (own) {
      if (own instanceof Headers) own.forEach((value, key) => mergeHeader(headers, key, value));
      else for (const key of Object.keys(own)) mergeHeader(headers, key, own[key]);
    }
    let query = options.query;
    if (options.security) {
      const tokens = tokensOf(options.security, options.auth ?? config.auth);
      query = setAuth(client, options.security, tokens instanceof Promise ? await tokens : tokens, headers, query);
    }
    // hey-api runs requestValidator on every call, and each generated validator builds its zod
    // schema (z.object({ body, path, query })) anew per call. Only a body or a query can carry a
    // caller's mistake the platform would not report itself, so requests with neither (GETs and
    // DELETEs by path) skip it: their path values come from the client's own validated options.
    if (options.requestValidator && (options.body !== undefined || options.query !== undefined)) {
      await options.requestValidator({ ...options, method, headers, query });
    }
    let body: unknown = options.body;
    if (body !== undefined) {
      const serializer = options.bodySerializer === undefined ? jsonBodySerializer : options.bodySerializer;
      if (serializer) {
        const serialized = serializer(body);
        body = serialized === undefined || serialized === '' ? null : serialized;
        if (serialized === '') delete headers['content-type'];
      }
    } else if (own) {
      delete headers['content-type'];
    }
    const url = buildUrl(
      options.baseUrl ?? baseUrl,
      options.url,
      options.path,
      query,
      options.querySerializer,
      options.baseUrl === undefined ? client.templates : undefined,
    );
    const fetchFn = options.fetch ?? config.fetch ?? globalThis.fetch;
    const sender = senderOf(fetchFn);
    if (sender && (body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)) {
      sent = await sender({
        url,
        method,
        headers,
        body: body === null || body === undefined ? undefined : (body as string | Uint8Array<ArrayBuffer>),
        signal: options.signal ?? undefined,
        redirect: 'follow',
      });
      const bytes = sent.bytes;
      if (bytes && isPlainJson(options, sent.status, sent.header('content-type'), bytes)) {
        // The usual answer: JSON, read from the bytes the transport already has (no Response, and
        // no async hop unless a validator or transformer needs one).
        let data: unknown = JSON.parse(decoder.decode(bytes));
        const validator = options.responseValidator;
        if (validator && validator !== noResponseValidation) await validator(data);
        if (options.responseTransformer) data = await options.responseTransformer(data);
        return options.responseStyle === 'data' ? data : new SentResult(data, sent);
      }
      response = sent.response;
      return await readResult(options, response, bytes, undefined);
    }
    request = new Request(url, {
      redirect: 'follow',
      method,
      headers,
      body: body as BodyInit | null | undefined,
      signal: options.signal ?? null,
    });
    response = await fetchFn(request);
    return await readResult(options, response, undefined, request);
  } catch (error) {
    const finalError = error || {};
    if (options.throwOnError) throw finalError;
    return options.responseStyle === 'data'
      ? undefined
      : withRequest({ error: finalError, response: response ?? sent?.response }, request);
  }
}

function withRequest(result: SdkClientResult, request: Request | undefined): SdkClientResult {
  if (request) result.request = request;
  return result;
}

const decoder = new TextDecoder();

/** A 2xx with a JSON body and no parseAs of the caller's: read from the bytes at once. */
function isPlainJson(
  options: SdkRequestOptions,
  status: number,
  contentType: string | null,
  bytes: Uint8Array<ArrayBuffer>,
): boolean {
  return (
    status >= 200 &&
    status <= 299 &&
    status !== 204 &&
    bytes.byteLength > 0 &&
    options.parseAs === undefined &&
    isJson(contentType)
  );
}

/**
 * The response as hey-api's client reads it. `bytes`: the body the transport already read; the
 * rare non-JSON, non-text readings get a Response over those bytes.
 */
async function readResult(
  options: SdkRequestOptions,
  response: Response,
  bytes: Uint8Array<ArrayBuffer> | undefined,
  request: Request | undefined,
): Promise<unknown> {
  const text = async (): Promise<string> => (bytes ? decoder.decode(bytes) : await response.text());
  const body = (): Response =>
    bytes ? new Response(bytes.byteLength === 0 ? null : bytes, { headers: response.headers }) : response;
  const answer = (data: unknown): unknown =>
    options.responseStyle === 'data' ? data : withRequest({ data, response }, request);
  if (response.ok) {
    const parseAs =
      (options.parseAs === undefined || options.parseAs === 'auto'
        ? parseAsOf(response.headers.get('Content-Type'))
        : options.parseAs) ?? 'json';
    // (With the bytes at hand, an empty body reads the same as Content-Length: 0 below.)
    if (response.status === 204 || (bytes ? bytes.byteLength === 0 : response.headers.get('Content-Length') === '0')) {
      if (parseAs === 'text') return answer(await text());
      if (parseAs === 'arrayBuffer' || parseAs === 'blob') return answer(await body()[parseAs]());
      if (parseAs === 'formData') return answer(new FormData());
      if (parseAs === 'stream') return answer(body().body);
      return answer({});
    }
    switch (parseAs) {
      case 'arrayBuffer':
      case 'blob':
      case 'formData':
        return answer(await body()[parseAs]());
      case 'text':
        return answer(await text());
      case 'stream':
        return answer(body().body);
      case 'json': {
        // Some servers answer 200 with an empty body: {} as hey-api does.
        const raw = await text();
        let data: unknown = raw ? (JSON.parse(raw) as unknown) : {};
        if (options.responseValidator) await options.responseValidator(data);
        if (options.responseTransformer) data = await options.responseTransformer(data);
        return answer(data);
      }
    }
  }
  const raw = await text();
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // not JSON: the text is the error
  }
  throw json ?? raw;
}

function isJson(contentType: string | null): boolean {
  return contentType !== null && parseAsOf(contentType) === 'json';
}

/** hey-api's getParseAs: what a Content-Type says about how to read the body. */
function parseAsOf(contentType: string | null): Exclude<ParseAs, 'auto'> | undefined {
  if (!contentType) return 'stream';
  if (contentType.startsWith('application/json')) return 'json';
  const clean = contentType.split(';')[0]?.trim();
  if (!clean) return undefined;
  if (clean.startsWith('application/json') || clean.endsWith('+json')) return 'json';
  if (clean === 'multipart/form-data') return 'formData';
  if (['application/', 'audio/', 'image/', 'video/'].some((type) => clean.startsWith(type))) return 'blob';
  if (clean.startsWith('text/')) return 'text';
  return undefined;
}

/** hey-api's jsonBodySerializer: bigints as their decimal text. */
function jsonBodySerializer(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
}

/** hey-api's mergeHeaders: null deletes, arrays append, objects are sent as JSON, undefined is skipped. */
function mergeHeaders(...sources: (SdkHeaders | undefined)[]): HeaderRecord {
  const merged: HeaderRecord = {};
  for (const source of sources) {
    if (source instanceof Headers) source.forEach((value, key) => mergeHeader(merged, key, value));
    else if (source) for (const key of Object.keys(source)) mergeHeader(merged, key, source[key]);
  }
  return merged;
}

function mergeHeader(merged: HeaderRecord, key: string, value: HeaderValue): void {
  const name = headerName(key);
  if (value === null) delete merged[name];
  else if (Array.isArray(value)) for (const v of value as readonly unknown[]) appendHeader(merged, name, String(v));
  else if (value !== undefined)
    merged[name] = headerValue(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** Headers#append: a second value joins the first (cookies with "; "). */
function appendHeader(headers: HeaderRecord, name: string, value: string): void {
  const checked = headerValue(name, value);
  const existing = headers[name];
  headers[name] = existing === undefined ? checked : `${existing}${name === 'cookie' ? '; ' : ', '}${checked}`;
}

// What a Headers object checks and normalises, so a bad header fails here (before sending, as it
// did with hey-api's Headers), not as a network error of fetch.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const INVALID_VALUE = /[\0\r\n]/;

function headerName(name: string): string {
  if (!TOKEN.test(name)) throw new TypeError(`Headers: invalid header name "${name}"`);
  return name.toLowerCase();
}

function headerValue(name: string, value: string): string {
  const normalised =
    value.length > 0 && (value.charCodeAt(0) <= 32 || value.charCodeAt(value.length - 1) <= 32)
      ? value.replace(EDGE_WHITESPACE, '')
      : value;
  if (INVALID_VALUE.test(normalised)) throw new TypeError(`Headers: invalid value for header "${name}"`);
  return normalised;
}

/** The token of each scheme (the auth callback is asked once per scheme, as hey-api does). */
function tokensOf(
  security: readonly SdkAuthScheme[],
  auth: SdkAuth,
): (string | undefined)[] | Promise<(string | undefined)[]> {
  const tokens: (string | undefined | Promise<string | undefined>)[] = [];
  let pending = false;
  for (const scheme of security) {
    const token = typeof auth === 'function' ? auth(scheme) : auth;
    if (token instanceof Promise) pending = true;
    tokens.push(token);
  }
  // Synchronous callbacks (every client's) cost no extra promise.
  return pending ? Promise.all(tokens) : (tokens as (string | undefined)[]);
}

/** hey-api's setAuthParams: each scheme's token where the scheme says, unless the caller already set it. Returns the query (a copy when a token joins it). */
function setAuth(
  client: ClientState,
  security: readonly SdkAuthScheme[],
  tokens: readonly (string | undefined)[],
  headers: HeaderRecord,
  query: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  let result = query;
  for (let i = 0; i < security.length; i++) {
    const scheme = security[i]!;
    const name = scheme.name;
    if (
      name &&
      (headers[name.toLowerCase()] !== undefined || result?.[name] || headers['cookie']?.includes(`${name}=`))
    )
      continue;
    const raw = tokens[i];
    if (!raw) continue;
    const last = client.auth;
    if (
      last !== undefined &&
      last.raw === raw &&
      last.scheme === scheme.scheme &&
      last.target === name &&
      scheme.in !== 'query' &&
      scheme.in !== 'cookie'
    ) {
      headers[last.name] = last.value;
      continue;
    }
    const token = scheme.scheme === 'bearer' ? `Bearer ${raw}` : scheme.scheme === 'basic' ? `Basic ${btoa(raw)}` : raw;
    const target = name ?? 'Authorization';
    if (scheme.in === 'query') result = { ...result, [target]: token };
    else if (scheme.in === 'cookie') appendHeader(headers, 'cookie', `${target}=${token}`);
    else {
      const header = {
        scheme: scheme.scheme,
        target: name,
        raw,
        name: headerName(target),
        value: headerValue(target, token),
      };
      headers[header.name] = header.value;
      client.auth = header;
    }
  }
  return result;
}

/** hey-api's getUrl with its default path (simple style) and query (form arrays, deepObject objects) serialisers. */
function buildUrl(
  baseUrl: string,
  template: string,
  path: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
  querySerializer: SdkRequestOptions['querySerializer'],
  templates: Map<string, string[]> | undefined,
): string {
  let url = baseUrl + (template.startsWith('/') ? template : `/${template}`);
  if (path) {
    const parts = templateParts(url, template, templates);
    if (parts.length > 1) {
      url = parts[0]!;
      for (let i = 1; i < parts.length; i += 2) url += (pathValue(path[parts[i]!]) ?? `{${parts[i]}}`) + parts[i + 1];
    }
  }
  let search = query ? (typeof querySerializer === 'function' ? querySerializer(query) : serializeQuery(query)) : '';
  if (search.startsWith('?')) search = search.substring(1);
  return search ? `${url}?${search}` : url;
}

const PATH_PARAM = /\{([^{}]+)\}/;

/**
 * A URL (base URL + template) split: literal, name, literal, name, …, literal. Remembered in
 * `templates` (the client's, for its own base URL) by the template, a literal of the generated
 * code whose hash V8 keeps, where the URL would be a new string to hash on every call.
 */
function templateParts(url: string, template: string, templates: Map<string, string[]> | undefined): string[] {
  let parts = templates?.get(template);
  if (!parts) {
    parts = url.split(PATH_PARAM);
    if (templates && templates.size < 1000) templates.set(template, parts);
  }
  return parts;
}

function pathValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map((v) => encodeURIComponent(String(v))).join(',');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .flatMap(([key, v]) => [key, encodeURIComponent(String(v))])
      .join(',');
  }
  if (typeof value === 'string') {
    // A client sends its own id (the same string) in most paths: encoded once.
    if (value !== lastPathText) {
      lastPathEncoded = encodeURIComponent(value);
      lastPathText = value;
    }
    return lastPathEncoded;
  }
  return encodeURIComponent(String(value as number | boolean));
}

let lastPathText: string | undefined;
let lastPathEncoded = '';

function primitiveParam(name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') {
    throw new Error(
      'Deeply-nested arrays/objects aren’t supported. Provide your own `querySerializer()` to handle these.',
    );
  }
  return `${name}=${encodeURIComponent(String(value as string | number | boolean))}`;
}

function serializeQuery(query: Record<string, unknown>): string {
  const search: string[] = [];
  for (const name of Object.keys(query)) {
    const value = query[name];
    if (value === undefined || value === null) continue;
    let part: string;
    if (Array.isArray(value)) part = value.map((v: unknown) => primitiveParam(name, v)).join('&');
    else if (value instanceof Date) part = `${name}=${value.toISOString()}`;
    else if (typeof value === 'object') {
      part = Object.entries(value as Record<string, unknown>)
        .map(([key, v]) => primitiveParam(`${name}[${key}]`, v))
        .join('&');
    } else part = primitiveParam(name, value);
    if (part) search.push(part);
  }
  return search.join('&');
}
