// `paykit listen` on a gateway backed by PostgreSQL, where a seq is drawn when a transaction
// inserts and becomes visible when it commits: an event whose transaction commits after a later
// one's (two group-commit batches in flight) must still be printed, once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';
import { TEST_SECRETS, record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const GATEWAY_MAIN = path.resolve(import.meta.dirname, '../../webhook-gateway/src/main.ts');
const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');

/** A stored core event written straight into the gateway's table, as the gateway's append writes one. */
const INSERT = `INSERT INTO webhook_events (source, event_type, dedupe_key, id_msg, raw_body, payload, received_at, outcome, answer_status)
  VALUES ('core', 'STATUS_UPDATE', $1, $2, convert_to($3, 'UTF8'), $3::jsonb, $4, 'stored', 202) RETURNING seq::text AS seq`;
const insert = (id: string) => [`core:STATUS_UPDATE:${id}`, id, JSON.stringify({ id_msg: id }), '2026-11-25T12:00:00Z'];

describe.skipIf(!postgres)('paykit listen on PostgreSQL', () => {
  let opened: OpenedTestDatabase;
  let gateway: AppProcess;
  let dir: string;

  beforeAll(async () => {
    opened = await postgres!.open();
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-listen-'));
    gateway = await startAppProcess({
      name: 'The gateway',
      main: GATEWAY_MAIN,
      env: {
        GATEWAY_PORT: '0',
        DATABASE_URL: opened.url!,
        GATEWAY_CORE_TOKENS_STATUS_UPDATE: TEST_SECRETS.coreWebhookToken,
        GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
        GATEWAY_LOG_LEVEL: 'warn',
      },
      onOutput: (text) => record('gateway output', text),
      startTimeoutMs: 90_000,
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await opened?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints an event whose transaction commits after a later event was printed', async () => {
    const env = {
      PAYKIT_GATEWAY_URL: gateway.url,
      GATEWAY_ADMIN_TOKEN: TEST_SECRETS.adminToken,
      PAYKIT_CONFIG: '',
      HOME: dir,
    };
    const child = spawn(
      process.execPath,
      ['--conditions=@paykit/source', MAIN, '--json', 'listen', '--interval', '100'],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const printed = () =>
      stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { seq: string; id: string }).id);
    try {
      await vi.waitFor(() => expect(stderr).toContain('Listening to'), { timeout: 60_000, interval: 100 });
      let commitLate!: () => void;
      let lateSeq = '';
      const late = opened.db.transaction(async (tx) => {
        lateSeq = (await tx.query<{ seq: string }>(INSERT, insert('late'))).rows[0]!.seq;
        await new Promise<void>((resolve) => (commitLate = resolve));
      });
      await vi.waitFor(() => expect(lateSeq).not.toBe(''), { timeout: 10_000, interval: 20 });
      const early = (await opened.db.query<{ seq: string }>(INSERT, insert('early'))).rows[0]!.seq;
      expect(BigInt(early)).toBeGreaterThan(BigInt(lateSeq));
      await vi.waitFor(() => expect(printed()).toEqual(['early']), { timeout: 30_000, interval: 100 });
      commitLate();
      await late;
      await vi.waitFor(() => expect(printed()).toEqual(['early', 'late']), { timeout: 30_000, interval: 100 });
      // Polls go on: nothing is printed twice.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(printed()).toEqual(['early', 'late']);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 180_000);
});
