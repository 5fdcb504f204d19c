// Held money through the CLI, as an operator meets it: the gateway holds a credit for an account it
// does not know (answered 202), the worker's ledger books it apart, `paykit held release` asks the
// gateway to re-decide it and is refused while the account is unknown, then releases it once the
// account is added with `paykit known-accounts add`; `paykit books` shows it as money in and the books holding. The gateway and the
// CLI share one PostgreSQL database (PGlite is one process's), so this runs where DATABASE_URL is set,
// as in CI.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../webhook-gateway/src/main.ts');
const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');
const UNKNOWN_CLABE = '646180000000000999';

describe.skipIf(postgres === undefined)('paykit held and books, against a gateway on PostgreSQL', () => {
  let opened: OpenedTestDatabase;
  let gateway: AppProcess;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    opened = await postgres!.open();
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-held-'));
    gateway = await startAppProcess({
      name: 'The gateway',
      main: GATEWAY_MAIN,
      env: {
        GATEWAY_PORT: '0',
        DATABASE_URL: opened.url!,
        GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken,
        GATEWAY_UNKNOWN_ACCOUNT: 'hold',
        GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
        GATEWAY_LOG_LEVEL: 'warn',
      },
      onOutput: (text) => record('gateway output', text),
      startTimeoutMs: 90_000,
    });
    env = {
      ...(process.env as Record<string, string>),
      DATABASE_URL: opened.url!,
      PAYKIT_GATEWAY_URL: gateway.url,
      GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
      PAYKIT_SANDBOX_URL: 'http://127.0.0.1:9',
      PAYKIT_CONFIG: '',
      HOME: dir,
    };
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await opened?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const paykit = async (args: string[]): Promise<NodeRun> => {
    const run = await runNode(MAIN, args, { name: 'paykit', env, timeoutMs: 90_000 });
    for (const secret of Object.values(TEST_SECRETS)) expect(run.stdout + run.stderr).not.toContain(secret);
    return run;
  };
  const ok = async <T>(args: string[]): Promise<T> => {
    const run = await paykit(['--json', ...args]);
    expect(run.code, `paykit ${args.join(' ')}: ${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout) as T;
  };

  it('holds, refuses to release while the gateway would hold it still, then releases and books it', async () => {
    const id = randomUUID();
    const delivered = await fetch(`${gateway.url}/webhooks/core/money-in`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_SECRETS.coreWebhookToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        id_msg: randomUUID(),
        msg_name: 'MONEY_IN',
        msg_date: '2026-11-21',
        body: {
          id,
          beneficiary_account: UNKNOWN_CLABE,
          payer_account: '012180000045678907',
          payer_institution: '40012',
          amount: '970.00',
          transaction_date: '2026-11-21 10:15:00',
          tracking_key: `EXT${id.slice(0, 8)}`,
          numeric_reference: '5500001',
          sub_category: 'SPEI_CREDIT',
          owner_id: randomUUID(),
        },
      }),
    });
    expect(delivered.status).toBe(202);
    expect((await paykit(['reconcile', 'run', '--once'])).code).toBe(0);

    const held = await ok<Array<{ seq: string; transactionId: string; amount: string }>>(['held', 'list']);
    expect(held.map((h) => [h.transactionId, h.amount])).toEqual([[id, '970.00']]);
    const seq = held[0]!.seq;
    const books = await ok<{
      figures: Array<{ day: string | null; direction: string; figure: string; amount: string }>;
    }>(['books']);
    const total = (figures: typeof books.figures, figure: string) =>
      figures.find((f) => f.day === null && f.direction === 'in' && f.figure === figure)?.amount;
    expect([total(books.figures, 'settled'), total(books.figures, 'held')]).toEqual(['0.00', '970.00']);

    const refused = await paykit(['held', 'release', seq]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`still does not accept event ${seq} \\(stored: held for review`));

    const added = await ok<{ clabe: string; status: string }>(['known-accounts', 'add', UNKNOWN_CLABE]);
    expect(added).toMatchObject({ clabe: UNKNOWN_CLABE, status: 'ACTIVE' });
    const released = await ok<{ transactionId: string; releasedBy: string; note: string }>([
      'held',
      'release',
      seq,
      '--by',
      'ana@finance',
      '--note',
      'account added',
    ]);
    expect(released).toMatchObject({ transactionId: id, releasedBy: 'ana@finance', note: 'account added' });
    expect(await ok<unknown[]>(['held', 'list'])).toEqual([]);

    const after = await ok<{ figures: typeof books.figures; check: { ok: boolean } }>(['books']);
    expect([total(after.figures, 'settled'), total(after.figures, 'held'), after.check.ok]).toEqual([
      '970.00',
      '0.00',
      true,
    ]);
    const entries = await ok<Array<{ account: string; amount: string; source: string }>>(['books', 'item', `tx:${id}`]);
    expect(entries.map((e) => `${e.account} ${e.amount} ${e.source.split(':')[0]}`)).toEqual([
      `in:held -970.00 event`,
      `platform:${UNKNOWN_CLABE} 970.00 event`,
      'in:held 970.00 event',
      'in:received -970.00 release',
    ]);
    expect((await paykit(['books', 'item', 'nonsense'])).code).toBe(2);
  }, 240_000);
});
