// `paykit drift` as users run it, a child process over a PGlite store holding deliveries with
// drift notes: one record per field however many events showed it, --json, the overlay file, and
// clear refusals of bad options.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createEventStore, migrate, openDatabase, type DriftNote, type NewEvent } from '@paykit/store';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
let dir: string;

function moneyIn(minute: number, drift: DriftNote[]): NewEvent {
  const idMsg = randomUUID();
  const payload = {
    msg_name: 'MONEY_IN',
    id_msg: idMsg,
    body: { id: randomUUID(), amount: '10.00', new_field: 'secret-looking-value' },
  };
  return {
    source: 'core',
    eventType: 'MONEY_IN',
    dedupeKey: `core:MONEY_IN:${idMsg}`,
    idMsg,
    transactionId: payload.body.id,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    payload,
    headers: {},
    receivedAt: new Date(Date.UTC(2026, 10, 21, 9, minute)),
    drift,
    outcome: 'accepted',
    reason: null,
    answerStatus: 201,
    refundReason: null,
  };
}

const paykit = (args: string[]): Promise<NodeRun> =>
  runNode(MAIN, args, {
    name: 'paykit',
    env: { ...process.env, PAYKIT_CONFIG: '', HOME: dir, PAYKIT_DATA_DIR: dir, DATABASE_URL: '' },
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'paykit-drift-'));
  const db = await openDatabase({ dataDir: path.join(dir, 'pglite') });
  await migrate(db, [ledgerMigrations]);
  const store = createEventStore(db);
  const note: DriftNote = {
    path: 'body.new_field',
    kind: 'extra-field',
    expected: 'absent: not in the schema',
    seen: 'string (20 chars)',
  };
  for (let i = 0; i < 14; i++) await store.append(moneyIn(i, [note]));
  await store.close();
  await db.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('paykit drift', () => {
  it('lists one record for one unexpected field seen in 14 deliveries, never its value', async () => {
    const run = await paykit(['--json', 'drift']);
    expect(run.code, run.stderr).toBe(0);
    const records = JSON.parse(run.stdout) as {
      pointer: string;
      count: number;
      kind: string;
      firstSeen: string;
      lastSeen: string;
    }[];
    expect(records).toEqual([
      expect.objectContaining({
        pointer: '/body/new_field',
        kind: 'extra-field',
        count: 14,
        firstSeen: '2026-11-21T09:00:00.000Z',
        lastSeen: '2026-11-21T09:13:00.000Z',
      }),
    ]);
    const table = await paykit(['drift']);
    expect(table.stdout).toContain('/body/new_field');
    expect(table.stdout + table.stderr).not.toContain('secret-looking-value');
  });

  it('writes an overlay adding the property to the MONEY_IN body schema', async () => {
    const file = path.join(dir, 'overlay.yaml');
    const run = await paykit(['drift', '--source', 'core', '--overlay', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Wrote 1 action to');
    const overlay = parse(readFileSync(file, 'utf8')) as {
      overlay: string;
      extends: string;
      actions: { target: string; update: unknown }[];
    };
    expect(overlay).toMatchObject({
      overlay: '1.0.0',
      extends: 'core.yaml',
      actions: [
        { target: '$.components.schemas.MoneyInBody', update: { properties: { new_field: { type: 'string' } } } },
      ],
    });
  });

  it('refuses an unknown source, an overlay without a source and a bad limit (exit 2)', async () => {
    const runs = await Promise.all([
      paykit(['drift', '--source', 'wire']),
      paykit(['drift', '--overlay']),
      paykit(['drift', '--limit', 'ten']),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2]);
    expect(runs[0]!.stderr).toContain('--source is one of core, cash, direct_debit');
    expect(runs[1]!.stderr).toContain('add --source');
    expect(runs[2]!.stderr).toContain('--limit is a whole number');
  });
});
