// Request signing of the cash service: X-Client-Id (a known api_key, 32 characters),
// X-Timestamp (Unix seconds) and X-Signature = hex HMAC-SHA256 of `timestamp + "." + body`
// keyed with the api_secret, checked over the exact bytes received, in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CashHttpError } from './errors.ts';

const API_KEY_LENGTH = 32;

/** Where a signed request's api_secret and the sandbox clock come from. */
export interface SigningContext {
  secretOf(apiKey: string): string | undefined;
  nowMs(): number;
  clockSkewSeconds(): number;
}

/** The raw body of a request, kept by the content-type parsers below. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * Keeps every request body as its raw bytes: the signature covers them exactly, so nothing may
 * re-serialise the body before it is verified. JSON is parsed only after authentication.
 * Any content type is read (not only JSON), so a request with the wrong one still gets its
 * 401 first when it is unsigned.
 */
export function keepRawBodies(app: FastifyInstance): void {
  const keep = (request: FastifyRequest, body: Buffer | string, done: (err: Error | null, body?: unknown) => void) => {
    const raw = typeof body === 'string' ? Buffer.from(body) : body;
    rawBodies.set(request, raw);
    done(null, raw);
  };
  // The two built-in parsers are replaced (allowed in a plugin scope); '*' catches the rest.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, keep);
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, keep);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, keep);
}

/** The exact bytes received; empty for a request without a body (a GET). */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return rawBodies.get(request) ?? Buffer.alloc(0);
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * What is wrong with the signing headers without looking at the body or the signature
 * (missing headers, unknown client id, malformed or stale timestamp); null when nothing is.
 */
export function describeHeaderProblem(ctx: SigningContext, headers: Record<string, unknown>): string | null {
  const clientId = header(headers, 'x-client-id');
  const timestamp = header(headers, 'x-timestamp');
  const signature = header(headers, 'x-signature');
  const missing = [
    clientId === undefined && 'X-Client-Id',
    timestamp === undefined && 'X-Timestamp',
    signature === undefined && 'X-Signature',
  ].filter(Boolean);
  if (missing.length > 0) {
    return `Missing ${missing.join(', ')}: every cash request carries X-Client-Id (the api_key), X-Timestamp (Unix seconds) and X-Signature (hex HMAC-SHA256 of timestamp + "." + body, keyed with the api_secret).`;
  }
  if (clientId!.length !== API_KEY_LENGTH || ctx.secretOf(clientId!) === undefined) {
    return `X-Client-Id is not a known cash api_key (${API_KEY_LENGTH} characters). Check the key and its environment.`;
  }
  if (!/^\d{1,12}$/.test(timestamp!)) {
    return 'X-Timestamp must be the Unix time in whole seconds (digits only) when the request was created.';
  }
  const nowSeconds = Math.floor(ctx.nowMs() / 1000);
  const skew = ctx.clockSkewSeconds();
  const drift = Number(timestamp) - nowSeconds;
  if (Math.abs(drift) > skew) {
    const hint = Number(timestamp) > nowSeconds * 100 ? ' It looks like milliseconds: send seconds.' : '';
    return `X-Timestamp ${timestamp} is ${Math.abs(drift)} s ${drift < 0 ? 'behind' : 'ahead of'} the sandbox clock (now ${nowSeconds}); the accepted skew is ±${skew} s.${hint} Sign each request with the current time.`;
  }
  return null;
}

/** Checks a request's signature; returns its api_key or throws a 401 CashHttpError. */
export function authenticate(ctx: SigningContext, request: FastifyRequest): string {
  const problem = describeHeaderProblem(ctx, request.headers);
  if (problem) throw new CashHttpError(401, problem);
  const apiKey = header(request.headers, 'x-client-id')!;
  const timestamp = header(request.headers, 'x-timestamp')!;
  const signature = header(request.headers, 'x-signature')!.toLowerCase();
  const secret = ctx.secretOf(apiKey)!;
  const expected = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`), rawBodyOf(request)]))
    .digest('hex');
  const given = Buffer.from(signature);
  const wanted = Buffer.from(expected);
  // timingSafeEqual needs equal lengths; a wrong length still costs one comparison.
  const matches = given.length === wanted.length ? timingSafeEqual(given, wanted) : !timingSafeEqual(wanted, wanted);
  if (!matches) {
    throw new CashHttpError(
      401,
      'X-Signature does not match: sign the text X-Timestamp + "." + the exact body bytes sent (empty for a GET) with HMAC-SHA256 keyed with the api_secret, hex-encoded.',
    );
  }
  return apiKey;
}
