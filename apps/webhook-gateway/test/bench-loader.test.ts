// The intake benchmark's load generator against real servers on 127.0.0.1 (node:http, and raw
// node:net ones for answers framed or split in ways node:http does not produce): the keep-alive
// client (bench/intake/keep-alive.ts) — what it sends, answers framed by Content-Length, chunked
// encoding or the end of the connection, answers split over many TCP writes, socket reuse,
// Connection: close, a server that hangs up or never answers, nothing listening — and the two
// loaders built on it (closed-load.ts, paced-load.ts): what they count, measure and audit.
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@paykit/testing/ports';
import { afterEach, describe, expect, it } from 'vitest';
import { closedLoad } from '../bench/intake/closed-load.ts';
import { Connection, postTarget, type Outcome } from '../bench/intake/keep-alive.ts';
import type { LoadPlan } from '../bench/intake/load-result.ts';
import { BENCH_ACCOUNT } from '../bench/intake/money-in.ts';
import { pacedLoad } from '../bench/intake/paced-load.ts';

const TOKEN = 't'.repeat(43);
const PATH = '/webhooks/core/money-in';
const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface HttpServer {
  port: number;
  url: string;
  /** 'connection' events: TCP connections accepted. */
  connections: () => number;
  received: Received[];
}

/** A node:http server on an OS-picked port; `answer` runs once the request's body is read. */
async function httpServer(
  answer: (req: http.IncomingMessage, res: http.ServerResponse, received: Received, index: number) => void,
  configure?: (server: http.Server) => void,
): Promise<HttpServer> {
  const received: Received[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      answer(req, res, request, received.length - 1);
    });
  });
  server.on('connection', () => connections++);
  configure?.(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const port = (server.address() as net.AddressInfo).port;
  return { port, url: `http://127.0.0.1:${port}${PATH}`, connections: () => connections, received };
}

/**
 * A raw TCP server: reads whole requests (framed by Content-Length) and calls `answer` with the
 * socket for each, in order.
 */
async function rawServer(
  answer: (socket: net.Socket, request: string, index: number) => void,
): Promise<{ port: number; connections: () => number }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headerEnd = buffer.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = /\r\ncontent-length: *(\d+)/i.exec(buffer.toString('latin1', 0, headerEnd));
        const end = headerEnd + 4 + Number(length?.[1] ?? 0);
        if (buffer.length < end) return;
        const request = buffer.toString('utf8', 0, end);
        buffer = buffer.subarray(end);
        answer(socket, request, requests++);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections };
}

/** Writes these pieces one by one, `gapMs` apart (separate TCP segments: the socket has no Nagle). */
async function writeSlowly(socket: net.Socket, pieces: string[], gapMs = 15): Promise<void> {
  for (const piece of pieces) {
    await sleep(gapMs);
    if (socket.destroyed) return;
    socket.write(piece);
  }
}

function connection(url: string): Connection {
  const opened = new Connection(postTarget(url, HEADERS));
  cleanups.push(() => opened.close());
  return opened;
}

/** Sends one request; resolves with the first outcome, and `calls` keeps counting after it. */
function send(conn: Connection, body: string, timeoutMs = 2000): { outcome: Promise<Outcome>; calls: Outcome[] } {
  const calls: Outcome[] = [];
  const outcome = new Promise<Outcome>((resolve) => {
    conn.send(body, timeoutMs, (result) => {
      calls.push(result);
      resolve(result);
    });
  });
  return { outcome, calls };
}

function plan(url: string, overrides: Partial<LoadPlan>): LoadPlan {
  return {
    mode: 'closed',
    url,
    seconds: 1,
    connections: 4,
    warmupSeconds: 0,
    timeoutMs: 2000,
    account: BENCH_ACCOUNT,
    ...overrides,
  };
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((a, b) => a + b, 0);
}

