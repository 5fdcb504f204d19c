// What a successful call's HTTP answer said besides its body: status, headers, request id. The
// operations return the body alone (what a payment flow needs); `withResponse` gives the rest
// to callers that log or audit it, at no cost to those that do not ask.
import { PaykitError } from './errors.ts';
import { redactHeaders } from './redact.ts';

export interface ResponseInfo {
  /** 200, 201, … */
  readonly status: number;
  /** The response headers, lower-case names, credentials and cookies redacted. */
  readonly headers: Record<string, string>;
  /** The id this request was sent and answered with (quote it to the platform's support). */
  readonly requestId: string;
}

/** Where the answer's headers are read when asked for: a Response, or a transport's result (whose Response is made then). */
type HeaderSource = Response | { readonly response: Response };

interface Info {
  status: number;
  source: HeaderSource;
  requestId: string;
}

/**
 * Where a body keeps the answer it came from: a symbol-keyed property that is not enumerable, so
 * no key listing, spread, JSON or deep-equality check sees it (each call's parsed answer is a new
 * object; a WeakMap entry per call cost about as much as parsing a small answer).
 */
const INFO = Symbol('paykit.response');

/** Records the answer a body came from (called by `invoke` for every successful call). */
export function rememberResponse(data: unknown, status: number, source: HeaderSource, requestId: string): void {
  if (typeof data === 'object' && data !== null && Object.isExtensible(data)) {
    Object.defineProperty(data, INFO, { value: { status, source, requestId } satisfies Info, configurable: true });
  }
}

/** The answer an operation's result came from, or undefined for a value no operation returned. */
export function responseOf(data: unknown): ResponseInfo | undefined {
  if (typeof data !== 'object' || data === null || !Object.hasOwn(data, INFO)) return undefined;
  const info = (data as { [INFO]: Info })[INFO];
  let headers: Record<string, string> | undefined;
  return {
    status: info.status,
    requestId: info.requestId,
    get headers() {
      return (headers ??= redactHeaders(
        info.source instanceof Response ? info.source.headers : info.source.response.headers,
      ));
    },
  };
}

/**
 * The result of an operation together with its answer's status, headers and request id:
 * `const { data, response } = await withResponse(core.transactions.moneyOut(body))`. Errors are
 * thrown as the operation throws them (they carry status, headers and request id themselves).
 */
export async function withResponse<T>(call: Promise<T>): Promise<{ data: T; response: ResponseInfo }> {
  const data = await call;
  const response = responseOf(data);
  if (!response) {
    throw new PaykitError(
      'withResponse: the value is not the result of a paykit operation (or the operation answered with no body), so no response is known for it — pass the promise an operation returned, unchanged',
    );
  }
  return { data, response };
}
