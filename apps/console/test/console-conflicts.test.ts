// Conflicts in the console: a second credit of one transaction with another amount and a
// redelivery with another body are listed on the overview (with their count) and on their own page
// (narrowed by kind), exported as CSV and JSON, counted in /healthz, and the credit reads
// "conflict" in the items, never "matched".
import { randomUUID } from 'node:crypto';
import { reconcileOnce, registerReceivable } from '@paykit/ledger';
import { createEventStore, type NewEvent } from '@paykit/store';
import { creditEvent, testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleHealth } from '../src/health.ts';
import { createConsoleMetrics } from '../src/metrics.ts';
import { startTestConsole, type TestConsole } from './test-console.ts';

const ACCOUNT = '646180000000000012';

function moneyIn(id: string, amount: string, idMsg = randomUUID()): NewEvent {
  return creditEvent({ id, beneficiary_account: ACCOUNT, amount, tracking_key: 'EXT-1' }, { idMsg });
}

describe('conflicts in the console', () => {
  let opened: OpenedTestDatabase;
  let server: TestConsole;
  const credit = randomUUID();
  const redelivered = randomUUID();

  beforeAll(async () => {
    opened = await testDatabases([ledgerMigrations])[0]!.open();
    const store = createEventStore(opened.db);
    await registerReceivable(opened.db, {
      id: 'INV-777',
      beneficiaryAccount: ACCOUNT,
      amount: '777.77',
      dueDate: '2026-11-30',
    });
    await store.append(moneyIn(credit, '777.77'));
    await store.append(moneyIn(credit, '7777.70'));
    const idMsg = randomUUID();
    await store.append(moneyIn(redelivered, '10.00', idMsg));
    expect(await store.append(moneyIn(redelivered, '99.00', idMsg))).toMatchObject({
      inserted: false,
      answerStatus: 201,
    });
    await store.close();
    await reconcileOnce(opened.db);
    const health = createConsoleHealth(opened.db);
    server = await startTestConsole(opened.db, {
      health,
      metrics: createConsoleMetrics(opened.db, health, { defaultMetrics: false }).registry,
    });
  });

  afterAll(async () => {
    await server?.close();
    await opened?.drop();
  });

  const get = (path: string) => server.get(path);

  it('lists them on the overview with their count, and shows the credit as a conflict', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(
      /<strong data-conflict-count>2<\/strong> recorded \(credit 1, refund 0, second_refund 0, redelivery 1\)/,
    );
    expect(page.text).toContain('a second MONEY_IN for transaction');
    expect(page.text).toMatch(
      new RegExp(
        `<td class="conflict">conflict</td>.*?<td class="id"><span title="${credit}">${credit}</span></td>`,
        's',
      ),
    );
  });

  it('exports them as CSV and JSON', async () => {
    const csv = await get('/conflicts.csv');
    expect(csv.type).toBe('text/csv; charset=utf-8');
    const [header, ...lines] = csv.text.trim().split('\n');
    expect(header).toBe(
      'id,kind,transactionId,eventType,firstSeq,eventSeq,dedupeKey,firstAmount,amount,detail,recordedAt',
    );
    expect(lines).toHaveLength(2);
    expect(lines.some((line) => line.includes(',credit,') && line.includes('777.77,7777.70'))).toBe(true);
    const json = JSON.parse((await get('/conflicts.json')).text) as Array<{ kind: string; transactionId: string }>;
    expect(json.map((c) => [c.kind, c.transactionId]).sort()).toEqual(
      [
        ['credit', credit],
        ['redelivery', redelivered],
      ].sort(),
    );
  });

  it('counts them in /healthz', async () => {
    expect(JSON.parse((await get('/healthz')).text)).toMatchObject({ ok: true, conflicts: 2 });
  });

  it("leaves them out of the console's metrics (the worker reports them, once, whatever the replicas)", async () => {
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.type).toMatch(/^text\/plain/);
    expect(metrics.text).toContain('console_store_ok 1');
    expect(metrics.text).not.toContain('ledger_conflicts');
  });

  it('has a page of its own, narrowed by kind, with its export narrowed the same way', async () => {
    const all = await get('/conflicts');
    expect(all.text).toContain('<span data-matching="conflict">2 conflicts match.</span>');
    const redeliveries = await get('/conflicts?kind=redelivery');
    expect(redeliveries.text).toContain('<span data-matching="conflict">1 conflict matches.</span>');
    expect(redeliveries.text).toContain(`<span title="${redelivered}">${redelivered}</span>`);
    expect(redeliveries.text).not.toContain(`<span title="${credit}">${credit}</span>`);
    expect(redeliveries.text).toContain('href="/conflicts.csv?kind=redelivery"');
    const csv = (await get('/conflicts.csv?kind=redelivery')).text.trim().split('\n');
    expect(csv).toHaveLength(2);
    expect((await get('/conflicts?kind=nonsense')).status).toBe(400);
  });

  it('never counts a conflicting credit as matched', async () => {
    const items = JSON.parse((await get('/items.json?from=2026-11-21&to=2026-11-21')).text) as Array<{
      id: string;
      state: string;
    }>;
    expect(items.find((i) => i.id === credit)).toMatchObject({ state: 'conflict' });
    expect(items.find((i) => i.id === redelivered)).toMatchObject({ state: 'conflict' });
  });
});