describe('keep-alive connection', () => {
  it('sends the body, the headers and a byte-exact Content-Length, and reads a Content-Length answer', {
    timeout: 5_000,
  }, async () => {
    const server = await httpServer((_req, res) => {
      const json = JSON.stringify({ status: 'accepted', note: 'recibido en Bajío' });
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
      res.end(json);
    });
    const conn = connection(server.url);
    await conn.open();
    const body = JSON.stringify({
      id_msg: 'a',
      beneficiary_name: 'Comercializadora del Bajío SA de CV',
      payer_name: 'Ana López Ruiz',
    });
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length); // non-ASCII: bytes ≠ UTF-16 units

    const { outcome } = send(conn, body);
    expect(await outcome).toEqual({ kind: 'answer', status: 201 });

    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe(PATH);
    expect(request!.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(request!.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
  });

  it('sends requests in a row on one socket', { timeout: 5_000 }, async () => {
    const server = await httpServer((_req, res, _received, index) => {
      res.writeHead(index % 2 === 0 ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ index }));
    });
    const conn = connection(server.url);
    await conn.open();
    const statuses: Outcome[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await send(conn, JSON.stringify({ i, name: 'Bajío' })).outcome);

    expect(statuses).toEqual([201, 200, 201, 200, 201, 200].map((status) => ({ kind: 'answer', status })));
    expect(server.received.map((request) => JSON.parse(request.body.toString('utf8')) as unknown)).toEqual(
      [0, 1, 2, 3, 4, 5].map((i) => ({ i, name: 'Bajío' })),
    );
    expect(server.connections()).toBe(1);
  });

  it('connects on the first send when open() was not called, then keeps that socket', { timeout: 5_000 }, async () => {
    const server = await httpServer((_req, res) => res.writeHead(204).end());
    const conn = connection(server.url);
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 204 });
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 204 });
    expect(server.connections()).toBe(1);
  });

  it('reads a chunked answer to its last chunk, and keeps the socket after it', { timeout: 5_000 }, async () => {
    let ended = 0;
    const server = await httpServer((_req, res) => {
      res.writeHead(202, { 'Content-Type': 'text/plain' });
      res.write('first part, ');
      setTimeout(() => {
        res.write('second part');
        setTimeout(() => {
          ended++;
          res.end();
        }, 20);
      }, 20);
    });
    const conn = connection(server.url);
    await conn.open();
    for (let i = 1; i <= 2; i++) {
      const { outcome } = send(conn, '{"x":1}');
      expect(await outcome).toEqual({ kind: 'answer', status: 202 });
      expect(ended).toBe(i); // not complete before the server's last chunk
    }
    expect(server.connections()).toBe(1);
  });

  it('reads an answer split over many TCP writes (status line, headers, body)', { timeout: 5_000 }, async () => {
    let ended = 0;
    const server = await rawServer((socket) => {
      const pieces = [
        'HTTP/1.1 2',
        '01 Created\r\nContent-Type: application/json\r\n',
        'Content-Len',
        'gth: 11\r\n\r',
        '\n{"ok"',
        ':true}',
      ];
      void writeSlowly(socket, pieces).then(() => ended++);
    });
    const conn = connection(`http://127.0.0.1:${server.port}${PATH}`);
    await conn.open();
    for (let i = 1; i <= 2; i++) {
      expect(await send(conn, '{"x":1}').outcome).toEqual({ kind: 'answer', status: 201 });
      expect(ended).toBe(i);
    }
    expect(server.connections()).toBe(1);
  });

  it('reads a chunked answer whose chunks are split over TCP writes and whose data looks like a last chunk', {
    timeout: 5_000,
  }, async () => {
    let ended = 0;
    const server = await rawServer((socket) => {
      // Chunk data "0\r\n\r\n" (5 bytes) must not be taken for the last chunk; the last chunk is
      // complete only with the blank line after its trailers.
      const pieces = [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n',
        '5\r\n0\r\n',
        '\r\n\r\n',
        'a\r\n0123',
        '456789\r\n',
        '0\r',
        '\n',
        'X-Checksum: 1\r\n',
        '\r\n',
      ];
      void writeSlowly(socket, pieces).then(() => ended++);
    });
    const conn = connection(`http://127.0.0.1:${server.port}${PATH}`);
    await conn.open();
    for (let i = 1; i <= 2; i++) {
      expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 200 });
      expect(ended).toBe(i);
    }
    expect(server.connections()).toBe(1);
  });

  it('reconnects for the next request after Connection: close (node:http), even when sent from the callback', {
    timeout: 5_000,
  }, async () => {
    const server = await httpServer((_req, res, _received, index) => {
      res.writeHead(index === 0 ? 201 : 200, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end('{"ok":true}');
    });
    const conn = connection(server.url);
    await conn.open();
    const outcomes = await new Promise<Outcome[]>((resolve) => {
      conn.send('{"n":1}', 2000, (first) => {
        conn.send('{"n":2}', 2000, (second) => resolve([first, second]));
      });
    });
    expect(outcomes).toEqual([
      { kind: 'answer', status: 201 },
      { kind: 'answer', status: 200 },
    ]);
    // And later, once the server has closed the second socket too.
    await sleep(50);
    expect(await send(conn, '{"n":3}').outcome).toEqual({ kind: 'answer', status: 200 });
    expect(server.received.map((request) => request.body.toString())).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(server.connections()).toBe(3);
  });

  it('reads an answer framed by the end of the connection, then reconnects', { timeout: 5_000 }, async () => {
    const server = await rawServer((socket, _request, index) => {
      void writeSlowly(socket, [
        `HTTP/1.1 ${index === 0 ? 201 : 202} OK\r\nContent-Type: text/plain\r\n\r\n`,
        'no length, ',
        'ends with the connection',
      ]).then(() => socket.end());
    });
    const conn = connection(`http://127.0.0.1:${server.port}${PATH}`);
    await conn.open();
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 201 });
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 202 });
    expect(server.connections()).toBe(2);
  });

  it('reconnects after the server ended an idle keep-alive socket (no Connection: close)', {
    timeout: 5_000,
  }, async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}');
      setTimeout(() => socket.end(), 30); // an idle timeout, as a keep-alive server has
    });
    const conn = connection(`http://127.0.0.1:${server.port}${PATH}`);
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 201 });
    await sleep(150);
    expect(await send(conn, '{}').outcome).toEqual({ kind: 'answer', status: 201 });
    expect(server.connections()).toBe(2);
  });

  it('gives one error when the server destroys the socket before answering (node:http), and works again after', {
    timeout: 5_000,
  }, async () => {
    const server = await httpServer((req, res, _received, index) => {
      if (index === 0) req.socket.destroy();
      else res.writeHead(201, { 'Content-Length': 0 }).end();
    });
    const conn = connection(server.url);
    await conn.open();
    const { outcome, calls } = send(conn, '{"n":1}');
    const result = await outcome;
    expect(result.kind).toBe('error');
    expect(result.kind === 'error' && result.error).toBeInstanceOf(Error);
    await sleep(100); // the socket's 'end'/'close' events after the error must not call done again
    expect(calls).toHaveLength(1);

    expect(await send(conn, '{"n":2}').outcome).toEqual({ kind: 'answer', status: 201 });
    expect(server.connections()).toBe(2);
  });

  it('gives one error when the raw socket is destroyed on the request, or ends inside an answer', {
    timeout: 5_000,
  }, async () => {
    const server = await rawServer((socket, _request, index) => {
      if (index === 0) socket.destroy();
      else socket.end('HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\nonly a part');
    });
    const url = `http://127.0.0.1:${server.port}${PATH}`;
    for (const conn of [connection(url), connection(url)]) {
      await conn.open();
      const { outcome, calls } = send(conn, '{}');
      expect((await outcome).kind).toBe('error');
      await sleep(100);
      expect(calls).toHaveLength(1);
    }
  });

  it('gives one timeout when the server never answers and expire() passes the deadline', {
    timeout: 5_000,
  }, async () => {
    const serverSockets: net.Socket[] = [];
    const server = await httpServer((req) => {
      serverSockets.push(req.socket); // never answered
    });
    const conn = connection(server.url);
    await conn.open();
    const timeoutMs = 2000;
    const { outcome, calls } = send(conn, '{}', timeoutMs);
    await sleep(50);
    expect(server.received).toHaveLength(1);
    conn.expire(performance.now()); // before the deadline: nothing
    expect(calls).toHaveLength(0);

    conn.expire(performance.now() + timeoutMs + 1);
    expect(await outcome).toEqual({ kind: 'timeout' });
    conn.expire(performance.now() + 10 * timeoutMs); // nothing in flight any more
    await sleep(100);
    expect(calls).toHaveLength(1);
    // The abandoned request's socket is closed by the client.
    expect(serverSockets[0]!.destroyed).toBe(true);
  });

  it('rejects open() with a message naming host:port when nothing listens there', { timeout: 5_000 }, async () => {
    const port = await freePort();
    await expect(connection(`http://127.0.0.1:${port}${PATH}`).open()).rejects.toThrow(`127.0.0.1:${port}`);
    // The host as the URL names it, not only the address the system error mentions.
    await expect(connection(`http://localhost:${port}${PATH}`).open()).rejects.toThrow(`localhost:${port}`);
  });

  it('refuses a URL that is not plain HTTP', () => {
    expect(() => postTarget('https://127.0.0.1:1/x', HEADERS)).toThrow(/plain HTTP/);
  });
});

