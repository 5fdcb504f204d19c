// --dry-run: the command runs through the real client up to the request that would change
// something, which is shown (method, URL, headers with secrets masked, body) instead of sent.
// Reads, and the token the client needs to build that request, go through: they change nothing.
import { redactBody, redactHeaders } from '@paykit/runtime';

/** Thrown by the dry-run fetch once it has captured the request; the command prints it and exits 0. */
export class DryRunStop extends Error {
  override readonly name = 'DryRunStop';
  readonly request: { method: string; url: string; headers: Record<string, string>; body: unknown };
  constructor(request: DryRunStop['request']) {
    super('dry run: request not sent');
    this.request = request;
  }
}

const PASS_THROUGH = /\/auth\/credential-tokens$/;

/**
 * The request as it would leave: headers and body from `init`, or from the Request itself when a
 * client passes one (the cash client signs and sends a Request, its signature headers included).
 */
async function partsOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<{ headers: Headers; body: unknown }> {
  let request: Request;
  try {
    request = new Request(input, init);
  } catch {
    // A streamed body (a Request needs `duplex` for one) is shown as such, not read.
    return { headers: new Headers(init?.headers), body: '[stream]' };
  }
  const text = await request.text();
  if (text === '') return { headers: request.headers, body: undefined };
  try {
    return { headers: request.headers, body: JSON.parse(text) as unknown };
  } catch {
    return { headers: request.headers, body: text };
  }
}

let captured: DryRunStop['request'] | undefined;

/** The request a dry run stopped (the client wraps the stop in its own connection error, so it is kept here). */
export function capturedDryRun(): DryRunStop['request'] | undefined {
  return captured;
}

export function dryRunFetch(next: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (method === 'GET' || PASS_THROUGH.test(new URL(url).pathname)) return next(input, init);
    const { headers, body } = await partsOf(input, init);
    captured = { method, url, headers: redactHeaders(headers), body: redactBody(body) };
    throw new DryRunStop(captured);
  };
}
