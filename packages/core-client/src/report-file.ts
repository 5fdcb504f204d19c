// Fetching a report file from the download_url the platform gave: one GET, read as a stream under
// a deadline that covers the whole body, refused past a size limit, decoded as strict UTF-8. The
// address is a capability (it may carry a signature in its query): no credentials are sent to it,
// and messages name only its origin and path, never the query.
import { randomUUID } from 'node:crypto';
import { ConnectionError, DEFAULT_TIMEOUT_MS, PaykitError, TimeoutError, abortedByCaller } from '@paykit/runtime';

/** A report file larger than this is refused unless `maxBytes` says otherwise (a day of a busy client is a few MB). */
export const DEFAULT_REPORT_FILE_MAX_BYTES = 64 * 1024 * 1024;

export interface ReportFileOptions {
  /** The whole exchange, headers and body (default: the client's timeoutMs). */
  timeoutMs?: number;
  /** Refuse a file larger than this many bytes (default 64 MiB). */
  maxBytes?: number;
  signal?: AbortSignal;
  /** The fetch that sends (default: the client's `fetch`, else the global one). */
  fetch?: typeof fetch;
}

/** The file could not be used: an HTTP error status, too large, or not UTF-8 text. Try again later or ask for a new address. */
export class ReportFileError extends PaykitError {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export async function fetchReportFile(downloadUrl: string, options: ReportFileOptions = {}): Promise<string> {
  let url: URL;
  try {
    url = new URL(downloadUrl);
  } catch {
    throw new ReportFileError('download_url is not an absolute URL: ask reports.download for the file again');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ReportFileError(`download_url must be http(s), got ${url.protocol}`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_REPORT_FILE_MAX_BYTES;
  const send = options.fetch ?? globalThis.fetch;
  const requestId = randomUUID();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no file within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const where = `report file ${describe(url)}`;
  try {
    if (options.signal?.aborted) throw abortedByCaller(where, 'before-sending', options.signal.reason);
    let response: Response;
    try {
      response = await send(url.href, {
        method: 'GET',
        headers: { accept: 'text/csv, text/plain, */*', 'x-request-id': requestId },
        signal: controller.signal,
        redirect: 'follow',
      });
    } catch (error) {
      throw failure(error, controller, options.signal, where, timeoutMs, requestId);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReportFileError(
        `${where}: HTTP ${response.status} (request id ${requestId}) — the address may have expired: ask reports.download again`,
        response.status,
      );
    }
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReportFileError(`${where}: ${declared} bytes, more than the ${maxBytes} allowed (raise maxBytes)`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    if (response.body) {
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          total += value.byteLength;
          if (total > maxBytes) {
            await reader.cancel().catch(() => undefined);
            throw new ReportFileError(`${where}: more than the ${maxBytes} bytes allowed (raise maxBytes)`);
          }
          chunks.push(value);
        }
      } catch (error) {
        if (error instanceof ReportFileError) throw error;
        throw failure(error, controller, options.signal, where, timeoutMs, requestId);
      }
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ReportFileError(`${where}: the file is not UTF-8 text`);
    }
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function failure(
  error: unknown,
  controller: AbortController,
  signal: AbortSignal | undefined,
  where: string,
  timeoutMs: number,
  requestId: string,
): unknown {
  if (error instanceof PaykitError) return error;
  if (signal?.aborted) return abortedByCaller(where, 'in-flight', signal.reason, requestId);
  if (controller.signal.aborted) {
    const cause = controller.signal.reason instanceof Error ? controller.signal.reason : undefined;
    return new TimeoutError(`${where}: not received within ${timeoutMs} ms — raise timeoutMs, or try again later`, {
      requestId,
      timeoutMs,
      ...(cause ? { cause } : {}),
    });
  }
  // The cause's text may quote the URL (and its signature): keep only its kind.
  const kind = error instanceof Error ? error.name : 'error';
  return new ConnectionError(
    `${where}: the connection failed (${kind}) — check that the file host is reachable, then try again`,
    { requestId },
  );
}
