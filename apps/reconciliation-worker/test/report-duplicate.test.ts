// A report file announced twice under two names with the same content (a platform that sends one
// day's file again as the next day's): the worker imports the first, recognises the second by its content, says
// which file it repeats, and counts its lines once. The sandbox never serves one content under two
// names, so the source here is a stand-in that does (the download and fetch of the core client).
import { formatReportCsv } from '@paykit/contracts';
import { reportMatches } from '@paykit/ledger';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReportFetcher, type ReportSource } from '../src/report-fetch.ts';

const NAMES = ['transactions_daily_20261121.csv', 'transactions_daily_20261122.csv'];
const CSV = formatReportCsv([
  {
    transactionId: 'tx-1',
    trackingKey: null,
    transactionDate: '2026-11-21 10:00:00',
    subCategory: 'SPEI_DEBIT',
    amount: '1500.00',
    status: 'LIQUIDATED',
  },
]);

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`a report file repeated under another name, fetched by the worker, on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open();
      for (const [i, name] of NAMES.entries()) {
        await opened.db.query(
          "INSERT INTO ledger_reports (file_name, file_type, period, created_at, event_seq) VALUES ($1, 'TRANSACTIONS', 'DAILY', $2, $3)",
          [name, `2026-11-2${1 + i}T18:00:00Z`, -1 - i],
        );
      }
    });
    afterAll(async () => opened?.drop());

    it('imports the first, says the second is already imported as the first, and counts its lines once', async () => {
      // The platform's answer for a day: its file's name and address; the same bytes for both days.
      const source: ReportSource = {
        download: async ({ operationDate }) => {
          const fileName = `transactions_daily_${operationDate.replace(/-/g, '')}.csv`;
          return { fileName, downloadUrl: `https://files.example/${fileName}`, found: true };
        },
        fetchFile: async () => CSV,
      };
      const imported: string[] = [];
      const duplicates: Array<[string, string]> = [];
      const fetcher = createReportFetcher(opened.db, source, {
        pollMs: 50,
        timeoutMs: 1000,
        maxBytes: 1 << 20,
        retryBaseMs: 60_000,
        retryMaxMs: 60_000,
        onImported: (file) => imported.push(file),
        onDuplicate: (file, original) => duplicates.push([file, original]),
      });
      expect(await fetcher.runOnce()).toEqual([NAMES[0]]);
      expect(imported).toEqual([NAMES[0]]);
      expect(duplicates).toEqual([[NAMES[1], NAMES[0]]]);
      expect(fetcher.lastErrors.size).toBe(0);
      expect(await reportMatches(opened.db)).toHaveLength(1);
      const files = await opened.db.query<{ file_name: string; duplicate_of: string | null; imported: boolean }>(
        'SELECT file_name, duplicate_of, imported_at IS NOT NULL AS imported FROM ledger_reports ORDER BY created_at',
      );
      expect(files.rows).toEqual([
        { file_name: NAMES[0], duplicate_of: null, imported: true },
        { file_name: NAMES[1], duplicate_of: NAMES[0], imported: true },
      ]);
    });
  });
}
