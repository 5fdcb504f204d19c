// Cash request signing as a fetch: X-Client-Id, X-Timestamp and X-Signature are computed over
// the exact bytes about to be sent, at the moment each attempt is sent. It sits inside the
// transport (createTransport({ fetch: cashSigningFetch(…) })), so every retry carries a fresh
// timestamp and nothing can re-serialise the body between signing and sending.
import { undiciFetch } from '@paykit/runtime';
import { signCashRequest } from './signing.ts';

export interface CashSigningOptions {
  /** The cash api_key (32 characters), sent as X-Client-Id. */
  apiKey: string;
  /** The api_secret: the HMAC key. Never sent. */
  apiSecret: string;
  /** The clock of X-Timestamp; default the system clock. */
  now?: () => Date;
  /** What sends the signed request; default the transport's own sender (undici, proxy variables honoured, credentials dropped on a redirect to another origin). */
  fetch?: typeof fetch;
}

export function cashSigningFetch(options: CashSigningOptions): typeof fetch {
  const { apiKey, apiSecret } = options;
  const now = options.now ?? (() => new Date());
  const send = options.fetch ?? undiciFetch;
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    // The bytes the server will receive: the signature covers them and only them.
    const body = new Uint8Array(await request.arrayBuffer());
    const headers = new Headers(request.headers);
    const signed = signCashRequest({ apiKey, apiSecret, body, timestampSeconds: Math.floor(now().getTime() / 1000) });
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    return send(
      new Request(request.url, {
        method: request.method,
        headers,
        body: body.byteLength > 0 ? body : null,
        signal: request.signal,
        redirect: request.redirect,
      }),
    );
  };
}
