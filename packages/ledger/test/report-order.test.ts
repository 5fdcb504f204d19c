// Reports by their own time: three daily files of one day, fetched while 30 transfers went from
// IN_PROGRESS to LIQUIDATED, in every import order, with their REPORT events before the files,
// after them or never: each transfer is compared with the newest file's line (by created_at, else
// by what the content says), never with the one whose name sorts last; an older file imported
// after a newer one changes nothing; two files that disagree about a transfer are shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReportCsv, parseReportCsv } from '@paykit/contracts';
import { migrate } from '@paykit/store';
import { importReport, listItems, reconcileOnce, recordOutbound, type ReconItem } from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, outbound, reportEvent, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-22T20:00:00Z');
const view = { now: NOW, staleAfterSeconds: 86_400, limit: 10_000 };
const N = 30;

/** Every order of the items (n! of them). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, index) =>
    permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  );
}

interface Report {
  fileName: string;
  createdAt: string;
  csv: string;
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`reports by their own time on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    let run = 0;

    const itemsOf = async (ids: readonly string[]): Promise<ReconItem[]> => {
      const byId = new Map((await listItems(suite.opened.db, view)).map((item) => [item.id, item]));
      return ids.map((id) => byId.get(id)!);
    };

    /** 30 transfers of 2026-11-21, recorded IN_PROGRESS and settled by their status updates. */
    async function settledTransfers(): Promise<{ id: string; amount: string }[]> {
      const sent = Array.from({ length: N }, (_, i) => outbound({ amount: `${100 + i}.00` }));
      for (const record of sent) await recordOutbound(suite.opened.db, record);
      await appendAll(
        suite.store,
        sent.map((record) => statusUpdate(record.transactionId, 'LIQUIDATED')),
      );
      await reconcileOnce(suite.opened.db);
      return sent.map((record) => ({ id: record.transactionId, amount: record.amount }));
    }

    const csvOf = (transfers: readonly { id: string; amount: string }[], statusOf: (i: number) => string) =>
      formatReportCsv(
        transfers.map((t, i) => ({
          transactionId: t.id,
          trackingKey: `PK-${t.id.slice(0, 8)}`,
          transactionDate: `2026-11-21 10:${String(i).padStart(2, '0')}:00`,
          subCategory: 'SPEI_DEBIT',
          amount: t.amount,
          status: statusOf(i),
        })),
      );

    /**
     * The day's three files, oldest first: at 12:00 all IN_PROGRESS, at 17:00 the first half
     * LIQUIDATED, at 23:00 all LIQUIDATED. Their names end in hex that sorts them newest first,
     * so the name never agrees with the time.
     */
    function threeFiles(transfers: readonly { id: string; amount: string }[]): Report[] {
      run += 1;
      const name = (hex: string) => `TRANSACTIONS_DAILY_2026-11-21_${run}_${hex}.csv`;
      return [
        {
          fileName: name('ffffffff'),
          createdAt: '2026-11-21T12:00:00-06:00',
          csv: csvOf(transfers, () => 'IN_PROGRESS'),
        },
        {
          fileName: name('7fffffff'),
          createdAt: '2026-11-21T17:00:00-06:00',
          csv: csvOf(transfers, (i) => (i < N / 2 ? 'LIQUIDATED' : 'IN_PROGRESS')),
        },
        {
          fileName: name('00000000'),
          createdAt: '2026-11-21T23:00:00-06:00',
          csv: csvOf(transfers, () => 'LIQUIDATED'),
        },
      ];
    }

    const announce = async (reports: readonly Report[]) => {
      await appendAll(
        suite.store,
        reports.map((r) => reportEvent(r.fileName, r.createdAt)),
      );
      await reconcileOnce(suite.opened.db);
    };

    /** Every transfer compared with `newest`'s line (line i + 2: the header is line 1). */
    async function expectComparedWith(transfers: readonly { id: string }[], newest: Report, files: readonly Report[]) {
      const items = await itemsOf(transfers.map((t) => t.id));
      const allSettled = newest === files[2];
      items.forEach((item, i) => {
        expect(item.report).toEqual({
          fileName: newest.fileName,
          lineNo: i + 2,
          amount: `${100 + i}.00`,
          status: newest.csv.split('\n')[i + 1]!.split(',').at(-1),
        });
        if (allSettled) expect(item).toMatchObject({ state: 'matched', fields: [] });
      });
    }

    it('compares the 30 transfers with the newest file in every import order, events first: all matched', async () => {
      for (const order of permutations([0, 1, 2])) {
        const transfers = await settledTransfers();
        const files = threeFiles(transfers);
        await announce(files);
        const imported: number[] = [];
        for (const index of order) {
          await importReport(suite.opened.db, files[index]!.fileName, files[index]!.csv);
          imported.push(index);
          // An older file imported after a newer one overrides nothing.
          await expectComparedWith(transfers, files[Math.max(...imported)]!, files);
        }
        const items = await itemsOf(transfers.map((t) => t.id));
        expect(items.map((i) => i.state)).toEqual(Array(N).fill('matched'));
        // Each transfer names the older file that still said IN_PROGRESS: the 17:00 file for the
        // half it left in progress, else the 12:00 one.
        items.forEach((item, i) => {
          const older = i < N / 2 ? files[0]! : files[1]!;
          expect(item.reportDisagreement).toEqual({
            fileName: older.fileName,
            lineNo: i + 2,
            amount: `${100 + i}.00`,
            status: 'IN_PROGRESS',
          });
          expect(item.note).toContain(`report ${older.fileName} line ${i + 2} says IN_PROGRESS`);
          expect(item.note).toContain(`the newest, ${files[2]!.fileName} line ${i + 2}, says LIQUIDATED`);
        });
      }
    }, 120_000);

    it('orders files imported before their REPORT events, or without them, by their content', async () => {
      for (const order of permutations([0, 1, 2])) {
        const transfers = await settledTransfers();
        const files = threeFiles(transfers);
        const imported: number[] = [];
        for (const index of order) {
          await importReport(suite.opened.db, files[index]!.fileName, files[index]!.csv);
          imported.push(index);
          // No created_at yet: the same transactions, so the file with more of them further on.
          await expectComparedWith(transfers, files[Math.max(...imported)]!, files);
        }
        // The events come: created_at agrees, nothing moves.
        await announce([...order].reverse().map((index) => files[index]!));
        await expectComparedWith(transfers, files[2]!, files);
      }
    }, 120_000);

    it('orders a file without its event by the latest transaction it lists, a lower bound of its time', async () => {
      const transfers = await settledTransfers();
      const files = threeFiles(transfers);
      // The stale 12:00 file is announced; the newest, not yet. Its content time (10:29, its
      // latest transaction) is before 12:00, so the announced file counts as newer until the
      // newest file's event comes.
      await announce([files[0]!]);
      await importReport(suite.opened.db, files[2]!.fileName, files[2]!.csv);
      await importReport(suite.opened.db, files[0]!.fileName, files[0]!.csv);
      await expectComparedWith(transfers, files[0]!, files);
      expect((await itemsOf([transfers[0]!.id]))[0]).toMatchObject({ state: 'mismatched', fields: ['report.status'] });
      await announce([files[2]!]);
      await expectComparedWith(transfers, files[2]!, files);

      // A file without an event listing a transaction created after an announced file was
      // generated is newer than it, whatever it says.
      const later = outbound({ amount: '77.00', createdAt: new Date('2026-11-21T20:00:00Z') });
      await recordOutbound(suite.opened.db, later);
      await appendAll(suite.store, [statusUpdate(later.transactionId, 'LIQUIDATED')]);
      await reconcileOnce(suite.opened.db);
      const line = (status: string, time: string) => ({
        transactionId: later.transactionId,
        trackingKey: later.trackingKey,
        transactionDate: time,
        subCategory: 'SPEI_DEBIT',
        amount: '77.00',
        status,
      });
      const announced = {
        fileName: `TRANSACTIONS_DAILY_2026-11-21_${run}_zz.csv`,
        createdAt: '2026-11-21T14:30:00-06:00',
      };
      await announce([{ ...announced, csv: '' }]);
      await importReport(
        suite.opened.db,
        announced.fileName,
        formatReportCsv([line('IN_PROGRESS', '2026-11-21 14:00:00')]),
      );
      const unannounced = `TRANSACTIONS_DAILY_2026-11-21_${run}_aa.csv`;
      await importReport(
        suite.opened.db,
        unannounced,
        formatReportCsv([
          line('LIQUIDATED', '2026-11-21 14:00:00'),
          { ...line('LIQUIDATED', '2026-11-21 15:00:00'), transactionId: 'another' },
        ]),
      );
      expect((await itemsOf([later.transactionId]))[0]).toMatchObject({
        state: 'matched',
        report: { fileName: unannounced, lineNo: 2, status: 'LIQUIDATED' },
        reportDisagreement: { fileName: announced.fileName, lineNo: 2, status: 'IN_PROGRESS' },
      });
    }, 120_000);

    it('shows two files that disagree about an amount, and compares with the newest', async () => {
      const transfers = await settledTransfers();
      const [a, b] = transfers;
      const files = threeFiles(transfers);
      const older = { ...files[0]!, csv: csvOf(transfers, () => 'LIQUIDATED').replace(`,${a!.amount},`, ',999.00,') };
      const newer = { ...files[2]!, csv: csvOf(transfers, () => 'LIQUIDATED').replace(`,${b!.amount},`, ',888.00,') };
      await importReport(suite.opened.db, newer.fileName, newer.csv);
      await importReport(suite.opened.db, older.fileName, older.csv);
      await announce([newer, older]);
      const [first, second] = await itemsOf([a!.id, b!.id]);
      // The newest line agrees with us: matched, the older 999.00 shown beside it.
      expect(first).toMatchObject({
        state: 'matched',
        fields: [],
        report: { fileName: newer.fileName, lineNo: 2, amount: '100.00' },
        reportDisagreement: { fileName: older.fileName, lineNo: 2, amount: '999.00', status: 'LIQUIDATED' },
      });
      expect(first!.note).toBe(
        `report ${older.fileName} line 2 says LIQUIDATED 999.00; the newest, ${newer.fileName} line 2, says LIQUIDATED 100.00`,
      );
      // The newest line disagrees with us: mismatched on the report's amount, whatever the older said.
      expect(second).toMatchObject({
        state: 'mismatched',
        fields: ['report.amount'],
        report: { fileName: newer.fileName, lineNo: 3, amount: '888.00' },
        reportDisagreement: { fileName: older.fileName, lineNo: 3, amount: '101.00' },
      });
      // Files that agree show no disagreement.
      const [rest] = await itemsOf([transfers[5]!.id]);
      expect(rest).toMatchObject({ state: 'matched', reportDisagreement: null, note: null });
    }, 60_000);

    it('dates a content by the latest file that repeats it', async () => {
      const transfers = await settledTransfers();
      const files = threeFiles(transfers);
      const settled = { ...files[0]!, csv: files[2]!.csv };
      const stale = { ...files[1]!, csv: files[0]!.csv };
      // The settled content at 12:00, the stale one at 17:00, the settled one again at 23:00
      // under another name: at 23:00 the platform said the settled content.
      await importReport(suite.opened.db, settled.fileName, settled.csv);
      await importReport(suite.opened.db, stale.fileName, stale.csv);
      await announce([settled, stale]);
      expect((await itemsOf([transfers[0]!.id]))[0]).toMatchObject({
        state: 'mismatched',
        report: { fileName: stale.fileName },
      });
      const again = files[2]!;
      expect(await importReport(suite.opened.db, again.fileName, again.csv)).toMatchObject({
        duplicateOf: settled.fileName,
      });
      await announce([again]);
      const items = await itemsOf(transfers.map((t) => t.id));
      expect(items.map((i) => [i.state, i.report?.fileName])).toEqual(Array(N).fill(['matched', settled.fileName]));
    }, 60_000);

    it('orders the reports imported before migration 0014 by the content it reads from their lines', async () => {
      const fresh = await kind.open({ migrate: false });
      try {
        await migrate(fresh.db, [ledgerMigrations], { before: '0014' });
        // Recorded once migrated: recording uses what later migrations add.
        const sent = outbound({ amount: '250.00' });
        const transfers = [{ id: sent.transactionId, amount: sent.amount }];
        const files = threeFiles(transfers);
        // Imported as the import did before 0014: the lines and the line count, no content facts.
        for (const file of files) {
          await fresh.db.query(
            'INSERT INTO ledger_reports (file_name, imported_at, line_count) VALUES ($1, now(), 1)',
            [file.fileName],
          );
          const line = parseReportCsv(file.csv)[0]!;
          await fresh.db.query(
            `INSERT INTO ledger_report_lines (file_name, line_no, transaction_id, transaction_at, sub_category, amount, status)
             VALUES ($1, 2, $2, ($3 || '-06:00')::timestamptz, 'SPEI_DEBIT', $4::numeric, $5)`,
            [file.fileName, line.transactionId, line.transactionDate, line.amount, line.status],
          );
        }
        expect((await migrate(fresh.db, [ledgerMigrations])).applied).toContain('0014_report_order');
        await recordOutbound(fresh.db, sent);
        const { rows } = await fresh.db.query<{ file_name: string; status_rank_sum: string; content_time: Date }>(
          'SELECT file_name, status_rank_sum::text AS status_rank_sum, content_time FROM ledger_reports ORDER BY status_rank_sum, file_name DESC',
        );
        expect(rows.map((r) => [r.file_name, r.status_rank_sum, r.content_time.toISOString()])).toEqual([
          [files[0]!.fileName, '1', '2026-11-21T16:00:00.000Z'],
          [files[1]!.fileName, '2', '2026-11-21T16:00:00.000Z'],
          [files[2]!.fileName, '2', '2026-11-21T16:00:00.000Z'],
        ]);
        // Without their events and without content hashes, one line each: the 12:00 file is the
        // oldest by its status; the other two say the same, so either is the line compared.
        const [item] = await listItems(fresh.db, view);
        expect(item).toMatchObject({ id: sent.transactionId, report: { lineNo: 2, status: 'LIQUIDATED' } });
        expect(item!.reportDisagreement).toMatchObject({ fileName: files[0]!.fileName, status: 'IN_PROGRESS' });
      } finally {
        await fresh.drop();
      }
    }, 60_000);
  });
}