describe('closedLoad', () => {
  it('counts only the measured window, and every 2xx id was received and answered 2xx', {
    timeout: 10_000,
  }, async () => {
    const answered = new Map<string, number>();
    /** When the server answered each 2xx (this process's performance.now(), the loader's clock too). */
    const answeredAt = new Map<string, number>();
    let repeats = 0;
    const server = await httpServer((_req, res, received, index) => {
      const status = (index + 1) % 10 === 0 ? 503 : 201;
      const { id_msg: idMsg } = JSON.parse(received.body.toString('utf8')) as { id_msg: string };
      if (answered.has(idMsg)) repeats++;
      answered.set(idMsg, status);
      if (status === 201) answeredAt.set(idMsg, performance.now());
      const json = JSON.stringify(status === 201 ? { status: 'accepted' } : { error: 'store_unavailable' });
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
      res.end(json);
    });

    const startedAt = performance.now();
    const result = await closedLoad(
      plan(server.url, { mode: 'closed', warmupSeconds: 0.3, seconds: 0.7, connections: 4 }),
      TOKEN,
    );
    const endedAt = performance.now();

    expect(result.mode).toBe('closed');
    expect(repeats).toBe(0); // every delivery is new
    expect(answered.size).toBe(server.received.length);
    expect(result.seconds).toBe(0.7);
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(result.statuses['503']).toBeGreaterThan(0);
    expect(result.statuses['201']).toBeGreaterThan(0);
    expect(Object.keys(result.statuses).sort()).toEqual(['201', '503']);
    expect(result.latencies).toHaveLength(sum(result.statuses));
    expect(result.completed).toBe(sum(result.statuses));
    for (const latency of result.latencies) expect(latency).toBeGreaterThan(0);

    expect(result.okIdMsgs).toHaveLength(result.statuses['201']!);
    expect(result.unmeasuredOkIdMsgs.length).toBeGreaterThan(0); // the warm-up's answers
    const measured = new Set(result.okIdMsgs);
    const unmeasured = new Set(result.unmeasuredOkIdMsgs);
    expect(measured.size).toBe(result.okIdMsgs.length);
    expect(unmeasured.size).toBe(result.unmeasuredOkIdMsgs.length);
    for (const idMsg of measured) expect(unmeasured.has(idMsg)).toBe(false);
    for (const idMsg of [...measured, ...unmeasured]) {
      expect(answered.has(idMsg)).toBe(true);
      expect(answered.get(idMsg)).toBe(201);
    }
    // The server sent more 2xx than the loader counted only by requests cut at the end.
    const answered2xx = [...answered.values()].filter((status) => status === 201).length;
    expect(measured.size + unmeasured.size).toBeLessThanOrEqual(answered2xx);
    expect(answered2xx - (measured.size + unmeasured.size)).toBeLessThanOrEqual(4);
    // Where the window is: the warm-up starts once the connections are open (at or after startedAt)
    // and the run ends at most a clock tick after the 0.7 s window (before endedAt). The server's
    // first answers are warm-up (100 ms margin); those in the middle of the window, placed from its
    // end so that a slow start of the connections on a loaded machine cannot move it, are measured
    // (150 ms margin after its start, 250 ms before its end for the hop to the loader's callback).
    expect(endedAt - startedAt).toBeLessThan(1_400);
    const warmup = [...answeredAt].filter(([, at]) => at < startedAt + 200).map(([idMsg]) => idMsg);
    const middle = [...answeredAt].filter(([, at]) => at > endedAt - 550 && at < endedAt - 250).map(([idMsg]) => idMsg);
    expect(warmup.length).toBeGreaterThan(0);
    expect(middle.length).toBeGreaterThan(0);
    for (const idMsg of warmup) expect(unmeasured.has(idMsg)).toBe(true);
    for (const idMsg of middle) expect(measured.has(idMsg)).toBe(true);
    // Four keep-alive connections, opened once.
    expect(server.connections()).toBe(4);
  });
});

