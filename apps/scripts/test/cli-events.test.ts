// `paykit events` and `paykit listen` against a real gateway process fed by a real sandbox: lists
// paged over the gateway's cursor with a "more" hint, stored events redelivered byte for byte with
// their headers recomputed (a core bearer token, a fresh cash signature) to a receiver that
// verifies them, and deliveries printed as they arrive, Ctrl-C exiting 0.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCashClient, verifyCashWebhook } from '@paykit/cash-client';
import { CASH_WEBHOOK_PATH, CORE_EVENT_PATHS } from '@paykit/contracts';
import { createCoreClient } from '@paykit/core-client';
import { constantTimeEqual, hmacSha256Hex } from '@paykit/runtime';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { runNode, type NodeRun as Run } from '@paykit/testing/run-node';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { seededClients } from '@paykit/testing/seeded-clients';
import { TEST_SECRETS, declareSecret, record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../webhook-gateway/src/main.ts');
const CORE_TOKEN = TEST_SECRETS.coreWebhookToken;

let sandbox: SandboxProcess;
let gateway: AppProcess;
let dir: string;
let env: Record<string, string>;
let cashSecret: string;

/** A receiver that checks what it is sent: the core bearer token, the cash signature over the raw bytes. */
interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
  verified: boolean;
}
const received: Received[] = [];
let receiverStatus = 200;
let receiver: Server;
let receiverUrl: string;

const paykit = (args: string[], extraEnv: Record<string, string> = {}): Promise<Run> =>
  runNode(MAIN, args, { name: 'paykit', env: { ...process.env, ...env, ...extraEnv }, timeoutMs: 90_000 });
const json = <T>(run: Run): T => JSON.parse(run.stdout) as T;

function verify(headers: IncomingHttpHeaders, body: Buffer): boolean {
  if (headers['x-webhook-signature'] !== undefined) {
    try {
      verifyCashWebhook(body, headers as Record<string, string>, cashSecret);
      return true;
    } catch {
      return false;
    }
  }
  return constantTimeEqual(headers.authorization ?? '', `Bearer ${CORE_TOKEN}`);
}

beforeAll(async () => {
  sandbox = await startSandboxProcess();
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-events-'));
  const seeded = await seededClients(sandbox);
  const core = createCoreClient(seeded.core);
  const cash = createCashClient(seeded.cash);
  // The cash secret_token exists once the webhook is created; the gateway needs it for the activation test.
  const created = await cash.webhooks.create('http://127.0.0.1:9/not-yet');
  cashSecret = String(created.secret_token);
  declareSecret(cashSecret);
  gateway = await startAppProcess({
    name: 'The gateway',
    main: GATEWAY_MAIN,
    env: {
      GATEWAY_PORT: '0',
      PAYKIT_DATA_DIR: path.join(dir, 'gateway-data'),
      GATEWAY_CORE_TOKENS_MONEY_IN: CORE_TOKEN,
      GATEWAY_CASH_SECRET_TOKENS: cashSecret,
      GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
      GATEWAY_LOG_LEVEL: 'warn',
    },
    onOutput: (text) => record('gateway output', text),
    startTimeoutMs: 90_000,
  });
  await cash.webhooks.update(Number(created.id), `${gateway.url}${CASH_WEBHOOK_PATH}`);
  await vi.waitFor(() => cash.webhooks.getActive(), { timeout: 10_000, interval: 100 });
  await core.webhooks.register({
    webhookType: 'MONEY_IN',
    url: `${gateway.url}${CORE_EVENT_PATHS.MONEY_IN}`,
    token: CORE_TOKEN,
  });

  // The cash secret where `paykit cash webhook create` keeps it; the core token from the environment.
  const tokens = path.join(dir, 'tokens');
  mkdirSync(tokens, { recursive: true, mode: 0o700 });
  writeFileSync(path.join(tokens, 'sandbox-cash.secret'), `${cashSecret}\n`, { mode: 0o600 });
  env = {
    PAYKIT_SANDBOX_URL: sandbox.url,
    PAYKIT_GATEWAY_URL: gateway.url,
    GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
    PAYKIT_CORE_WEBHOOK_TOKEN: CORE_TOKEN,
    PAYKIT_TOKEN_DIR: tokens,
    PAYKIT_CONFIG: '',
    HOME: dir,
  };

  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ headers: request.headers, body, verified: verify(request.headers, body) });
      response.writeHead(receiverStatus).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}, 240_000);

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await gateway?.stop();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A money-in and a paid cash operation, each delivered by the sandbox to the gateway. */
async function deliverBoth(): Promise<{ transactionId: string; operationId: number }> {
  const moneyIn = await sandbox.control.triggerIncomingSpei({
    body: { beneficiaryClabe: '646180000000000012', amount: '1300.00' } as never,
  });
  if (moneyIn.status !== 200) throw new Error(`money-in: ${moneyIn.status}`);
  const operation = await sandbox.control.createCashOperation({
    body: { type: 'cash_in', amount: 500, externalUserId: 'listen-1', closedReference: true },
  });
  if (operation.status !== 200) throw new Error(`cash operation: ${operation.status}`);
  const paid = await sandbox.control.setCashOperationStatus({
    params: { operationId: operation.body.operation_id },
    body: { status: 'paid' },
  });
  if (paid.status !== 200) throw new Error(`cash paid: ${paid.status}`);
  return {
    transactionId: (moneyIn.body as { transactionId: string }).transactionId,
    operationId: operation.body.operation_id,
  };
}

