// `paykit events show|list` print stored payloads through the one redaction of @paykit/runtime: a
// delivery that carries card data and secrets (a PAN as a JSON number or dot-grouped in fields not
// named like card fields, security codes under cvv_code, cvvNumber, card_cvn, cv2,
// card_verification and `code` inside `card`, values under secretKey, credential and pin) is
// stored by a real gateway process, and neither the JSON nor the table output shows any of them,
// while a CLABE and an amount are shown as they are.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIRECT_DEBIT_WEBHOOK_PATH } from '@paykit/contracts';
import type { AppProcess } from '@paykit/testing/app-process';
import { startGatewayProcess } from '@paykit/testing/gateway-process';
import { runNode, type NodeRun as Run } from '@paykit/testing/run-node';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const DD_TOKEN = 'dd-webhook-value-redaction-0123456789abcdef';

const HIDDEN = [
  '4111111111111111',
  '5555555555554444',
  '4111.1111',
  '9173',
  '9174',
  '9175',
  '9176',
  '9177',
  '9178',
  '9179',
  'sk_live_0123456789abcdef',
  'cred_0123456789abcdef',
];

let gateway: AppProcess;
let dir: string;
let seq: string;

const paykit = (args: string[]): Promise<Run> =>
  runNode(MAIN, args, {
    name: 'paykit',
    env: {
      ...process.env,
      PAYKIT_GATEWAY_URL: gateway.url,
      PAYKIT_SANDBOX_URL: 'http://127.0.0.1:9',
      GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
      PAYKIT_CONFIG: '',
      HOME: dir,
    },
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-redaction-'));
  gateway = await startGatewayProcess({
    PAYKIT_DATA_DIR: path.join(dir, 'gateway-data'),
    GATEWAY_DIRECT_DEBIT_TOKENS: DD_TOKEN,
  });
  // The raw JSON text: the PAN is a JSON number, as a sender may write it.
  const raw = `{"event":"charge_result","timestamp":"2026-11-21T10:00:00Z","data":{"charge_id":"11111111-1111-4111-8111-00000000c4d0","charge_result":"declined","charge_reference":"ref-1","amount":100,"reference_number":4111111111111111,"printed":"4111.1111.1111.1111","note":"card 5555 5555 5555 4444 declined","card":{"code":"9173","holder":"ANA"},"cvv_code":"9174","cvvNumber":9175,"card_cvn":"9176","cv2":"9177","card_verification":"9178","secretKey":"sk_live_0123456789abcdef","credential":"cred_0123456789abcdef","pin":"9179","clabe":"002180000000000164"}}`;
  const answer = await fetch(`${gateway.url}${DIRECT_DEBIT_WEBHOOK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: DD_TOKEN },
    body: raw,
  });
  expect(answer.status).toBe(200);
  seq = String(((await answer.json()) as { seq: string | number }).seq);
}, 120_000);

afterAll(async () => {
  await gateway?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('events show and events list, as JSON and as a table, mask every planted card number, code and secret', async () => {
  const runs = await Promise.all([
    paykit(['events', 'show', seq, '--json']),
    paykit(['events', 'list', '--json']),
    paykit(['events', 'show', seq]),
  ]);
  for (const run of runs) {
    expect(run.code, run.stderr).toBe(0);
    const output = run.stdout + run.stderr;
    for (const hidden of HIDDEN) expect(output, hidden).not.toContain(hidden);
  }
  const shown = JSON.parse(runs[0]!.stdout) as { event: { payload: { data: Record<string, unknown> } } };
  expect(shown.event.payload.data).toMatchObject({
    reference_number: '************1111',
    printed: '************1111',
    note: 'card ************4444 declined',
    card: { holder: 'ANA' },
    secretKey: '[redacted]',
    credential: '[redacted]',
    pin: '[redacted]',
    clabe: '002180000000000164',
    amount: 100,
  });
  expect(shown.event.payload.data).not.toHaveProperty('cvv_code');
  expect(shown.event.payload.data.card).not.toHaveProperty('code');
  const listed = JSON.parse(runs[1]!.stdout) as { seq: string; payload: unknown }[];
  expect(listed.find((event) => event.seq === seq)?.payload).toEqual(shown.event.payload);
});
