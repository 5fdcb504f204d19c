// The item reads list every item's stored events whichever way they name it: a transfer's updates
// by id and by tracking key, its CEPs and refunds; a credit and its refund; a refund; a status update
// of an unknown transaction by its id, and one without an id by its tracking key. A credit's
// standing (held, accepted) decides its state on every page, and a read in the caller's
// transaction gives the same page and export.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { allItems, listItems, pageItems, reconcileOnce, recordOutbound, type ReconItem } from '../src/index.ts';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, coreEvent, moneyIn, outbound, refund, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-21T20:00:00Z');
const RANGE = { from: '2026-11-21', to: '2026-11-21', now: NOW };
const HELD = { outcome: 'stored', answerStatus: 202, reason: 'held for review: account unknown' } as const;
const bySeq = (seqs: string[]) => [...seqs].sort((a, b) => Number(BigInt(a) - BigInt(b)));

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`item reads on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const items = async (): Promise<ReconItem[]> => listItems(suite.opened.db, { ...RANGE, limit: 10_000 });
    const item = async (id: string) => (await items()).find((i) => i.id === id);

    it('lists the events of every kind of item, an orphan update named by its id or by its tracking key', async () => {
      const sent = outbound({ status: 'IN_PROGRESS' });
      await recordOutbound(suite.opened.db, sent);
      const byKey = coreEvent('STATUS_UPDATE', {
        tracking_key: sent.trackingKey,
        status: 'LIQUIDATED',
        update_at: '2026-11-21 10:16:00',
      });
      const credit = moneyIn({ id: randomUUID(), amount: '410.00' });
      const creditId = (JSON.parse(new TextDecoder().decode(credit.rawBody)) as { body: { id: string } }).body.id;
      const creditRefund = refund({ id: creditId, amount: '410.00' });
      const unknownId = randomUUID();
      const unknownKey = `PK-${randomUUID().slice(0, 12)}`;
      const keyOnly = (status: string) =>
        coreEvent('STATUS_UPDATE', { tracking_key: unknownKey, status, update_at: '2026-11-21 11:00:00' });
      const seqs = await appendAll(suite.store, [
        statusUpdate(sent.transactionId, 'IN_PROGRESS'),
        byKey,
        refund({ id: sent.transactionId, amount: '300.00' }),
        credit,
        creditRefund,
        statusUpdate(unknownId, 'IN_PROGRESS'),
        statusUpdate(unknownId, 'LIQUIDATED'),
        keyOnly('IN_PROGRESS'),
        keyOnly('REJECTED'),
      ]);
      await reconcileOnce(suite.opened.db);
      const all = await items();
      expect(all.find((i) => i.id === sent.transactionId)).toMatchObject({
        kind: 'outbound',
        eventSeqs: bySeq([seqs[0]!, seqs[1]!, seqs[2]!]),
      });
      expect(all.find((i) => i.id === creditId)).toMatchObject({
        kind: 'credit',
        eventSeqs: bySeq([seqs[3]!, seqs[4]!]),
      });
      const refundOf = (original: string) => all.find((i) => i.kind === 'refund' && i.note === `refund of ${original}`);
      expect(refundOf(sent.transactionId)).toMatchObject({ eventSeqs: [seqs[2]] });
      expect(refundOf(creditId)).toMatchObject({ eventSeqs: [seqs[4]] });
      expect(all.find((i) => i.id === unknownId)).toMatchObject({
        kind: 'status_update',
        state: 'orphan',
        eventSeqs: bySeq([seqs[5]!, seqs[6]!]),
      });
      expect(all.find((i) => i.id === unknownKey)).toMatchObject({
        kind: 'status_update',
        state: 'orphan',
        trackingKey: unknownKey,
        eventSeqs: bySeq([seqs[7]!, seqs[8]!]),
      });
      // A page lists the same events as the whole list.
      const page = await pageItems(suite.opened.db, { ...RANGE, limit: 1000 });
      for (const id of [sent.transactionId, creditId, unknownId, unknownKey])
        expect(page.rows.find((i) => i.id === id)!.eventSeqs).toEqual(all.find((i) => i.id === id)!.eventSeqs);
    });

    it('reads a held credit as held and an accepted one as settled, on a page filtered by state too', async () => {
      const held = moneyIn({ id: randomUUID(), amount: '970.00', numeric_reference: '5500001' }, HELD);
      const accepted = moneyIn({ id: randomUUID(), amount: '971.00', numeric_reference: '5500002' });
      const idOf = (e: typeof held) =>
        (JSON.parse(new TextDecoder().decode(e.rawBody)) as { body: { id: string } }).body.id;
      await appendAll(suite.store, [held, accepted]);
      await reconcileOnce(suite.opened.db);
      expect(await item(idOf(held))).toMatchObject({ state: 'held', outcome: 'held' });
      expect(await item(idOf(accepted))).toMatchObject({ outcome: 'settled' });
      const page = await pageItems(suite.opened.db, { ...RANGE, states: ['held'], limit: 1000 });
      expect(page.rows.map((i) => i.id)).toContain(idOf(held));
      expect(page.rows.every((i) => i.state === 'held')).toBe(true);
      expect(page.total).toBe(page.rows.length);
    });

    it('reads the same page and export in the caller’s transaction', async () => {
      const outside = await pageItems(suite.opened.db, { ...RANGE, limit: 20 });
      const inside = await suite.opened.db.transaction(async (tx) => {
        const page = await pageItems(tx, { ...RANGE, limit: 20 });
        const all: ReconItem[] = [];
        for await (const row of allItems(tx, { ...RANGE, batch: 7 })) all.push(row);
        return { page, all };
      });
      expect(inside.page).toEqual(outside);
      const byId = (list: ReconItem[]) => [...list].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      expect(byId(inside.all)).toEqual(byId(await items()));
    });
  });
}
