// The scenario end to end: the sandbox (its own process) delivers to the gateway (its own
// process) — SPEI out settled, rejected and reversed; an internal transfer with its INT_CREDIT;
// penny validations verified and mismatched; credits matched and unmatched; a credit refused and
// refunded; every delivery duplicated and reordered — then the worker applies what the gateway
// stored and every item ends in exactly the expected state. The console (its own process, on the
// same database) is then opened in headless Chromium and its numbers must equal the summary.
import {
  createTransactionRecorder,
  listItems,
  reconcileOnce,
  reconciliationSummary,
  registerReceivable,
  type ReconItem,
} from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppProcess } from '@paykit/testing/app-process';
import { describeInBrowser, launchChromium } from '@paykit/testing/browser';
import { startConsoleProcess } from './console-process.ts';
import { ACME_CLABE, runFlows, startPipeline, type Pipeline } from './pipeline.ts';

describe('the reconciliation scenario through the sandbox and the gateway', () => {
  let pipeline: Pipeline | undefined;
  let db: Database;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    pipeline = await startPipeline('scenario');
    const { sandbox } = pipeline;
    await sandbox.control.setFaults({
      body: {
        deliveries: { duplicates: { min: 2, max: 2 }, reorder: true, delayMs: 0 },
        api: { latencyMs: 0, errorRate: 0 },
      },
    });

    Object.assign(ids, await runFlows(pipeline, { pennyMismatch: true }));
    await sandbox.control.setFaults({
      body: {
        deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0 },
        api: { latencyMs: 0, errorRate: 0 },
      },
    });

    db = await pipeline.stopGatewayAndOpenLedger();
  }, 90_000);

  afterAll(async () => {
    await pipeline?.close();
  });

  const byId = async () =>
    new Map(
      (await listItems(db, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' })).map(
        (i) => [i.id, i] as [string, ReconItem],
      ),
    );

  it('applies the stored events once, adopts them when the transfers are recorded, and ends with the expected state of each item', async () => {
    const first = await reconcileOnce(db);
    expect(first.parked).toBe(0);
    expect(first.applied).toBeGreaterThan(10);
    // Status updates arrived before anything was recorded: orphans for now.
    expect((await byId()).get(ids.settled!)).toMatchObject({ kind: 'status_update', state: 'orphan' });

    const record = createTransactionRecorder(db);
    for (const transaction of pipeline!.created) await record(transaction);
    await registerReceivable(db, {
      id: 'INV-1200',
      beneficiaryAccount: ACME_CLABE,
      amount: '1200.00',
      reference: '4400001',
      dueDate: '2026-12-31',
    });
    expect(await reconcileOnce(db)).toMatchObject({ applied: 0 });

    const items = await byId();
    const expected: Record<string, Partial<ReconItem>> = {
      settled: { product: 'spei_out', state: 'matched', status: 'LIQUIDATED' },
      rejected: { product: 'spei_out', state: 'matched', status: 'REJECTED' },
      reversed: { product: 'spei_out', state: 'refunded', status: 'REFUNDED' },
      reversal: { product: 'reversal', state: 'matched' },
      internal: { product: 'internal_out', state: 'matched', status: 'LIQUIDATED' },
      pennyVerified: { product: 'penny_validation', state: 'matched' },
      pennyMismatch: { product: 'penny_validation', state: 'mismatched', fields: ['holder_name'] },
      creditMatched: { product: 'spei_in', state: 'matched', note: 'receivable INV-1200 (by its reference)' },
      creditUnmatched: { product: 'spei_in', state: 'orphan' },
      creditRefused: { product: 'spei_in', state: 'refunded' },
    };
    for (const [name, want] of Object.entries(expected))
      expect({ name, ...items.get(ids[name]!) }).toMatchObject({ name, ...want });
    const internalCredit = [...items.values()].find((i) => i.product === 'internal_in' && i.amount === '75.00');
    expect(internalCredit).toMatchObject({ state: 'matched', note: 'our internal transfer' });
    const creditRefund = [...items.values()].find((i) => i.product === 'credit_refund');
    expect(creditRefund).toMatchObject({ state: 'matched', amount: '640.00' });
    // Duplicated deliveries were stored once: one credit item per credit.
    expect([...items.values()].filter((i) => i.id === ids.creditMatched)).toHaveLength(1);
  });

  describeInBrowser('the console in headless Chromium', () => {
    let server: AppProcess | undefined;
    let summary: Awaited<ReturnType<typeof reconciliationSummary>>;
    beforeAll(async () => {
      // Read before the hand-over: on PGlite the console then holds the folder, and `db` is closed.
      summary = await reconciliationSummary(db, { from: '2000-01-01', to: '2100-01-01', staleAfterSeconds: 86_400 });
      server = await startConsoleProcess(await pipeline!.handOverLedger());
    }, 90_000);
    afterAll(async () => server?.stop());

    it('shows the same numbers as the summary, charts, and links from an item to its events', async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        const range = 'from=2000-01-01&to=2100-01-01';
        await page.goto(
          `${server!.url}/?${range}&state=mismatched&state=orphan&state=matched&state=refunded&state=pending&state=stale`,
        );
        const total = summary.reduce((n, r) => n + r.total.count, 0);
        expect(Number(await page.locator('[data-overall-count]').textContent())).toBe(total);
        for (const row of summary) {
          expect(await page.locator(`[data-total="${row.day}|${row.product}"]`).textContent()).toBe(
            String(row.total.count),
          );
        }
        for (const day of new Set(summary.map((r) => r.day))) {
          const count = summary.filter((r) => r.day === day).reduce((n, r) => n + r.total.count, 0);
          expect(await page.locator(`[data-day-count="${day}"]`).textContent()).toBe(String(count));
        }
        expect(await page.locator('svg[data-chart="volume"] rect').count()).toBeGreaterThan(0);
        expect(await page.locator('svg[data-chart="match-rate"] circle').count()).toBeGreaterThan(0);
        expect(await page.locator('[data-table="items"] tbody tr').count()).toBe(total);
        await page
          .locator('[data-table="items"] tbody tr', { hasText: ids.pennyMismatch! })
          .locator('a')
          .first()
          .click();
        expect(await page.locator('h1').textContent()).toMatch(/^Stored event #\d+: (CEP|STATUS_UPDATE)$/);
        const csv = await (await fetch(`${server!.url}/items.csv?${range}&state=mismatched`)).text();
        expect(csv.split('\n')[0]).toContain('state');
        expect(csv).toContain(ids.pennyMismatch!);
      } finally {
        await browser.close();
      }
    });
  });
});
