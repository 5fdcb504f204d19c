// A real HTTP server whose answers a test scripts, one per request, and which records what it
// received (method, path, headers, body) for assertions.
import http from 'node:http';
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Answer =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  /** Never answer (the client must time out or abort). */
  | 'hang'
  /** Cut the connection without an answer (a network error). */
  | 'destroy'
  /** Answer 200 with JSON headers and the first bytes of the body, then never the rest (an abort or timeout mid-response). */
  | 'stall-mid-body';

export interface ScriptedServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** `script(request, index)` decides each answer; index counts requests from 0. */
export async function startScriptedServer(
  script: (request: Received, index: number) => Answer,
): Promise<ScriptedServer> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = received.length;
      received.push(request);
      const answer = script(request, index);
      if (answer === 'hang') return;
      if (answer === 'destroy') {
        req.socket.destroy();
        return;
      }
      if (answer === 'stall-mid-body') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('{"data": [');
        return;
      }
      const body =
        answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const headers: Record<string, string> = { ...answer.headers };
      if (
        answer.body !== undefined &&
        typeof answer.body !== 'string' &&
        !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
      ) {
        headers['content-type'] = 'application/json';
      }
      res.writeHead(answer.status, headers);
      res.end(body);
    });
  });
  const running = await listenOnLoopback(server);
  return { url: running.url, received, close: running.close };
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A sleep that records the delays asked for and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

/** Any server listening on 127.0.0.1, port 0: its URL, and a close that destroys its open connections first. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
