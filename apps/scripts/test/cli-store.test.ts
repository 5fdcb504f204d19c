// Retention through the CLI, as an operator runs it: `paykit store partitions` makes the months
// ahead and lists them; `paykit store archive` needs --before, refuses a day inside the dedupe
// window, archives a month whose events are applied and says why a month stays; `paykit store
// archives` lists the archive; `paykit store restore` brings it back, and refuses a file that is
// not an archive. On PostgreSQL (where DATABASE_URL is set, as in CI): the CLI is another process.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createEventStore } from '@paykit/store';
import { creditEvent, testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { runNode, type NodeRun } from '@paykit/testing/run-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');

describe.skipIf(postgres === undefined)('paykit store, on PostgreSQL', () => {
  let opened: OpenedTestDatabase;
  let dir: string;
  let env: Record<string, string>;
  const seqs: string[] = [];

  beforeAll(async () => {
    opened = await postgres!.open();
    dir = mkdtempSync(path.join(tmpdir(), 'paykit-store-cli-'));
    const store = createEventStore(opened.db);
    for (const [receivedAt, amount] of [
      ['2025-03-10T15:00:00Z', '210.00'],
      ['2025-03-11T15:00:00Z', '220.00'],
    ] as const) {
      const event = {
        ...creditEvent({ id: randomUUID(), amount, tracking_key: `EXT-CLI-${amount}` }),
        receivedAt: new Date(receivedAt),
      };
      seqs.push((await store.append(event)).seq);
    }
    await store.close();
    env = { ...(process.env as Record<string, string>), DATABASE_URL: opened.url!, PAYKIT_CONFIG: '', HOME: dir };
  }, 60_000);
  afterAll(async () => {
    await opened?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const paykit = (args: string[]): Promise<NodeRun> => runNode(MAIN, args, { name: 'paykit', env, timeoutMs: 90_000 });

  it('archives an applied month, lists it, restores it, and explains every refusal', async () => {
    const noDay = await paykit(['store', 'archive']);
    expect(noDay.code).toBe(2);
    expect(noDay.stderr).toMatch(/--before must be a day, YYYY-MM-DD/);
    const tooLate = await paykit(['store', 'archive', '--before', '2099-01-01', '--dir', dir]);
    expect(tooLate.code).toBe(2);
    expect(tooLate.stderr).toMatch(/within the 30-day dedupe window/);

    // Not applied yet: the month stays, and the command says why.
    const early = await paykit(['--json', 'store', 'archive', '--before', '2025-05-01', '--dir', dir]);
    expect(early.code, early.stderr).toBe(0);
    expect(early.stderr).toMatch(
      /kept webhook_events_2025_03 \(2 events\): 2 event\(s\) above the worker's claim floor/,
    );
    expect(JSON.parse(early.stdout)).toMatchObject({ archived: [] });

    expect((await paykit(['reconcile', 'run', '--once'])).code).toBe(0);
    const archived = await paykit(['--json', 'store', 'archive', '--before', '2025-05-01', '--dir', dir]);
    expect(archived.code, archived.stderr).toBe(0);
    const result = JSON.parse(archived.stdout) as {
      archived: Array<{ partition: string; events: number; file: string }>;
    };
    expect(result.archived).toEqual([
      expect.objectContaining({
        partition: 'webhook_events_2025_03',
        events: 2,
        file: path.join(dir, 'webhook_events_2025_03.ndjson.gz'),
      }),
    ]);
    const gone = await opened.db.query('SELECT 1 FROM webhook_events WHERE seq = ANY($1::bigint[])', [seqs]);
    expect(gone.rows).toEqual([]);

    const listed = await paykit(['store', 'archives']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`webhook_events_2025_03.*2.*${seqs[0]}–${seqs[1]}`));

    const notArchive = path.join(dir, 'notes.manifest.json');
    writeFileSync(notArchive, '{"format":"something else"}');
    const refused = await paykit(['store', 'restore', notArchive]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is not a paykit event archive manifest/);

    const restored = await paykit(['--json', 'store', 'restore', result.archived[0]!.file]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ partition: 'webhook_events_2025_03', events: 2, restored: 2 });
    const back = await opened.db.query('SELECT 1 FROM webhook_events WHERE seq = ANY($1::bigint[])', [seqs]);
    expect(back.rows).toHaveLength(2);

    const partitions = await paykit(['--json', 'store', 'partitions']);
    expect(partitions.code).toBe(0);
    const names = (JSON.parse(partitions.stdout) as Array<{ name: string; events: number }>).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['webhook_events_2025_03', 'webhook_events_default']));
  });
});
