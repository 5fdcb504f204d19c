// Not re-exported by index.ts: the link from a fetch a transport handed out to the
// transport's direct sender, so createSdkClient can send without building a Request when its
// fetch is a transport's (the usual case: invoke passes transport.with(...)).
import type { TransportRequest, TransportResult } from '../core/transport.ts';

export type Sender = (request: TransportRequest) => Promise<TransportResult>;

const senders = new WeakMap<typeof fetch, Sender>();

export function registerSender(fetchFn: typeof fetch, sender: Sender): void {
  senders.set(fetchFn, sender);
}

/** The direct sender behind a transport's fetch; undefined for any other fetch. */
export function senderOf(fetchFn: typeof fetch | undefined): Sender | undefined {
  return fetchFn === undefined ? undefined : senders.get(fetchFn);
}

/**
 * The response validator invoke passes in place of the SDK's own (the tolerant reader reads the
 * data instead): the SDK client knows it does nothing and skips the call.
 */
export const noResponseValidation = async (): Promise<void> => {};

/**
 * The SDK client's `{ data, response }` for a JSON 2xx the transport sent: `response` is made only
 * if read, and invoke reads the status, headers and request id from `sent` instead.
 */
export class SentResult {
  readonly data: unknown;
  readonly sent: TransportResult;

  constructor(data: unknown, sent: TransportResult) {
    this.data = data;
    this.sent = sent;
  }

  get response(): Response {
    return this.sent.response;
  }
}
