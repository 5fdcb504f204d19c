// Retention: a month of stored events archived to a file and dropped, then restored, changes no
// table of the ledger, no figure and no item; a month the ledger still reads (a held credit) stays,
// with the reason; the restored events are the archived ones byte for byte, in the database they
// came from and in a fresh one; a damaged file is refused before anything is written.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiveOfEvent,
  createEventStore,
  listEventArchives,
  listEventPartitions,
  type Queryable,
} from '@paykit/store';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import {
  accountBalances,
  archiveEvents,
  listItems,
  moneyFigures,
  reconcileOnce,
  recordOutbound,
  restoreArchive,
  verifiedManifest,
} from '../src/index.ts';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, moneyIn, outbound, refund, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-12-15T12:00:00Z');
const SEPTEMBER = new Date('2026-09-10T15:00:00Z');
const OCTOBER = new Date('2026-10-10T15:00:00Z');
const NOVEMBER = new Date('2026-11-21T16:30:00Z');
const RANGE = { from: '2026-09-01', to: '2026-12-31', now: NOW };

/** Every ledger table, each as one digest of its rows: equal digests, equal books. */
async function ledgerDigest(db: Queryable): Promise<Record<string, string>> {
  const { rows } = await db.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'ledger\\_%' ORDER BY tablename`,
  );
  const digest: Record<string, string> = {};
  for (const { tablename } of rows) {
    const result = await db.query<{ d: string | null }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d FROM "${tablename}" t`,
    );
    digest[tablename] = result.rows[0]!.d ?? 'empty';
  }
  return digest;
}

/** The stored events of a range of seqs, every column, with their markers and replays, as text. */
async function eventRows(db: Queryable, seqs: string[]): Promise<string[]> {
  const { rows } = await db.query<{ row: string }>(
    `SELECT row_to_json(x)::text AS row FROM (
       SELECT e.*, a.applied_at, k.deliveries AS key_deliveries,
              (SELECT json_agg(r ORDER BY r.id) FROM webhook_event_replays r WHERE r.seq = e.seq) AS replays
         FROM webhook_events e
         LEFT JOIN webhook_events_applied a ON a.seq = e.seq
         LEFT JOIN webhook_event_keys k ON k.dedupe_key = e.dedupe_key
        WHERE e.seq = ANY($1::bigint[])) x ORDER BY x.seq`,
    [seqs],
  );
  return rows.map((row) => row.row);
}

