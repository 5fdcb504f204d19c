// A real HTTP proxy in front of the sandbox that can lose answers: it forwards a request, lets the
// upstream act on it, then cuts the client's connection instead of answering, as a network
// failure after the platform moved the money would. It records every request it forwarded.
import { createServer, request as upstreamRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Forwarded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LossyProxy {
  url: string;
  forwarded: Forwarded[];
  /** The next `count` answers to requests whose path ends with `suffix` are lost. */
  loseAnswers(suffix: string, count: number): void;
  close(): Promise<void>;
}

export async function startLossyProxy(target: string): Promise<LossyProxy> {
  const upstream = new URL(target);
  const forwarded: Forwarded[] = [];
  const losses = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = req.url ?? '/';
      forwarded.push({ method: req.method ?? '', path, headers: req.headers, body: body.toString('utf8') });
      const suffix = [...losses.keys()].find((s) => path.endsWith(s) && (losses.get(s) ?? 0) > 0);
      const { host: _host, ...headers } = req.headers;
      const out = upstreamRequest(
        { hostname: upstream.hostname, port: upstream.port, path, method: req.method, headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            if (suffix !== undefined) {
              losses.set(suffix, (losses.get(suffix) ?? 1) - 1);
              req.socket.destroy();
              return;
            }
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
          });
        },
      );
      out.on('error', () => req.socket.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname.replace(/\/$/, '')}`,
    forwarded,
    loseAnswers(suffix, count) {
      losses.set(suffix, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
