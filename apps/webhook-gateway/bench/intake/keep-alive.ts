// The loader's HTTP/1.1 client: keep-alive connections over plain sockets, one request in flight
// on each, every request written in one call from a prepared head. The load generator shares the
// machine's two cores with the contender and PostgreSQL, so every microsecond it spends per
// request is taken from the contender: against the gateway, autocannon spent 53–60 µs of CPU per
// delivery, this 24–33 µs (most of it the kernel's loopback work; the result reports the loader's
// CPU). It reads what the contenders answer: a status line, headers, and a body framed by
// Content-Length or chunked encoding, or ended by the server closing the connection.
import net from 'node:net';

export type Outcome = { kind: 'answer'; status: number } | { kind: 'error'; error: Error } | { kind: 'timeout' };

type Done = (outcome: Outcome) => void;

export interface Target {
  host: string;
  port: number;
  /** Request line and headers up to (not including) Content-Length; the same for every request. */
  head: string;
}

/** POST `url` with these headers (names as sent; Content-Length is added per body). */
export function postTarget(url: string, headers: Record<string, string>): Target {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:')
    throw new Error(`the loader speaks plain HTTP only, not ${parsed.protocol} (${parsed.origin})`);
  const port = Number(parsed.port || 80);
  let head = `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nHost: ${parsed.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return { host: parsed.hostname, port, head };
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** One keep-alive connection; `send` while another request is in flight is a programming error. */
export class Connection {
  #target: Target;
  #socket: net.Socket | undefined;
  #buffer: Buffer | undefined;
  #done: Done | undefined;
  #deadline = 0;
  /** The server answered Connection: close or ended its side: reconnect before the next request. */
  #closing = false;

  constructor(target: Target) {
    this.#target = target;
  }

  /** Connects now, so that the first request of a run does not pay for it. */
  open(): Promise<void> {
    this.#connect();
    const socket = this.#socket!;
    return new Promise((resolve, reject) => {
      const failed = (error: Error) =>
        reject(new Error(`cannot connect to ${this.#target.host}:${this.#target.port}: ${error.message}`));
      socket.once('error', failed);
      socket.once('connect', () => {
        socket.off('error', failed);
        resolve();
      });
    });
  }

  /** Sends one request with this body; `done` is called exactly once, unless close() abandons the request first. */
  send(body: string, timeoutMs: number, done: Done): void {
    if (this.#done) throw new Error('a request is already in flight on this connection');
    this.#done = done;
    this.#deadline = performance.now() + timeoutMs;
    this.#buffer = undefined;
    if (this.#socket === undefined || this.#closing || this.#socket.destroyed) this.#connect();
    this.#socket!.write(`${this.#target.head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** Called by the loader's clock: a request past its deadline is abandoned with its connection. */
  expire(now: number): void {
    if (this.#done && now >= this.#deadline) this.#fail({ kind: 'timeout' });
  }

  /** Closes the connection; a request in flight is abandoned (its `done` is never called). */
  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #connect(): void {
    this.#socket?.destroy();
    this.#closing = false;
    const socket = net.connect({ host: this.#target.host, port: this.#target.port, noDelay: true });
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      if (socket === this.#socket) this.#onData(chunk);
    });
    socket.on('error', (error) => {
      if (socket === this.#socket) this.#fail({ kind: 'error', error });
    });
    socket.on('end', () => {
      if (socket !== this.#socket) return;
      this.#closing = true;
      // A body framed by the end of the connection is complete now; otherwise the answer was cut.
      if (this.#done) this.#tryComplete(true);
    });
    socket.on('close', () => {
      if (socket === this.#socket && this.#done)
        this.#fail({ kind: 'error', error: new Error('the server closed the connection before answering') });
    });
  }

  #fail(outcome: Outcome): void {
    const done = this.#done;
    this.#done = undefined;
    this.#buffer = undefined;
    this.close();
    done?.(outcome);
  }

  #onData(chunk: Buffer): void {
    if (!this.#done) return; // nothing asked: a stray byte after an answer is ignored
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
    this.#tryComplete(false);
  }

  #tryComplete(ended: boolean): void {
    const buffer = this.#buffer;
    const headerEnd = buffer === undefined ? -1 : buffer.indexOf(HEADER_END);
    if (buffer === undefined || headerEnd < 0) {
      if (ended) this.#fail({ kind: 'error', error: new Error('the connection ended inside an answer’s headers') });
      return;
    }
    const head = buffer.toString('latin1', 0, headerEnd);
    const status = Number(head.slice(9, 12));
    if (!head.startsWith('HTTP/1.') || !Number.isInteger(status)) {
      this.#fail({ kind: 'error', error: new Error(`not an HTTP/1.x answer: ${JSON.stringify(head.slice(0, 40))}`) });
      return;
    }
    const lower = head.toLowerCase();
    const bodyStart = headerEnd + 4;
    let complete: boolean;
    const length = /\r\ncontent-length:[ \t]*(\d+)/.exec(lower);
    if (length) complete = buffer.length - bodyStart >= Number(length[1]);
    else if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) complete = chunkedComplete(buffer, bodyStart);
    else complete = ended || status === 204 || status === 304 || (status >= 100 && status < 200);
    if (!complete) {
      if (ended) this.#fail({ kind: 'error', error: new Error('the connection ended inside an answer’s body') });
      return;
    }
    if (/\r\nconnection:[^\r]*close/.test(lower)) this.#closing = true;
    const done = this.#done!;
    this.#done = undefined;
    this.#buffer = undefined;
    done({ kind: 'answer', status });
  }
}

/** `count` connections to `target`, all connected (or all closed again, and the reason thrown). */
export async function openConnections(target: Target, count: number): Promise<Connection[]> {
  const connections = Array.from({ length: count }, () => new Connection(target));
  try {
    await Promise.all(connections.map((connection) => connection.open()));
  } catch (error) {
    for (const connection of connections) connection.close();
    throw error;
  }
  return connections;
}

/** Whether a chunked body starting at `from` has reached its last chunk and the blank line after it. */
function chunkedComplete(buffer: Buffer, from: number): boolean {
  let at = from;
  for (;;) {
    const lineEnd = buffer.indexOf(CRLF, at);
    if (lineEnd < 0) return false;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16); // chunk extensions after ';' end the number
    if (!Number.isFinite(size)) return false;
    // The last chunk, then trailers (none, usually) and a blank line.
    if (size === 0) return buffer.indexOf(HEADER_END, lineEnd) >= 0;
    at = lineEnd + 2 + size + 2;
    if (at > buffer.length) return false;
  }
}