async function books(db: Queryable) {
  return {
    tables: await ledgerDigest(db),
    figures: await moneyFigures(db, RANGE),
    balances: await accountBalances(db),
    items: await listItems(db, { ...RANGE, limit: 10_000 }),
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`archive and restore on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    let dir: string;
    let september: string[] = [];
    let october: string[] = [];

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'paykit-archive-'));
      const db = suite.opened.db;
      const sent = outbound({ createdAt: new Date('2026-09-10T14:00:00Z') });
      await recordOutbound(db, sent);
      const paid = moneyIn({ amount: '1080.00' }, { receivedAt: SEPTEMBER });
      const paidId = (JSON.parse(new TextDecoder().decode(paid.rawBody)) as { body: { id: string } }).body.id;
      september = await appendAll(suite.store, [
        paid,
        moneyIn({ amount: '250.00' }, { receivedAt: SEPTEMBER }),
        { ...statusUpdate(sent.transactionId, 'LIQUIDATED'), receivedAt: SEPTEMBER },
        { ...refund({ id: paidId, amount: '1080.00' }), receivedAt: SEPTEMBER },
      ]);
      await suite.store.recordReplay({
        seq: september[1]!,
        replayedAt: new Date('2026-09-11T10:00:00Z'),
        drift: [],
        outcome: 'accepted',
        reason: null,
        answerStatus: 201,
        refundReason: null,
      });
      october = await appendAll(suite.store, [
        moneyIn(
          { amount: '970.00', beneficiary_account: '646180000000000099' },
          { receivedAt: OCTOBER, outcome: 'stored', answerStatus: 202, reason: 'held for review: account unknown' },
        ),
      ]);
      await appendAll(suite.store, [moneyIn({ amount: '75.00' }, { receivedAt: NOVEMBER })]);
      await reconcileOnce(db);
    });

    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('archives the months the ledger no longer reads, keeps the one with a held credit, and the books do not move', async () => {
      const db = suite.opened.db;
      const before = await books(db);
      const events = await eventRows(db, september);
      expect(events).toHaveLength(4);

      const result = await archiveEvents(db, { before: new Date('2026-11-01T00:00:00Z'), dir, now: NOW });
      expect(result.archived.map((m) => m.partition)).toEqual(['webhook_events_2026_09']);
      expect(result.archived[0]).toMatchObject({ events: 4 });
      expect(result.kept).toEqual([
        expect.objectContaining({
          partition: 'webhook_events_2026_10',
          events: 1,
          reason: expect.stringMatching(/1 credit\(s\) still held/),
        }),
      ]);

      expect(await eventRows(db, september)).toEqual([]);
      expect(await eventRows(db, october)).toHaveLength(1);
      const names = (await listEventPartitions(db)).map((p) => p.name);
      expect(names).not.toContain('webhook_events_2026_09');
      expect(names).toContain('webhook_events_2026_10');
      expect(await archiveOfEvent(db, september[2]!)).toMatchObject({ partition: 'webhook_events_2026_09', events: 4 });
      const { manifest } = await verifiedManifest(result.archived[0]!.file);
      expect(manifest).toMatchObject({ events: 4, firstSeq: september[0], lastSeq: september[3] });

      expect(await books(db)).toEqual(before);
      // Nothing for a worker to do: the archived events were applied, and their markers went with them.
      expect(await reconcileOnce(db)).toMatchObject({ applied: 0, parked: 0 });
      expect(await books(db)).toEqual(before);

      // Restored: the same rows, byte for byte, markers and replays included; the books unchanged.
      const restored = await restoreArchive(db, result.archived[0]!.manifest, { now: NOW });
      expect(restored).toMatchObject({ partition: 'webhook_events_2026_09', events: 4, restored: 4 });
      expect(await eventRows(db, september)).toEqual(events);
      expect(await reconcileOnce(db)).toMatchObject({ applied: 0, parked: 0 });
      expect(await books(db)).toEqual(before);
      expect((await listEventArchives(db))[0]!.restoredAt).toEqual(NOW);
      // Twice changes nothing.
      expect(await restoreArchive(db, result.archived[0]!.file)).toMatchObject({ events: 4, restored: 0 });
      expect(await eventRows(db, september)).toEqual(events);

      // Archived again, then restored into a fresh database: the same events there, and its
      // counters moved past them, so what it stores next gets a seq of its own.
      const again = await archiveEvents(db, { before: new Date('2026-10-01T00:00:00Z'), dir, now: NOW });
      expect(again.archived.map((m) => m.partition)).toEqual(['webhook_events_2026_09']);
      const fresh = await kind.open();
      try {
        await restoreArchive(fresh.db, again.archived[0]!.file);
        expect(await eventRows(fresh.db, september)).toEqual(events);
        const next = await createEventStore(fresh.db).append(moneyIn({}, { receivedAt: NOVEMBER }));
        expect(BigInt(next.seq)).toBeGreaterThan(BigInt(september[3]!));
      } finally {
        await fresh.drop();
      }
    });

    it('refuses a damaged archive and a month inside the dedupe window, and writes nothing', async () => {
      const db = suite.opened.db;
      const archived = (await listEventArchives(db)).find((a) => a.partition === 'webhook_events_2026_09')!;
      const bytes = await readFile(archived.file);
      const copyDir = await mkdtemp(path.join(tmpdir(), 'paykit-archive-damaged-'));
      try {
        const copy = path.join(copyDir, path.basename(archived.file));
        bytes[bytes.length - 10] = (bytes[bytes.length - 10]! + 1) % 256;
        await writeFile(copy, bytes);
        await writeFile(
          copy.replace(/\.ndjson\.gz$/, '.manifest.json'),
          await readFile(archived.file.replace(/\.ndjson\.gz$/, '.manifest.json')),
        );
        await expect(restoreArchive(db, copy)).rejects.toThrow(/does not match its manifest: sha256/);
        expect(await eventRows(db, september)).toEqual([]);
      } finally {
        await rm(copyDir, { recursive: true, force: true });
      }
      await expect(archiveEvents(db, { before: new Date('2026-12-01T00:00:00Z'), dir, now: NOW })).rejects.toThrow(
        /within the 30-day dedupe window: .* archive up to 2026-11-15 at the latest/,
      );
    });
  });
}
