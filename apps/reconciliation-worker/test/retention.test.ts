// The worker's store upkeep, on its own clock: with WORKER_RETENTION_DAYS it archives the months
// that ended more than that many days ago once their events are applied, says so on /healthz
// (months ahead, archived, kept), and keeps a month that is not past the retention; the books
// do not change. A retention shorter than the dedupe window is refused at start.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkBooks, moneyFigures } from '@paykit/ledger';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { createEventStore, listEventPartitions } from '@paykit/store';
import { creditEvent, testDatabases } from '@paykit/store/testing';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { startWorker } from '../src/worker.ts';

const NOW = new Date('2026-12-20T12:00:00Z');

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('retention in the worker', () => {
  it('refuses a retention shorter than the dedupe window, naming both', () => {
    expect(() => loadConfig({ WORKER_RETENTION_DAYS: '7' })).toThrow(ConfigError);
    expect(() => loadConfig({ WORKER_RETENTION_DAYS: '7' })).toThrow(
      /WORKER_RETENTION_DAYS \(7\) must be at least WORKER_DEDUPE_WINDOW_DAYS \(30\)/,
    );
    expect(() => loadConfig({ WORKER_RETENTION_DAYS: 'ninety' })).toThrow(
      /WORKER_RETENTION_DAYS must be a whole number of days/,
    );
    expect(loadConfig({}).retention).toMatchObject({ days: undefined, dedupeWindowDays: 30, everyMs: 3_600_000 });
  });

  for (const kind of testDatabases([ledgerMigrations])) {
    it(`archives the months past the retention once applied, and keeps the books, on ${kind.name}`, async () => {
      const opened = await kind.open();
      const dir = await mkdtemp(path.join(tmpdir(), 'paykit-retention-'));
      try {
        const store = createEventStore(opened.db);
        const at = (receivedAt: string, amount: string) => ({
          ...creditEvent({ id: randomUUID(), amount, tracking_key: `EXT-RET-${amount}` }),
          receivedAt: new Date(receivedAt),
        });
        await store.append(at('2026-08-14T15:00:00Z', '120.00'));
        await store.append(at('2026-09-03T15:00:00Z', '130.00'));
        await store.append(at('2026-10-25T15:00:00Z', '140.00'));
        await store.close();
        const range = { from: '2026-08-01', to: '2026-12-31', now: NOW };

        // Sixty days: August and September ended before 2026-10-21, October did not.
        const config = loadConfig({
          WORKER_PORT: '0',
          WORKER_POLL_MS: '20',
          WORKER_RETENTION_DAYS: '60',
          WORKER_ARCHIVE_DIR: dir,
          WORKER_RETENTION_EVERY_MS: '3600000',
        });
        const worker = await startWorker(config, { database: opened.db, now: () => NOW });
        let figures: Awaited<ReturnType<typeof moneyFigures>> | undefined;
        try {
          // The upkeep at start may run before the events are applied: those months then wait for the next run.
          await until(async () => (await fetchHealth(worker.url)).waiting === 0, 'the events applied');
          figures = await moneyFigures(opened.db, range);
          await worker.retention!.runOnce();
          expect(worker.retention!.status.archived).toBe(2);
          const health = await fetchHealth(worker.url);
          expect(health.storeUpkeep).toMatchObject({ monthsAhead: 3, archived: 2, kept: [], lastError: null });
        } finally {
          await worker.close();
        }
        const names = (await listEventPartitions(opened.db)).map((p) => p.name);
        expect(names).not.toContain('webhook_events_2026_08');
        expect(names).not.toContain('webhook_events_2026_09');
        expect(names).toEqual(expect.arrayContaining(['webhook_events_2026_12', 'webhook_events_2027_03']));
        // October stays, wherever it is stored (the default partition here: no partition was made for it).
        const october = await opened.db.query<{ n: string }>(
          "SELECT count(*)::text AS n FROM webhook_events WHERE received_at >= '2026-10-01' AND received_at < '2026-11-01'",
        );
        expect(october.rows[0]!.n).toBe('1');
        for (const month of ['2026_08', '2026_09'])
          expect(existsSync(path.join(dir, `webhook_events_${month}.ndjson.gz`))).toBe(true);
        expect(await moneyFigures(opened.db, range)).toEqual(figures);
        expect((await checkBooks(opened.db)).ok).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
        await opened.drop();
      }
    });
  }
});

async function fetchHealth(url: string): Promise<Record<string, unknown> & { waiting: number | null }> {
  const response = await fetch(`${url}/healthz`);
  return (await response.json()) as Record<string, unknown> & { waiting: number | null };
}
