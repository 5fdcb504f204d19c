// The finance reads: keyset pages that link through every item (1,200, more than a page) and an
// export read that yields all of them; totals summed by the database; money figures from the journal;
// receivables by age on a fake "now"; a report recognised by its content under another name.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReportCsv } from '@paykit/contracts';
import { StoreInputError } from '@paykit/store';
import {
  allItems,
  importReport,
  pageItems,
  pageReceivables,
  pageReportFiles,
  receivablesByAge,
  recordOutbound,
  registerReceivable,
  reportMatches,
  moneyFigures,
  checkBooks,
} from '../src/index.ts';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';

const N = 1200;
const STATUSES = ['LIQUIDATED', 'LIQUIDATED', 'REJECTED', 'CANCELLED', 'IN_PROGRESS'] as const;
const NOW = new Date('2026-11-21T18:00:00Z');
const RANGE = { from: '2026-11-01', to: '2026-11-30', now: NOW };

/** Centavos as a decimal string, without a float. */
const money = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`finance reads on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    const ids: string[] = [];
    const centsByStatus = new Map<string, bigint>();

    // 1,200 transfers recorded one at a time, as the recorder writes them: on PGlite, while CI runs
    // other suites beside it, that took past 120 s.
    beforeAll(async () => {
      opened = await kind.open();
      for (let i = 0; i < N; i++) {
        const id = randomUUID();
        const status = STATUSES[i % STATUSES.length]!;
        const cents = BigInt(100_000 + i * 7 + 1);
        ids.push(id);
        centsByStatus.set(status, (centsByStatus.get(status) ?? 0n) + cents);
        await recordOutbound(opened.db, {
          transactionId: id,
          trackingKey: `PK${String(i).padStart(18, '0')}`,
          operation: 'money_out',
          subCategory: 'SPEI_DEBIT',
          amount: money(cents),
          sourceAccount: null,
          destinationAccount: '012180015118333755',
          expectedHolder: null,
          expectedRfc: null,
          status,
          // Two items per second: many share a timestamp, so the tie-break decides.
          createdAt: new Date(Date.UTC(2026, 10, 10, 15, 0, Math.floor(i / 2))),
          response: {},
        });
      }
    }, 300_000);
    afterAll(async () => opened?.drop());

    it('links through every item with next, and back with prev, each once, with the count and sum from the database', async () => {
      const seen: string[] = [];
      const pages = [];
      let page = await pageItems(opened.db, { ...RANGE, limit: 500 });
      for (;;) {
        pages.push(page);
        expect(page.total).toBe(N);
        seen.push(...page.rows.map((r) => r.id));
        if (!page.next) break;
        page = await pageItems(opened.db, { ...RANGE, limit: 500, after: page.next });
      }
      expect(pages.map((p) => p.rows.length)).toEqual([500, 500, 200]);
      expect(new Set(seen).size).toBe(N);
      expect([...seen].sort()).toEqual([...ids].sort());
      expect(pages[0]!.prev).toBeNull();
      const back = await pageItems(opened.db, { ...RANGE, limit: 500, before: pages[2]!.prev! });
      expect(back.rows.map((r) => r.id)).toEqual(pages[1]!.rows.map((r) => r.id));
      expect(back.next).toBe(pages[1]!.next);
      const first = await pageItems(opened.db, { ...RANGE, limit: 500, before: back.prev! });
      expect(first.rows.map((r) => r.id)).toEqual(pages[0]!.rows.map((r) => r.id));
      expect(first.prev).toBeNull();
      // Every item here is money out: the in total is zero, never added to it.
      expect(page.amountOut).toBe(money([...centsByStatus.values()].reduce((a, b) => a + b, 0n)));
      expect(page.amountIn).toBe('0.00');
    });

    it('sorts by amount both ways, and keeps the filter on every page', async () => {
      const up = await pageItems(opened.db, { ...RANGE, sort: 'amount', limit: 3 });
      expect(up.rows.map((r) => r.amount)).toEqual(['1000.01', '1000.08', '1000.15']);
      const down = await pageItems(opened.db, { ...RANGE, sort: '-amount', limit: 2, states: ['matched'] });
      const next = await pageItems(opened.db, {
        ...RANGE,
        sort: '-amount',
        limit: 2,
        states: ['matched'],
        after: down.next!,
      });
      expect([...down.rows, ...next.rows].every((r) => r.state === 'matched')).toBe(true);
      expect(Number(next.rows[0]!.amount)).toBeLessThan(Number(down.rows[1]!.amount));
      // REJECTED and CANCELLED are final answers too: the item is matched, its money is not settled.
      expect(down.total).toBe((N / 5) * 4);
    });

    it('reads every item for an export, in batches, each once', async () => {
      for (const batch of [undefined, 500, 7]) {
        const seen: string[] = [];
        for await (const item of allItems(opened.db, { ...RANGE, batch })) seen.push(item.id);
        expect(seen).toHaveLength(N);
        expect(new Set(seen).size).toBe(N);
      }
    });

    it('refuses a cursor it did not give and a sort it does not know, saying what to do', async () => {
      await expect(pageItems(opened.db, { ...RANGE, after: 'bm90LWEtY3Vyc29y' })).rejects.toThrow(
        /start again from the first page/,
      );
      await expect(
        pageItems(opened.db, { ...RANGE, after: "'; DROP TABLE ledger_outbound; --" }),
      ).rejects.toBeInstanceOf(StoreInputError);
      await expect(pageItems(opened.db, { ...RANGE, sort: 'amount; DROP' })).rejects.toThrow(
        /sort must be one of at, amount/,
      );
      // Well-formed, but its values are not of the key's types (a forged cursor): the same answer, not a database error.
      const forged = Buffer.from(JSON.stringify(['not a time', 'outbound', 'x'])).toString('base64url');
      await expect(pageItems(opened.db, { ...RANGE, after: forged })).rejects.toThrow(
        /start again from the first page/,
      );
      const amountForged = Buffer.from(
        JSON.stringify(['1e999999', '2026-11-10 15:00:00+00', 'outbound', 'x']),
      ).toString('base64url');
      await expect(pageItems(opened.db, { ...RANGE, sort: 'amount', after: amountForged })).rejects.toBeInstanceOf(
        StoreInputError,
      );
    });

    it('reads money figures from the journal: in transit and paid apart, rejected money nowhere', async () => {
      const total = (await moneyFigures(opened.db, RANGE)).filter((v) => v.day === null && v.direction === 'out');
      const figure = (name: string) => total.find((v) => v.figure === name);
      expect(figure('in_transit')).toMatchObject({ count: N / 5, amount: money(centsByStatus.get('IN_PROGRESS')!) });
      expect(figure('settled')).toMatchObject({ count: (N / 5) * 2, amount: money(centsByStatus.get('LIQUIDATED')!) });
      expect(figure('returned')).toMatchObject({ count: 0, amount: '0.00' });
      expect(figure('net')).toMatchObject({ amount: money(centsByStatus.get('LIQUIDATED')!) });
      // Every posting balances, and every item's entries are what its facts call for.
      expect(await checkBooks(opened.db)).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
    });

    it('ages open receivables on the Mexico City day of now', async () => {
      const account = '646180000000000012';
      const due = {
        'R-future': '2026-11-22',
        'R-today': '2026-11-21',
        'R-7': '2026-11-14',
        'R-8': '2026-11-13',
        'R-30': '2026-10-22',
        'R-31': '2026-10-21',
      };
      for (const [id, dueDate] of Object.entries(due))
        await registerReceivable(opened.db, { id, beneficiaryAccount: account, amount: '1234567.89', dueDate });
      // 2026-11-22T05:00Z is still the 21st in Mexico City.
      const buckets = await receivablesByAge(opened.db, { now: new Date('2026-11-22T05:00:00Z') });
      expect(buckets).toEqual([
        { age: 'not yet due', count: 1, amount: '1234567.89' },
        { age: 'due today', count: 1, amount: '1234567.89' },
        { age: '1 to 7 days late', count: 1, amount: '1234567.89' },
        { age: '8 to 30 days late', count: 2, amount: '2469135.78' },
        { age: 'over 30 days late', count: 1, amount: '1234567.89' },
      ]);
      const late = await pageReceivables(opened.db, {
        now: new Date('2026-11-22T05:00:00Z'),
        ages: ['8 to 30 days late'],
      });
      expect(late.rows.map((r) => [r.id, r.daysLate])).toEqual([
        ['R-30', 30],
        ['R-8', 8],
      ]);
      expect(late.amount).toBe('2469135.78');
    });

    it('recognises a report by its content under another name: one import, and the second says which', async () => {
      const csv = formatReportCsv([
        {
          transactionId: ids[0]!,
          trackingKey: null,
          transactionDate: '2026-11-10 09:00:00',
          subCategory: 'SPEI_DEBIT',
          amount: '1000.01',
          status: 'LIQUIDATED',
        },
      ]);
      expect(await importReport(opened.db, 'transactions_daily_20261110.csv', csv)).toMatchObject({
        imported: true,
        lines: 1,
        duplicateOf: null,
      });
      expect(await importReport(opened.db, 'copy-of-the-report.csv', csv)).toMatchObject({
        imported: false,
        lines: 1,
        duplicateOf: 'transactions_daily_20261110.csv',
      });
      expect(await importReport(opened.db, 'copy-of-the-report.csv', csv)).toMatchObject({
        imported: false,
        duplicateOf: 'transactions_daily_20261110.csv',
      });
      // The same lines saved by another tool: a byte-order mark, CRLF line ends, no final newline.
      const resaved = `\uFEFF${csv.replace(/\n/g, '\r\n').replace(/\r\n$/, '')}`;
      expect(await importReport(opened.db, 'resaved.csv', resaved)).toMatchObject({
        imported: false,
        lines: 1,
        duplicateOf: 'transactions_daily_20261110.csv',
      });
      expect(await reportMatches(opened.db)).toHaveLength(1);
      const files = await pageReportFiles(opened.db);
      expect(files).toMatchObject({ total: 3, distinct: 1 });
      expect(files.rows.find((f) => f.fileName === 'copy-of-the-report.csv')).toMatchObject({
        duplicateOf: 'transactions_daily_20261110.csv',
      });
      // Two names of one content imported at once: one imports, the other names it.
      const twin = csv.replace('1000.01', '1000.03');
      const both = await Promise.all([
        importReport(opened.db, 'twin-a.csv', twin),
        importReport(opened.db, 'twin-b.csv', twin),
      ]);
      expect(both.filter((r) => r.imported)).toHaveLength(1);
      const first = both.find((r) => r.imported)!.fileName;
      expect(both.find((r) => !r.imported)).toMatchObject({ duplicateOf: first, lines: 1 });
      expect((await reportMatches(opened.db)).filter((m) => m.amount === '1000.03')).toHaveLength(1);
      // Another content under a third name is a report of its own.
      expect(await importReport(opened.db, 'other.csv', csv.replace('1000.01', '1000.02'))).toMatchObject({
        imported: true,
        duplicateOf: null,
      });
    });
  });
}
