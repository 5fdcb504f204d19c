// What /healthz says waits: every stored event neither applied nor parked, with the age of the
// oldest, on the worker's clock; and an event the claim floor's promise missed (its applied marker
// removed by hand, below the floor) is found by the loop's floor audit, counted, logged through
// its hook and applied again, without changing the books.
import { randomUUID } from 'node:crypto';
import { checkBooks } from '@paykit/ledger';
import { createEventStore } from '@paykit/store';
import { creditEvent, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { describe, expect, it } from 'vitest';
import { createHealth } from '../src/health.ts';
import { startApplyLoop, type ApplyLoop } from '../src/loop.ts';
import { createWorkerMetrics } from '../src/metrics.ts';

/** The events are received at 16:30 (creditEvent); the worker's clock says 16:35. */
const NOW = new Date('2026-11-21T16:35:00Z');

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`waiting events on /healthz, on ${kind.name}`, () => {
    it('counts every event not applied nor parked with the oldest one’s age, wherever it lies against the floor', async () => {
      const opened = await kind.open();
      let loop: ApplyLoop | undefined;
      try {
        const store = createEventStore(opened.db);
        const ids = [randomUUID(), randomUUID(), randomUUID()];
        for (const [i, id] of ids.entries())
          await store.append(creditEvent({ id, amount: `${100 + i}.00`, tracking_key: `EXT-WAIT-${i}` }));
        await store.close();

        const idle = createHealth(opened.db, undefined, { now: () => NOW });
        expect(await idle()).toMatchObject({ waiting: 3, oldestWaitingSeconds: 300, floorAudit: null });

        const found: Array<{ seqs: string[]; floor: string }> = [];
        loop = startApplyLoop(opened.db, {
          batchSize: 100,
          pollMs: 20,
          leaseSeconds: 30,
          now: () => NOW,
          onBelowFloor: (lost) => found.push(lost),
        });
        const health = createHealth(opened.db, loop, { now: () => NOW });
        await until(() => loop!.totals.applied === 3 && loop!.floorAudit.sweeps > 0, 'the events applied and a sweep');
        expect(await health()).toMatchObject({ waiting: 0, oldestWaitingSeconds: null, caughtUp: true });
        const booksBefore = await checkBooks(opened.db);
        expect(booksBefore.ok).toBe(true);

        // The floor's promise broken: the applied marker of the oldest event removed by hand.
        const { rows } = await opened.db.query<{ seq: string }>('SELECT min(seq)::text AS seq FROM webhook_events');
        const lost = rows[0]!.seq;
        await opened.db.query('DELETE FROM webhook_events_applied WHERE seq = $1::bigint', [lost]);
        await until(() => found.length > 0, 'the floor audit to find it');
        expect(found[0]).toEqual({ seqs: [lost], floor: String(BigInt(lost) - 1n) });
        await until(() => loop!.totals.applied === 4, 'the lost event applied again');
        await until(async () => (await health()).waiting === 0, 'nothing waiting');
        const after = await health();
        expect(after).toMatchObject({ ok: true, waiting: 0, oldestWaitingSeconds: null, floorAudit: { found: 1 } });
        const metrics = await createWorkerMetrics(opened.db, health, { defaultMetrics: false }).metrics();
        expect(metrics).toContain('worker_events_below_floor_found 1');
        expect(metrics).toContain('worker_oldest_waiting_seconds 0');
        // Applying it again changed no posting.
        expect(await checkBooks(opened.db)).toMatchObject({
          ok: true,
          postingsChecked: booksBefore.postingsChecked,
          debits: booksBefore.debits,
        });
      } finally {
        await loop?.stop();
        await opened.drop();
      }
    });
  });
}