interface Line {
  seq: string;
  source: string;
  type: string;
  outcome: string;
  id: string;
  forwarded?: { status?: number };
}

describe('paykit listen and events', () => {
  it('prints each delivery as it reaches the gateway, forwards it verified, and exits 0 on Ctrl-C', async () => {
    const child = spawn(
      process.execPath,
      ['--conditions=@paykit/source', MAIN, '--json', 'listen', '--interval', '100', '--forward-to', receiverUrl],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await vi.waitFor(() => expect(stderr).toContain('Listening to'), { timeout: 30_000, interval: 100 });
      const { transactionId, operationId } = await deliverBoth();
      await vi.waitFor(() => expect(stdout.trim().split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2), {
        timeout: 30_000,
        interval: 100,
      });
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
      const moneyIn = lines.find((l) => l.type === 'MONEY_IN')!;
      const cashLine = lines.find((l) => l.source === 'cash')!;
      expect(moneyIn).toMatchObject({ source: 'core', forwarded: { status: 200 } });
      expect(cashLine.id).toContain(String(operationId));
      expect(cashLine.forwarded).toEqual({ status: 200 });
      // Oldest first, each once.
      expect(new Set(lines.map((l) => l.seq)).size).toBe(lines.length);
      expect(lines.map((l) => BigInt(l.seq))).toEqual(lines.map((l) => BigInt(l.seq)).sort((a, b) => (a < b ? -1 : 1)));
      expect(received.length).toBeGreaterThanOrEqual(2);
      expect(received.every((r) => r.verified)).toBe(true);
      expect(received.some((r) => r.body.toString().includes(transactionId))).toBe(true);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('redelivers a stored event byte for byte with its headers recomputed, and fails (1) when the receiver refuses', async () => {
    await deliverBoth();
    const events = json<{ seq: string; source: string; eventType: string }[]>(
      await paykit(['--json', 'events', 'list', '--limit', '10']),
    );
    const admin = { authorization: `Bearer ${TEST_SECRETS.adminToken}` };
    for (const source of ['core', 'cash']) {
      const event = events.find((e) => e.source === source && e.eventType !== 'activation')!;
      expect(event, source).toBeDefined();
      received.length = 0;
      const run = await paykit(['--json', 'events', 'replay', event.seq, '--to', receiverUrl]);
      expect(run.code, run.stderr).toBe(0);
      expect(json<{ status: number; seq: string }>(run)).toMatchObject({ status: 200, seq: event.seq });
      expect(received).toHaveLength(1);
      const stored = (await (await fetch(`${gateway.url}/admin/events/${event.seq}`, { headers: admin })).json()) as {
        rawBody: string;
      };
      expect(received[0]!.body.equals(Buffer.from(stored.rawBody, 'base64'))).toBe(true);
      expect(received[0]!.verified, source).toBe(true);
      if (source === 'cash')
        expect(received[0]!.headers['x-webhook-signature']).toBe(hmacSha256Hex(cashSecret, received[0]!.body));
      else expect(received[0]!.headers['x-webhook-signature']).toBeUndefined();
    }
    const seq = events[0]!.seq;
    receiverStatus = 500;
    try {
      const refused = await paykit(['events', 'replay', seq, '--to', receiverUrl]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/answered 500/);
    } finally {
      receiverStatus = 200;
    }
    const core = events.find((e) => e.source === 'core')!.seq;
    const noToken = await paykit(['events', 'replay', core, '--to', receiverUrl], {
      PAYKIT_CORE_WEBHOOK_TOKEN: '',
      PAYKIT_TOKEN_DIR: path.join(dir, 'none'),
    });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/PAYKIT_CORE_WEBHOOK_TOKEN/);
    expect((await paykit(['events', 'replay', seq, '--to', 'ftp://x'])).code).toBe(2);
  }, 120_000);

  it('pages the gateway to honour any --limit and --all, and says when there are more', async () => {
    // 1,005 signed cash deliveries: more than one page of the gateway (1,000 at most).
    const total = 1005;
    for (let start = 0; start < total; start += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, total - start) }, async (_, i) => {
          const raw = JSON.stringify({
            event: 'webhook.paid.success',
            operation_id: 900_000 + start + i,
            external_user_id: 'page',
            type: 'cash_in',
            amount: 10,
            reference: '1',
            status: 'paid',
            processed_at: '2026-11-21T10:00:00Z',
          });
          const answer = await fetch(`${gateway.url}${CASH_WEBHOOK_PATH}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'x-webhook-signature': hmacSha256Hex(cashSecret, raw),
            },
            body: raw,
          });
          expect(answer.status).toBe(200);
        }),
      );
    }
    const seqs = (run: Run) => json<{ seq: string }[]>(run).map((e) => BigInt(e.seq));
    const descending = (list: bigint[]) => list.every((seq, i) => i === 0 || seq < list[i - 1]!);

    const byDefault = await paykit(['--json', 'events', 'list', '--source', 'cash']);
    expect(seqs(byDefault)).toHaveLength(50);
    expect(byDefault.stderr).toMatch(/more: run with --limit 100 \/ --all/);

    const paged = await paykit(['--json', 'events', 'list', '--source', 'cash', '--limit', '1003']);
    expect(paged.code, paged.stderr).toBe(0);
    const pagedSeqs = seqs(paged);
    expect(pagedSeqs).toHaveLength(1003);
    expect(descending(pagedSeqs)).toBe(true);
    expect(paged.stderr).toMatch(/more: run with --limit 2006 \/ --all/);

    const all = await paykit(['--json', 'events', 'list', '--source', 'cash', '--all']);
    const allSeqs = seqs(all);
    expect(allSeqs.length).toBeGreaterThanOrEqual(total);
    expect(new Set(allSeqs).size).toBe(allSeqs.length);
    expect(descending(allSeqs)).toBe(true);
    expect(all.stderr).not.toMatch(/more:/);
    expect(allSeqs.slice(0, 1003)).toEqual(pagedSeqs);

    const table = await paykit(['events', 'list', '--source', 'cash', '--limit', '2']);
    expect(table.stdout.trim().split('\n')).toHaveLength(3);
    expect(table.stderr).toMatch(/more: run with --limit 4 \/ --all \(or --before \d+ for the next 2\)/);
    expect((await paykit(['events', 'list', '--limit', '5', '--all'])).code).toBe(2);
  }, 240_000);
});