describe('pacedLoad', () => {
  it('sends the warm-up then exactly the measured requests, and audits both', { timeout: 10_000 }, async () => {
    const answered = new Map<string, number>();
    const server = await httpServer((_req, res, received) => {
      const { id_msg: idMsg } = JSON.parse(received.body.toString('utf8')) as { id_msg: string };
      answered.set(idMsg, 201);
      res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': 2 });
      res.end('{}');
    });

    const result = await pacedLoad(
      plan(server.url, { mode: 'paced', rate: 200, warmupSeconds: 0.5, seconds: 1, connections: 4 }),
      TOKEN,
    );

    expect(result.mode).toBe('paced');
    expect(result.completed).toBe(200);
    expect(server.received).toHaveLength(300);
    expect(answered.size).toBe(300);
    expect(result.statuses).toEqual({ '201': 200 });
    expect(result.errors).toBe(0);
    expect(result.timeouts).toBe(0);
    expect(result.latencies).toHaveLength(200);
    expect(result.okIdMsgs).toHaveLength(200);
    expect(result.unmeasuredOkIdMsgs).toHaveLength(100);
    expect(typeof result.sendLagP99Ms).toBe('number');
    expect(Number.isFinite(result.sendLagP99Ms)).toBe(true);
    // From the first measured request's due time to the last answer: the last is due 995 ms later.
    expect(result.seconds).toBeGreaterThanOrEqual(0.99);
    expect(result.seconds).toBeLessThan(5);

    const audited = new Set([...result.okIdMsgs, ...result.unmeasuredOkIdMsgs]);
    expect(audited.size).toBe(300); // disjoint, no repeats
    expect([...audited].sort()).toEqual([...answered.keys()].sort());
    expect(server.connections()).toBeLessThanOrEqual(4);
  });

  it('rejects a rate of 0 (or none) with a message, before connecting', { timeout: 5_000 }, async () => {
    const server = await httpServer((_req, res) => res.writeHead(201).end());
    await expect(pacedLoad(plan(server.url, { mode: 'paced', rate: 0 }), TOKEN)).rejects.toThrow(/rate above 0.*got 0/);
    await expect(pacedLoad(plan(server.url, { mode: 'paced' }), TOKEN)).rejects.toThrow(/rate above 0/);
    expect(server.connections()).toBe(0);
  });
});
