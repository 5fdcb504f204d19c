// HTTP over raw sockets, for the hostile-input and authentication scenarios: fetch cannot send
// what they need to send (invalid UTF-8 bytes as they are, duplicated or missing headers, a
// Content-Length that lies, a request line a byte at a time). Every request is bounded by a
// timeout and closes its connection, so nothing a scenario sends can hang it or outlive it.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** A header as sent, in order: the same name may appear twice. */
export type RawHeader = readonly [name: string, value: string];

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (path and query, percent-encoding untouched). */
  path: string;
  headers?: readonly RawHeader[];
  body?: Uint8Array | string;
  /** Adds Content-Length for the body unless the headers carry their own (default true). */
  contentLength?: boolean;
  /** Adds `Host: 127.0.0.1` unless the headers carry one (default true; false sends none). */
  host?: boolean;
}

export interface RawAnswer {
  status: number;
  /** Lower-cased names; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
  /** From the first byte written to the last byte read. */
  ms: number;
}

/** The server did not answer: it closed or reset the connection, or the timeout passed. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
  readonly ms: number;
  constructor(message: string, ms: number) {
    super(message);
    this.ms = ms;
  }
}

/** The request's bytes: the head (request line and headers) and the body. */
export function encodeRequest(request: RawRequest): { head: Buffer; body: Buffer } {
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const headers = [...(request.headers ?? [])];
  const has = (name: string) => headers.some(([key]) => key.toLowerCase() === name);
  if ((request.host ?? true) && !has('host')) headers.unshift(['Host', '127.0.0.1']);
  if (
    (request.contentLength ?? true) &&
    !has('content-length') &&
    !has('transfer-encoding') &&
    (body.length > 0 || request.method !== 'GET')
  ) {
    headers.push(['Content-Length', String(body.length)]);
  }
  // One request per connection: the server closes after answering, which ends the read.
  if (!has('connection')) headers.push(['Connection', 'close']);
  const head = `${request.method} ${request.path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  // latin1: a header value's bytes go out exactly as given (obs-text included).
  return { head: Buffer.from(head, 'latin1'), body };
}

/** Parses a whole HTTP/1.1 response (read until the server closed); undefined when incomplete. */
export function parseResponse(bytes: Buffer): Omit<RawAnswer, 'ms'> | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = bytes.subarray(end + 4);
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) body = dechunk(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  let json: unknown;
  try {
    json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    json = undefined;
  }
  return { status: Number(match[1]), headers, body: Buffer.from(body), json };
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** A body this large is held back until the server has had a moment to refuse the headers. */
const EARLY_ANSWER_BYTES = 64 * 1024;
const EARLY_ANSWER_WAIT_MS = 25;
/** The hold on the one retry of a request whose answer a reset destroyed (a busy server answers later). */
const RETRY_WAIT_MS = 1_000;

/** The connection was reset while the body was being written, before any answer arrived. */
class ResetWhileWriting extends NoAnswerError {}

/**
 * Sends one request on a new connection and reads the answer until the server closes it.
 * Rejects with NoAnswerError when no complete answer arrived within `timeoutMs`.
 *
 * A server that refuses the headers (431, 401, 413 by Content-Length, 415) answers and closes
 * without reading a large body; a client still writing it gets the connection reset, which can
 * destroy the answer before it is read. So, like Expect: 100-continue, a large body waits a moment
 * for an early answer, and a request reset that way is sent once more with a longer wait.
 */
export async function sendRaw(port: number, request: RawRequest, timeoutMs = 10_000): Promise<RawAnswer> {
  try {
    return await exchangeOnce(port, request, timeoutMs, EARLY_ANSWER_WAIT_MS);
  } catch (error) {
    if (!(error instanceof ResetWhileWriting)) throw error;
    const again = await exchangeOnce(port, request, timeoutMs, RETRY_WAIT_MS);
    return { ...again, ms: Math.max(again.ms, error.ms) };
  }
}

function exchangeOnce(port: number, request: RawRequest, timeoutMs: number, holdBodyMs: number): Promise<RawAnswer> {
  const { head, body } = encodeRequest(request);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let settled = false;
    let writingBody = false;
    const finish = (why: string, reset = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const ms = performance.now() - started;
      const answer = parseResponse(Buffer.concat(chunks));
      if (answer) return resolve({ ...answer, ms });
      const message = `no answer from 127.0.0.1:${port} to ${describe(head)}: ${why} after ${Math.round(ms)} ms`;
      reject(reset && writingBody ? new ResetWhileWriting(message, ms) : new NoAnswerError(message, ms));
    };
    const timer = setTimeout(() => finish(`no complete answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('the connection closed'));
    socket.on('close', () => finish('the connection closed'));
    socket.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code ?? error.message;
      finish(`socket error ${code}`, code === 'EPIPE' || code === 'ECONNRESET');
    });
    socket.once('connect', () => {
      if (body.length < EARLY_ANSWER_BYTES) {
        socket.write(Buffer.concat([head, body]));
        return;
      }
      socket.write(head);
      setTimeout(() => {
        if (chunks.length > 0 || socket.destroyed) return;
        writingBody = true;
        socket.write(body);
      }, holdBodyMs);
    });
  });
}

/** The request line, for messages (never the headers: they may carry credentials). */
function describe(head: Buffer): string {
  const line = head.subarray(0, Math.min(head.length, 200)).toString('latin1').split('\r\n')[0] ?? '';
  return line.replace(/[^\x20-\x7e]/g, '?').slice(0, 120);
}

export interface SlowClient {
  /** Resolves with the ms from connecting until the server closed the connection. */
  closed: Promise<number>;
  /** Bytes written so far. */
  written(): number;
  /** Whatever the server wrote before closing (a 408, say). */
  received(): Buffer;
  /** Stops writing and destroys the socket (cleanup; a no-op once the server closed it). */
  destroy(): void;
}

/**
 * A slowloris client: writes `prefix` at once, then one more byte of `trickle` every
 * `intervalMs` (cycling), never completing its request; the server has to close it.
 */
export function startSlowClient(
  port: number,
  options: { prefix: string; trickle: string; intervalMs: number },
): SlowClient {
  const socket = net.connect(port, '127.0.0.1');
  const started = performance.now();
  const received: Buffer[] = [];
  let written = 0;
  let index = 0;
  const writeByte = () => {
    if (socket.destroyed || !socket.writable) return;
    socket.write(options.trickle[index % options.trickle.length]!);
    index++;
    written++;
  };
  let timer: NodeJS.Timeout | undefined;
  socket.once('connect', () => {
    socket.write(options.prefix);
    written += options.prefix.length;
    timer = setInterval(writeByte, options.intervalMs);
  });
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.on('error', () => socket.destroy());
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve(performance.now() - started);
    }),
  );
  return {
    closed,
    written: () => written,
    received: () => Buffer.concat(received),
    destroy() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

/** A process's resident memory in kB (Linux: VmRSS in /proc/<pid>/status). */
export function residentKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match)
    throw new Error(`/proc/${pid}/status has no VmRSS line: is the process (${pid}) still running, and is this Linux?`);
  return Number(match[1]);
}

/** Whether a process is still alive. */
export { isAlive } from '@paykit/testing/pnpm-process';
