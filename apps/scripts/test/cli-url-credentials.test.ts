// A URL's user-info (`user:password@`) is a credential: the CLI never prints it, on any surface that
// shows a URL. `events replay --to` whose fetch fails, `listen --forward-to`'s first line, and a
// `PAYKIT_GATEWAY_URL` that does not answer, each with a password in the URL, against a scripted
// gateway (a real HTTP server on 127.0.0.1) that serves one stored event.
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
/** A port nothing listens on. */
let closedUrl: string;

beforeAll(async () => {
  gateway = http.createServer((request, response) => {
    const send = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url?.startsWith('/admin/events/7'))
      return send({ event: EVENT, replays: [], rawBody: Buffer.from('{"event":"charge_result"}').toString('base64') });
    return send({ events: [] });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
});
afterAll(async () => {
  gateway.closeAllConnections();
  await new Promise<void>((resolve) => gateway.close(() => resolve()));
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
  it('events replay --to: the failed delivery names the URL without it', async () => {
    const run = await paykit(['events', 'replay', '7', '--to', withPassword(`${closedUrl}/hook`)], {
      PAYKIT_GATEWAY_URL: gatewayUrl,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`${closedUrl}/hook did not answer event 7`);
    expectNoUserInfo(run);
  });

  it('listen --forward-to: the first line names the URL without it', async () => {
    // listen runs until stopped: killed after 15 s, its first line long out by then.
    const run = await paykit(
      ['listen', '--interval', '100', '--forward-to', withPassword(`${closedUrl}/hook`)],
      { PAYKIT_GATEWAY_URL: gatewayUrl },
      15_000,
    );
    expect(run.stderr).toContain(`Listening to ${gatewayUrl} (every 100 ms, forwarding to ${closedUrl}/hook)`);
    expectNoUserInfo(run);
  }, 30_000);

  it('an unreachable PAYKIT_GATEWAY_URL: the message names it without it', async () => {
    const run = await paykit(['events', 'list'], { PAYKIT_GATEWAY_URL: withPassword(closedUrl) });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(`The gateway at ${closedUrl} does not answer`);
    expectNoUserInfo(run);
  });
});
