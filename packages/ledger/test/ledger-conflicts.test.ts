// Conflicts are facts: a second credit of one transaction with other content, a second refund of
// one transaction, a refund id reused with other content, and a redelivery under one id_msg with
// another body are each stored (ledger_conflicts), listed and counted, and the items they concern
// read "conflict", never "matched". The redelivery still gets the first answer (2xx).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  itemJournal,
  conflictCounts,
  listConflicts,
  listItems,
  reconcileOnce,
  recordOutbound,
  registerReceivable,
} from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, coreEvent, moneyIn, outbound, refund, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-21T18:00:00Z');

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`conflicts on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const item = async (id: string) =>
      (await listItems(suite.opened.db, { limit: 10_000, now: NOW })).find((i) => i.id === id);

    it('keeps a second credit of one transaction with another amount as a conflict, and never matches it', async () => {
      const id = randomUUID();
      const account = '646180000000000099';
      await registerReceivable(suite.opened.db, {
        id: `INV-${id}`,
        beneficiaryAccount: account,
        amount: '777.77',
        dueDate: '2026-11-30',
      });
      const first = moneyIn({ id, amount: '777.77', beneficiary_account: account });
      const second = moneyIn({ id, amount: '7777.70', beneficiary_account: account });
      const [firstSeq, secondSeq] = await appendAll(suite.store, [first, second]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ parked: 0 });
      const conflicts = (await listConflicts(suite.opened.db)).filter((c) => c.transactionId === id);
      expect(conflicts).toEqual([
        expect.objectContaining({
          kind: 'credit',
          eventType: 'MONEY_IN',
          firstSeq,
          eventSeq: secondSeq,
          firstAmount: '777.77',
          amount: '7777.70',
        }),
      ]);
      expect(conflicts[0]!.detail).toContain('7777.70');
      expect(await item(id)).toMatchObject({ state: 'conflict', amount: '777.77' });
      expect((await item(id))!.eventSeqs).toEqual([firstSeq, secondSeq]);
    });

    it('takes the same credit under a new id_msg as a duplicate, not a conflict', async () => {
      const id = randomUUID();
      const body = { id, amount: '150.00', tracking_key: 'EXT-DUP-1', owner_id: 'o-1', numeric_reference: '77' };
      await appendAll(suite.store, [moneyIn(body), moneyIn(body)]);
      await reconcileOnce(suite.opened.db);
      expect((await listConflicts(suite.opened.db)).filter((c) => c.transactionId === id)).toEqual([]);
      expect(await item(id)).toMatchObject({ state: 'orphan', amount: '150.00' });
    });

    it('keeps a second refund of one transfer as a conflict: the transfer is not "refunded"', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const original = { id: sent.transactionId, amount: sent.amount };
      const refunds = [refund(original), refund(original)];
      const [, firstSeq, secondSeq] = await appendAll(suite.store, [
        statusUpdate(sent.transactionId, 'LIQUIDATED'),
        ...refunds,
      ]);
      await reconcileOnce(suite.opened.db);
      const conflicts = (await listConflicts(suite.opened.db)).filter((c) => c.transactionId === sent.transactionId);
      expect(conflicts).toHaveLength(1);
      expect(conflicts[0]).toMatchObject({ kind: 'second_refund', amount: sent.amount });
      // The refund that stands is the earlier by the platform's time, then by id (same time here), never by arrival.
      const ids = refunds.map(
        (r) => (JSON.parse(new TextDecoder().decode(r.rawBody)) as { body: { id: string } }).body.id,
      );
      expect(conflicts[0]!.eventSeq).toBe(ids[0]! < ids[1]! ? secondSeq : firstSeq);
      expect(await item(sent.transactionId)).toMatchObject({ state: 'conflict' });
      // The books hold one reversal, not two.
      const entries = await itemJournal(suite.opened.db, `tx:${sent.transactionId}`);
      const reversed = entries.filter((e) => e.account === 'out:reversed').map((e) => e.amount);
      expect(reversed).toEqual([`-${sent.amount}`]);
    });

    it('finds a second refund applied by a later batch', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const original = { id: sent.transactionId, amount: sent.amount };
      await appendAll(suite.store, [refund(original)]);
      await reconcileOnce(suite.opened.db);
      expect(await item(sent.transactionId)).toMatchObject({ state: 'refunded' });
      await appendAll(suite.store, [refund(original)]);
      await reconcileOnce(suite.opened.db);
      expect(await item(sent.transactionId)).toMatchObject({ state: 'conflict' });
    });

    it('keeps a refund id reused with another amount as a conflict', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const id = randomUUID();
      await appendAll(suite.store, [refund({ id: sent.transactionId, amount: sent.amount }, { id })]);
      await reconcileOnce(suite.opened.db);
      await appendAll(suite.store, [refund({ id: sent.transactionId, amount: '1.00' }, { id })]);
      await reconcileOnce(suite.opened.db);
      expect(
        (await listConflicts(suite.opened.db, { kinds: ['refund'] })).filter((c) => c.transactionId === id),
      ).toEqual([expect.objectContaining({ kind: 'refund', amount: '1.00', firstAmount: sent.amount })]);
      expect(await item(id)).toMatchObject({ state: 'conflict' });
    });

    it('answers a redelivery with another body with the first answer, and stores the body as a conflict', async () => {
      const id = randomUUID();
      const first = moneyIn({ id, amount: '100.00' });
      const changed = moneyIn({ id, amount: '900.00' }, { idMsg: first.idMsg, dedupeKey: first.dedupeKey });
      const a = await suite.store.append(first);
      const b = await suite.store.append(changed);
      expect(b).toMatchObject({ seq: a.seq, inserted: false, deliveries: 2, answerStatus: 201 });
      // The same body again is a plain duplicate; the changed one again is the same conflict.
      await suite.store.append(first);
      await suite.store.append(changed);
      const conflicts = (await listConflicts(suite.opened.db, { kinds: ['redelivery'] })).filter(
        (c) => c.dedupeKey === first.dedupeKey,
      );
      expect(conflicts).toEqual([
        expect.objectContaining({
          kind: 'redelivery',
          firstSeq: a.seq,
          eventSeq: null,
          transactionId: id,
          eventType: 'MONEY_IN',
        }),
      ]);
      const { rows } = await suite.opened.db.query<{ body: string }>(
        "SELECT convert_from(raw_body, 'UTF8') AS body FROM ledger_conflicts WHERE dedupe_key = $1",
        [first.dedupeKey],
      );
      expect(JSON.parse(rows[0]!.body)).toMatchObject({ body: { amount: '900.00' } });
      await reconcileOnce(suite.opened.db);
      expect(await item(id)).toMatchObject({ state: 'conflict', amount: '100.00' });
    });

    it('records a changed body that arrives in the same commit as the first', async () => {
      const id = randomUUID();
      const first = moneyIn({ id, amount: '100.00' });
      const changed = moneyIn({ id, amount: '900.00' }, { idMsg: first.idMsg, dedupeKey: first.dedupeKey });
      const answers = await Promise.all([
        suite.store.append(first),
        suite.store.append(changed),
        suite.store.append(first),
      ]);
      expect(new Set(answers.map((answer) => answer.seq)).size).toBe(1);
      expect(answers.map((answer) => answer.answerStatus)).toEqual([201, 201, 201]);
      expect(Math.max(...answers.map((answer) => answer.deliveries))).toBe(3);
      expect(
        (await listConflicts(suite.opened.db, { kinds: ['redelivery'] })).filter(
          (c) => c.dedupeKey === first.dedupeKey,
        ),
      ).toHaveLength(1);
    });

    it('takes the same JSON written otherwise as the same event', async () => {
      const first = coreEvent('STATUS_UPDATE', { id: randomUUID(), status: 'LIQUIDATED' });
      const spaced = {
        ...first,
        rawBody: new TextEncoder().encode(JSON.stringify(JSON.parse(new TextDecoder().decode(first.rawBody)), null, 2)),
      };
      await suite.store.append(first);
      expect(await suite.store.append(spaced)).toMatchObject({ inserted: false });
      expect((await listConflicts(suite.opened.db)).filter((c) => c.dedupeKey === first.dedupeKey)).toEqual([]);
    });

    it('counts conflicts by kind', async () => {
      const counts = await conflictCounts(suite.opened.db);
      expect(counts).toMatchObject({ credit: 1, refund: 1, second_refund: 2, redelivery: 2 });
      expect(counts.total).toBe(6);
      await expect(listConflicts(suite.opened.db, { kinds: ['nonsense' as 'credit'] })).rejects.toThrow(
        /kind must be one of credit, refund, second_refund, redelivery/,
      );
    });
  });
}
