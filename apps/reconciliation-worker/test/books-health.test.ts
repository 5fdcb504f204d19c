// The worker checks the books after every round and says so on /healthz: balanced after applying
// real events, and broken — naming the posting — once an entry that does not balance is written
// behind the ledger's back. A break stays reported: later rounds do not hide it.
import { randomUUID } from 'node:crypto';
import { createEventStore } from '@paykit/store';
import { creditEvent, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { describe, expect, it } from 'vitest';
import { createHealth } from '../src/health.ts';
import { startApplyLoop, type ApplyLoop } from '../src/loop.ts';
import { createWorkerMetrics } from '../src/metrics.ts';

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the books on /healthz, on ${kind.name}`, () => {
    it('reports them balanced, then broken at the posting that does not balance', { timeout: 120_000 }, async () => {
      const opened = await kind.open();
      let loop: ApplyLoop | undefined;
      try {
        const store = createEventStore(opened.db);
        const id = randomUUID();
        await store.append(creditEvent({ id, amount: '321.00', tracking_key: 'EXT-HEALTH-1' }));
        await store.close();
        loop = startApplyLoop(opened.db, { batchSize: 100, pollMs: 20, leaseSeconds: 30 });
        const health = createHealth(opened.db, loop);
        await until(() => loop!.totals.applied === 1 && loop!.books !== null, 'the first round');
        expect(await health()).toMatchObject({ ok: true, books: { ok: true, failure: null } });
        const metrics = createWorkerMetrics(opened.db, health, { defaultMetrics: false });
        expect(await metrics.metrics()).toContain('worker_books_ok 1');

        // An entry written behind the ledger's back, in a posting of its own that does not balance.
        await opened.db.query(
          `INSERT INTO ledger_journal (posting_id, item, account, value_date, amount, source, cause)
           VALUES (nextval('ledger_posting_seq'), 'tx:forged', 'in:received', '2026-11-21', -5.00, 'event:0', 'apply')`,
        );
        const forged = (await opened.db.query<{ id: string }>('SELECT max(posting_id)::text AS id FROM ledger_journal'))
          .rows[0]!.id;
        await until(() => loop!.books?.ok === false, 'the check to see it');
        const broken = await health();
        expect(await metrics.metrics()).toContain('worker_books_ok 0');
        expect(broken.ok).toBe(false);
        expect(broken.books?.failure?.unbalancedPostings).toEqual([forged]);
        expect(broken.books?.failure?.itemsOff).toContainEqual({
          item: 'tx:forged',
          account: 'in:received',
          booked: '-5.00',
          expected: '0.00',
        });
        // The journal refuses to be edited to hide it.
        await expect(opened.db.query(`DELETE FROM ledger_journal WHERE item = 'tx:forged'`)).rejects.toThrow(
          /append-only/,
        );
        const checkedAt = loop.books!.checkedAt;
        await until(() => loop!.books!.checkedAt > checkedAt, 'a later round');
        expect(loop.books).toMatchObject({ ok: false, failure: { unbalancedPostings: [forged] } });
      } finally {
        await loop?.stop();
        await opened.drop();
      }
    });
  });
}
