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

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const headers = init?.headers;
  if (!headers) return {};
  if (headers instanceof Headers) return Object.fromEntries(headers.entries());
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  return { ...(headers as Record<string, string>) };
}

function bodyOf(init: RequestInit | undefined): unknown {
  const body = init?.body;
  if (body === undefined || body === null) return undefined;
  const text = typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : '[stream]';
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
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
    captured = { method, url, headers: redactHeaders(headersOf(init)), body: redactBody(bodyOf(init)) };
    throw new DryRunStop(captured);
  };
}
