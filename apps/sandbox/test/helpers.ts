// Shared by the sandbox's tests: the sandbox on a free port with a manual clock, a typed
// control-API client, and a real HTTP server that receives webhook deliveries.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sandboxControl } from '@paykit/contracts';
import { initClient } from '@ts-rest/core';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/index.ts';

/** 2026-05-07 12:00 in Mexico City. */
export const T0 = '2026-05-07T12:00:00.000-06:00';

export async function startTestSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, randomSeed: 'test', clock: { mode: 'manual', start: T0 }, ...options });
}

export function controlClient(sandbox: Sandbox) {
  return initClient(sandboxControl, { baseUrl: sandbox.url, throwOnUnknownStatus: true });
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  raw: Buffer;
  json: unknown;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Decides each answer (default: 200 with an empty JSON object). */
  answer: (
    request: ReceivedRequest,
  ) => { status: number; body?: unknown } | Promise<{ status: number; body?: unknown }>;
  close(): Promise<void>;
}

/** A real HTTP server on a free loopback port that records every request it receives. */
export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    answer: () => ({ status: 200, body: {} }),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw, json };
      receiver.requests.push(received);
      const { status, body } = await receiver.answer(received);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

/** JSON request helper: `call(url, { method, headers, body })` → { status, body, headers }. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; raw?: string } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, body: parsed as any, headers: response.headers }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
}
