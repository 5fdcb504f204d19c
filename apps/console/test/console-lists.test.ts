// Complete lists and exports over HTTP, on more rows than a page: 1,200 items are linked through
// by rel="next" (and back by rel="prev"), each once, and the CSV and JSON exports hold all of them;
// parked events likewise.
// The finance views: money in and out from the journal (a refused credit and rejected transfers are
// no money at all), receivables by age on the console's fake "now", a report imported twice under two
// names listed once. Amounts read "MXN 1,234.56"; a formula in a cell is neutralised in the CSV.
import { randomUUID } from 'node:crypto';
import { formatReportCsv } from '@paykit/contracts';
import { importReport, reconcileOnce, recordOutbound, registerReceivable } from '@paykit/ledger';
import { createEventStore, type NewEvent } from '@paykit/store';
import { creditEvent, testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const N = 1200;
const ACCOUNT = '646180000000000012';
const RANGE = 'from=2026-11-01&to=2026-11-21';
const money = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/** A credit the gateway refused (the account blocked): in the store, never money in. */
function refusedCredit(id: string): NewEvent {
  return {
    ...creditEvent(
      { id, amount: '5000.00', transaction_date: '20261120', tracking_key: 'EXT-9' },
      { outcome: 'rejected', reason: 'account blocked', answerStatus: 400 },
    ),
    receivedAt: new Date('2026-11-20T16:30:00Z'),
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the console's lists and exports on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let server: TestConsole;
    const ids = new Set<string>();
    let settledCents = 0n;
    let rejectedCents = 0n;

    beforeAll(async () => {
      opened = await kind.open();
      for (let i = 0; i < N; i++) {
        const id = randomUUID();
        const cents = BigInt(100_000 + i * 7 + 1);
        const rejected = i % 4 === 3;
        if (rejected) rejectedCents += cents;
        else settledCents += cents;
        ids.add(id);
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
          status: rejected ? 'REJECTED' : 'LIQUIDATED',
          createdAt: new Date(Date.UTC(2026, 10, 10 + (i % 5), 15, 0, Math.floor(i / 3))),
          response: {},
        });
      }
      const store = createEventStore(opened.db);
      await store.append(refusedCredit(randomUUID()));
      // Three events the worker cannot apply (no body): parked, with the reason.
      for (let i = 0; i < 3; i++) {
        const bad = refusedCredit(randomUUID());
        await store.append({
          ...bad,
          outcome: 'accepted',
          answerStatus: 201,
          reason: null,
          rawBody: new TextEncoder().encode(JSON.stringify({ id_msg: bad.idMsg, msg_name: 'MONEY_IN' })),
        });
      }
      await store.close();
      await reconcileOnce(opened.db);
      for (const [id, dueDate, concept] of [
        ['INV-1', '2026-11-25', 'not yet'],
        ['INV-2', '2026-11-18', '=HYPERLINK("http://evil.example")'],
        ['INV-3', '2026-09-01', '@SUM(A1)'],
      ] as const) {
        await registerReceivable(opened.db, { id, beneficiaryAccount: ACCOUNT, amount: '13065.50', dueDate, concept });
      }
      server = await startTestConsole(opened.db);
    }, 180_000);

    afterAll(async () => {
      await server?.close();
      await opened?.drop();
    });

    const get = (path: string) => server.get(path);
    const unescape = (href: string) => href.replace(/&amp;/g, '&');
    const rel = (html: string, name: 'next' | 'prev') => {
      const found = [...html.matchAll(new RegExp(`<a rel="${name}" href="([^"]+)"`, 'g'))];
      expect(found.length).toBeLessThanOrEqual(1);
      return found[0] ? unescape(found[0][1]!) : null;
    };
    const transactions = (html: string) =>
      [...html.matchAll(/<td class="id"><span title="[^"]*">([0-9a-f]{8}-[0-9a-f-]{27})<\/span><\/td>/g)].map(
        (m) => m[1]!,
      );

    it('links through every item with rel="next", each once, keeping the filter and the order, and back with rel="prev"', async () => {
      let path: string | null = `/items?${RANGE}&limit=500&sort=amount`;
      const seen: string[] = [];
      const pages: string[] = [];
      while (path) {
        const page = await get(path);
        expect(page.status).toBe(200);
        expect(page.text).toContain('<span data-matching="item">1,201 items match');
        pages.push(path);
        seen.push(...transactions(page.text));
        path = rel(page.text, 'next');
        if (path) expect(path).toMatch(/from=2026-11-01.*limit=500.*sort=amount.*after=/);
      }
      expect(pages).toHaveLength(3);
      expect(new Set(seen).size).toBe(N + 1);
      for (const id of ids) expect(seen).toContain(id);
      const last = await get(pages[2]!);
      const back = await get(rel(last.text, 'prev')!);
      expect(transactions(back.text)).toEqual(transactions((await get(pages[1]!)).text));
      // Sorted by amount, ascending: the first page starts with the smallest.
      expect((await get(pages[0]!)).text).toContain('MXN 1,000.01');
    });

    it('exports every item as CSV and JSON, whatever the page size', async () => {
      const csv = await get(`/items.csv?${RANGE}&limit=10`);
      expect(csv.type).toBe('text/csv; charset=utf-8');
      const [header, ...lines] = csv.text.trimEnd().split('\n');
      expect(header).toBe(
        'kind,id,product,day,at,amount,direction,status,trackingKey,account,state,outcome,fields,note,eventSeqs,report,reportDisagreement',
      );
      expect(lines).toHaveLength(N + 1);
      for (const id of ids) expect(csv.text).toContain(`,${id},`);
      const json = JSON.parse((await get(`/items.json?${RANGE}`)).text) as Array<{ id: string; amount: string }>;
      expect(json).toHaveLength(N + 1);
      expect(new Set(json.map((i) => i.id)).size).toBe(N + 1);
    });

    it('reads money from the journal: rejected transfers and a refused credit are no money at all', async () => {
      const volumes = (await get(`/volumes.csv?${RANGE}`)).text.trimEnd().split('\n');
      expect(volumes[0]).toBe('day,direction,figure,count,amount');
      expect(volumes).toContain(`all days,out,settled,900,${money(settledCents)}`);
      expect(volumes).toContain(`all days,out,net,900,${money(settledCents)}`);
      expect(volumes).toContain('all days,in,settled,0,0.00');
      expect(volumes).toContain('all days,in,held,0,0.00');
      expect(volumes.filter((line) => /rejected|refused/.test(line))).toEqual([]);
      expect(rejectedCents).toBeGreaterThan(0n);
      const overview = await get(`/?${RANGE}`);
      const formatted = (cents: bigint) =>
        `MXN ${BigInt(money(cents).split('.')[0]!).toLocaleString('en-US')}.${money(cents).split('.')[1]}`;
      expect(overview.text).toContain(`<strong data-card="money-out">${formatted(settledCents)}</strong>`);
      expect(overview.text).toContain('<strong data-card="money-in">MXN 0.00</strong>');
      expect(overview.text).toContain(`<td class="n" data-money="out|settled">${formatted(settledCents)}</td>`);
      expect(overview.text).toContain('<td class="n" data-money="in|settled">MXN 0.00</td>');
    });

    it("ages receivables on the console's now, with a page and an export whose formulas are neutralised", async () => {
      const page = await get('/receivables');
      expect(page.text).toContain('<td class="n" data-age-count="not yet due">1</td>');
      expect(page.text).toContain('<td class="n" data-age-count="1 to 7 days late">1</td>');
      expect(page.text).toContain('<td class="n" data-age-amount="over 30 days late">MXN 13,065.50</td>');
      const late = await get(`/receivables?age=${encodeURIComponent('1 to 7 days late')}`);
      expect(late.text).toContain('<span title="INV-2">INV-2</span>');
      expect(late.text).not.toContain('<span title="INV-1">INV-1</span>');
      const csv = (await get('/receivables.csv')).text;
      expect(csv).toContain(
        `INV-2,${ACCOUNT},13065.50,13065.50,,"'=HYPERLINK(""http://evil.example"")",2026-11-18,3,1 to 7 days late`,
      );
      expect(csv).toContain(",'@SUM(A1),");
      expect((await get('/receivables-by-age.csv')).text).toContain('over 30 days late,1,13065.50');
    });

    it('lists a report imported under two names once, and says which it repeats', async () => {
      const text = formatReportCsv([
        {
          transactionId: [...ids][0]!,
          trackingKey: null,
          transactionDate: '2026-11-10 09:00:00',
          subCategory: 'SPEI_DEBIT',
          amount: '1000.01',
          status: 'LIQUIDATED',
        },
      ]);
      await importReport(opened.db, 'transactions_daily_20261110.csv', text);
      expect(await importReport(opened.db, 'renamed.csv', text)).toMatchObject({
        imported: false,
        duplicateOf: 'transactions_daily_20261110.csv',
      });
      const files = await get('/reports/files');
      expect(files.text).toContain('<strong data-distinct-reports>1</strong> distinct report by content');
      expect(files.text).toContain('already imported as transactions_daily_20261110.csv');
      const lines = (await get('/reports.csv')).text.trimEnd().split('\n');
      expect(lines).toHaveLength(2);
    });

    it('pages the parked events and exports all of them', async () => {
      let path: string | null = '/parked?limit=2&sort=-seq';
      const seqs: string[] = [];
      let pages = 0;
      while (path) {
        const page = await get(path);
        expect(page.text).toContain('<span data-matching="parked event">3 parked events match');
        seqs.push(...[...page.text.matchAll(/<td><a href="\/events\/(\d+)">/g)].map((m) => m[1]!));
        pages++;
        path = rel(page.text, 'next');
        if (path) expect(path).toMatch(/limit=2.*sort=-seq/);
      }
      expect(pages).toBe(2);
      expect(seqs).toHaveLength(3);
      expect(seqs).toEqual([...seqs].sort((a, b) => Number(b) - Number(a)));
      expect((await get('/parked.csv')).text.trimEnd().split('\n')).toHaveLength(4);
      expect(JSON.parse((await get('/parked.json')).text)).toHaveLength(3);
    });

    it('refuses a sort or a cursor it did not give with a 400 that says what to do', async () => {
      const sort = await get(`/items?${RANGE}&sort=secret`);
      expect(sort.status).toBe(400);
      expect(sort.text).toMatch(/sort must be one of at, amount, product, state, status/);
      const cursor = await get(`/items?${RANGE}&after=AAAA`);
      expect(cursor.status).toBe(400);
      expect(cursor.text).toMatch(/start again from the first page/);
      // An export holds every row (a page's cursor does not narrow it), and checks its order before the first byte.
      const exported = await get(`/conflicts.csv?sort=detail`);
      expect(exported.status).toBe(400);
      expect(exported.text).toMatch(/sort must be one of id, kind, amount, transaction/);
    });

    it('serves its stylesheet and draws charts with axes over the range of days', async () => {
      const css = await get('/console.css');
      expect(css.type).toBe('text/css; charset=utf-8');
      expect(css.text).toContain('@media (max-width:600px)');
      const overview = (await get(`/?${RANGE}`)).text;
      expect(overview).toContain('<link rel="stylesheet" href="/console.css">');
      expect(overview).toMatch(/<svg[^>]*data-chart="volume">[\s\S]*day \(Mexico City\), 2026-11-01 to 2026-11-21/);
      expect(overview).toMatch(/data-chart="match-rate">[\s\S]*>100%<\/text>/);
      expect(overview).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"]*\.(css|js)/);
    });
  });
}
