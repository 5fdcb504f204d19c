// Which report line an item was compared with, on the console: the items page links the line of
// the newest report (by the REPORT events' created_at, not by file name) and shows an older file
// that said otherwise; the items export carries both.
import { randomUUID } from 'node:crypto';
import { formatReportCsv } from '@paykit/contracts';
import { importReport, reconcileOnce, recordOutbound } from '@paykit/ledger';
import { createEventStore, type EventStore, type NewEvent } from '@paykit/store';
import { testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestConsole, type TestConsole } from './test-console.ts';

const RANGE = 'from=2026-11-01&to=2026-11-21';

/** An event as the gateway stores it: a flat REPORT, or a STATUS_UPDATE in its envelope. */
function stored(
  eventType: 'REPORT' | 'STATUS_UPDATE',
  dedupeKey: string,
  payload: object,
  transactionId: string | null,
): NewEvent {
  return {
    source: 'core',
    eventType,
    dedupeKey,
    idMsg: null,
    transactionId,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-11-21T17:00:00Z'),
    drift: [],
    outcome: 'stored',
    reason: null,
    answerStatus: 200,
    refundReason: null,
  };
}

const reportEvent = (fileName: string, createdAt: string) =>
  stored(
    'REPORT',
    `core:report:${fileName}`,
    {
      client_id: '11111111-1111-4111-8111-111111111111',
      file_type: 'TRANSACTIONS',
      period: 'DAILY',
      file_name: fileName,
      created_at: createdAt,
    },
    null,
  );

function statusUpdate(id: string, status: string): NewEvent {
  const idMsg = randomUUID();
  const body = {
    id,
    tracking_key: 'PK-REPORT-LINE',
    message_type: 'SPEI',
    status,
    update_at: '2026-11-21T10:16:00-06:00',
  };
  return {
    ...stored(
      'STATUS_UPDATE',
      `core:STATUS_UPDATE:${idMsg}`,
      { id_msg: idMsg, msg_name: 'STATUS_UPDATE', msg_date: '2026-11-21', body },
      id,
    ),
    idMsg,
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the report line of an item on the console on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let store: EventStore;
    let server: TestConsole;
    const id = randomUUID();
    // The names sort the stale file last.
    const stale = 'TRANSACTIONS_DAILY_2026-11-21_ffffffff.csv';
    const newest = 'TRANSACTIONS_DAILY_2026-11-21_00000000.csv';

    beforeAll(async () => {
      opened = await kind.open();
      store = createEventStore(opened.db);
      await recordOutbound(opened.db, {
        transactionId: id,
        trackingKey: 'PK-REPORT-LINE',
        operation: 'money_out',
        subCategory: 'SPEI_DEBIT',
        amount: '4321.00',
        sourceAccount: null,
        destinationAccount: '012180015118333755',
        expectedHolder: null,
        expectedRfc: null,
        status: 'IN_PROGRESS',
        createdAt: new Date('2026-11-21T16:00:00Z'),
        response: {},
      });
      await store.append(statusUpdate(id, 'LIQUIDATED'));
      await store.append(reportEvent(stale, '2026-11-21T11:00:00-06:00'));
      await store.append(reportEvent(newest, '2026-11-21T11:30:00-06:00'));
      await reconcileOnce(opened.db);
      const line = (status: string) => ({
        transactionId: id,
        trackingKey: 'PK-REPORT-LINE',
        transactionDate: '2026-11-21 10:00:00',
        subCategory: 'SPEI_DEBIT',
        amount: '4321.00',
        status,
      });
      const other = { ...line('LIQUIDATED'), transactionId: randomUUID() };
      await importReport(opened.db, newest, formatReportCsv([other, line('LIQUIDATED')]));
      await importReport(opened.db, stale, formatReportCsv([other, line('IN_PROGRESS')]));
      server = await startTestConsole(opened.db);
    }, 120_000);

    afterAll(async () => {
      await server?.close();
      await store?.close();
      await opened?.drop();
    });

    it('links the newest report line on the items page and shows the older file that said otherwise', async () => {
      const page = await server.get(`/items?${RANGE}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<th>report line</th>');
      expect(page.text).toContain(
        `<td data-report-line="${newest}:3"><a href="/reports?file=${encodeURIComponent(newest)}">${newest} line 3</a>`,
      );
      expect(page.text).toContain(
        `<span class="disagreement" data-report-disagreement="${stale}:3">older: <a href="/reports?file=${encodeURIComponent(stale)}">${stale} line 3</a> says IN_PROGRESS MXN 4,321.00</span>`,
      );
      expect(page.text).toContain('<td class="matched">matched</td>');
    });

    it('lists each report file with the time that orders it', async () => {
      const files = (await server.get('/reports/files')).text;
      expect(files).toContain('<th>created at</th>');
      expect(files).toContain(
        '<td class="t"><time datetime="2026-11-21T17:30:00.000Z">2026-11-21 17:30:00 UTC</time></td>',
      );
      expect(files).toContain(
        '<td class="t"><time datetime="2026-11-21T16:00:00.000Z">2026-11-21 16:00:00 UTC</time></td>',
      );
    });

    it('exports the report line and the disagreement with each item', async () => {
      const csv = (await server.get(`/items.csv?${RANGE}`)).text.trimEnd().split('\n');
      expect(csv[0]).toBe(
        'kind,id,product,day,at,amount,direction,status,trackingKey,account,state,outcome,fields,note,eventSeqs,report,reportDisagreement',
      );
      const row = csv.find((r) => r.includes(id))!;
      expect(row).toContain(`""fileName"":""${newest}"",""lineNo"":3`);
      expect(row).toContain(`""fileName"":""${stale}"",""lineNo"":3,""amount"":""4321.00"",""status"":""IN_PROGRESS""`);
      const json = JSON.parse((await server.get(`/items.json?${RANGE}`)).text) as Array<Record<string, unknown>>;
      expect(json.find((i) => i.id === id)).toMatchObject({
        state: 'matched',
        report: { fileName: newest, lineNo: 3, amount: '4321.00', status: 'LIQUIDATED' },
        reportDisagreement: { fileName: stale, lineNo: 3, status: 'IN_PROGRESS' },
      });
    });
  });
}
