// A URL's user-info (`user:password@`) is a credential: the CLI never prints it, on any surface that
// shows a URL. `events replay --to` and `listen --forward-to` refuse a receiver URL carrying one
// (exit 2) without repeating it, a failed delivery names its URL with secret query parameters
// redacted, and a `PAYKIT_GATEWAY_URL` that does not answer is named without its password. With
// --dry-run, `events replay` (to the gateway, or `--to` a receiver) shows the request and sends
// nothing. Against a scripted gateway (a real HTTP server on 127.0.0.1) that serves one stored event
// and a receiver that counts what reaches it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const PASSWORD = 'hunter2-url-password';
const ADMIN = 'url-credentials-admin-token-0000000001';

const EVENT = {
  seq: '7',
  source: 'direct_debit',
  eventType: 'charge_result',
  dedupeKey: 'dd:charge_result:1',
  idMsg: null,
  transactionId: null,
  operationId: null,
  receivedAt: '2026-05-07T12:00:00.000-06:00',
  payload: { event: 'charge_result' },
  headers: {},
  drift: [],
  outcome: 'accepted',
  reason: null,
  answerStatus: 200,
  refundReason: null,
  deliveries: 1,
};

let gateway: http.Server;
let gatewayUrl: string;
/** POSTs the gateway got (a replay) and requests the receiver got. */
const gatewayPosts: string[] = [];
let receiver: http.Server;
let receiverUrl: string;
const received: string[] = [];
/** A port nothing listens on. */
let closedUrl: string;

beforeAll(async () => {
  gateway = http.createServer((request, response) => {
    const send = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'POST') gatewayPosts.push(request.url ?? '');
    if (request.method === 'GET' && request.url?.startsWith('/admin/events/7'))
      return send({ event: EVENT, replays: [], rawBody: Buffer.from('{"event":"charge_result"}').toString('base64') });
    return send({ events: [] });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  receiver = http.createServer((request, response) => {
    received.push(`${request.method} ${request.url}`);
    response.writeHead(200).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(async () => {
  for (const server of [gateway, receiver]) {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
});

const withPassword = (url: string) => url.replace('http://', `http://ops:${PASSWORD}@`);

const paykit = (args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<NodeRun> =>
  runNode(MAIN, args, {
    name: 'paykit',
    env: { ...process.env, PAYKIT_CONFIG: '', PAYKIT_PROFILE: 'sandbox', GATEWAY_ADMIN_TOKEN: ADMIN, ...env },
    timeoutMs,
  });

function expectNoUserInfo(run: NodeRun): void {
  const printed = `${run.stdout}\n${run.stderr}`;
  expect(printed).not.toContain(PASSWORD);
  expect(printed).not.toContain('ops:');
}

describe('a URL’s user-info is never printed', () => {
  it('events replay --to and listen --forward-to refuse a receiver URL with one, naming it without it', async () => {
    for (const args of [
      ['events', 'replay', '7', '--to', withPassword(`${receiverUrl}/hook`)],
      ['listen', '--interval', '100', '--forward-to', withPassword(`${receiverUrl}/hook`)],
    ]) {
      const run = await paykit(args, { PAYKIT_GATEWAY_URL: gatewayUrl });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('must not carry user:password@');
      expect(run.stderr).toContain(`(got "${receiverUrl}/hook")`);
      expectNoUserInfo(run);
    }
    expect(received).toEqual([]);
  });

  it('events replay --to: a failed delivery names the URL with its secret query parameters redacted', async () => {
    const token = 'query-token-never-printed-0001';
    const run = await paykit(['events', 'replay', '7', '--to', `${closedUrl}/hook?token=${token}`], {
      PAYKIT_GATEWAY_URL: gatewayUrl,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${closedUrl}/hook\\?token=\\S+ did not answer event 7`));
    expect(`${run.stdout}\n${run.stderr}`).not.toContain(token);
  });

  it('events replay --dry-run shows the replay, or the delivery --to a receiver, and sends neither', async () => {
    const toGateway = await paykit(['events', 'replay', '7', '--dry-run'], { PAYKIT_GATEWAY_URL: gatewayUrl });
    expect(toGateway.code, toGateway.stderr).toBe(0);
    expect(`${toGateway.stdout}${toGateway.stderr}`).toContain(`${gatewayUrl}/admin/events/7/replay`);
    expect(`${toGateway.stdout}${toGateway.stderr}`).not.toContain(ADMIN);
    const toReceiver = await paykit(['events', 'replay', '7', '--to', `${receiverUrl}/hook`, '--dry-run'], {
      PAYKIT_GATEWAY_URL: gatewayUrl,
    });
    expect(toReceiver.code, toReceiver.stderr).toBe(0);
    expect(`${toReceiver.stdout}${toReceiver.stderr}`).toContain(`${receiverUrl}/hook`);
    expect(gatewayPosts).toEqual([]);
    expect(received).toEqual([]);
  });

  it('an unreachable PAYKIT_GATEWAY_URL: the message names it without it', async () => {
    const run = await paykit(['events', 'list'], { PAYKIT_GATEWAY_URL: withPassword(closedUrl) });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`The gateway at ${closedUrl} does not answer`);
    expectNoUserInfo(run);
  });
});
