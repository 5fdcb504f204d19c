// The books as a finance team tries them: which invoice a payment pays in every arrival order, a
// refund that reopens what its credit paid, a reversal and a second refund that are not money in,
// and a held credit that is neither money in nor a payment until an operator releases it. Every
// figure is read from the journal, and every invariant holds at the end.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, type Database, type NewEvent } from '@paykit/store';
import {
  checkBooks,
  figureOf,
  itemJournal,
  listHeld,
  listItems,
  listReleases,
  moneyFigures,
  pageReceivables,
  reconcileOnce,
  recordOutbound,
  registerReceivable,
  releaseHeld,
  type MoneyRow,
} from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, coreEvent, moneyIn, outbound, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-21T18:00:00Z');

/** Every ordering of the items (n! of them). */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

/** A fresh CLABE per run, so runs share one database without sharing an account. */
const account = () => `6461800${String(Math.floor(Math.random() * 1e11)).padStart(11, '0')}`;
const idOf = (event: NewEvent) =>
  String((JSON.parse(new TextDecoder().decode(event.rawBody)) as { body: { id: string } }).body.id);

/** The gateway's decisions about a credit for an account it does not know: held (202), and accepted once the account is added. */
const HELD = { outcome: 'stored', answerStatus: 202, reason: 'held for review: account unknown' } as const;
const ACCEPTED = { outcome: 'accepted', answerStatus: 201, reason: null } as const;

function figure(rows: MoneyRow[], direction: 'in' | 'out', name: MoneyRow['figure']): string {
  return figureOf(rows, direction, name).amount;
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the books on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const item = async (id: string) =>
      (await listItems(suite.opened.db, { limit: 10_000, now: NOW })).find((i) => i.id === id);
    const open = async (db: Database, id: string) =>
      (await pageReceivables(db, { now: NOW, limit: 1000 })).rows.find((r) => r.id === id)?.open ?? '0.00';

    it('books a payment to the invoice its reference names, in every arrival order', { timeout: 240_000 }, async () => {
      for (const onlyB of [false, true]) {
        const steps = onlyB ? ['R1', 'R2', 'B'] : ['R1', 'R2', 'B', 'A'];
        for (const order of permutations(steps)) {
          const clabe = account();
          const r1 = `R1-${randomUUID()}`;
          const r2 = `R2-${randomUUID()}`;
          const b = moneyIn({ beneficiary_account: clabe, amount: '1500.00', numeric_reference: '2222222' });
          const a = moneyIn({ beneficiary_account: clabe, amount: '1500.00', numeric_reference: '1111112' });
          const store = createEventStore(suite.opened.db);
          for (const step of order) {
            if (step === 'R1' || step === 'R2')
              await registerReceivable(suite.opened.db, {
                id: step === 'R1' ? r1 : r2,
                beneficiaryAccount: clabe,
                amount: '1500.00',
                reference: step === 'R1' ? '1111111' : '2222222',
                dueDate: '2026-11-30',
              });
            else await store.append(step === 'B' ? b : a);
            await reconcileOnce(suite.opened.db);
          }
          await store.close();
          const label = `${onlyB ? 'only B' : 'A and B'}: ${order.join(' → ')}`;
          // One read of the items and one of the receivables per order: each reads the whole shared database.
          const items = new Map((await listItems(suite.opened.db, { limit: 10_000, now: NOW })).map((i) => [i.id, i]));
          const receivables = (await pageReceivables(suite.opened.db, { now: NOW, limit: 1000 })).rows;
          const openOf = (id: string) => receivables.find((r) => r.id === id)?.open ?? '0.00';
          expect(items.get(idOf(b)), label).toMatchObject({
            state: 'matched',
            note: `receivable ${r2} (by its reference)`,
          });
          expect(openOf(r2), label).toBe('0.00');
          if (onlyB) {
            expect(openOf(r1), label).toBe('1500.00');
          } else {
            // A's reference names no invoice; R1 is then the only open receivable of its amount.
            expect(items.get(idOf(a)), label).toMatchObject({
              state: 'matched',
              note: `receivable ${r1} (the only one of its account and amount)`,
            });
            expect(openOf(r1), label).toBe('0.00');
          }
        }
      }
    });

    it('says partial and overpaid, never matched, when the amount is short or over', async () => {
      const short = account();
      await registerReceivable(suite.opened.db, {
        id: `INV-S-${short}`,
        beneficiaryAccount: short,
        amount: '1000.00',
        reference: '4400002',
        dueDate: '2026-11-30',
      });
      const part = moneyIn({ beneficiary_account: short, amount: '250.00', numeric_reference: '4400002' });
      await appendAll(suite.store, [part]);
      await reconcileOnce(suite.opened.db);
      expect(await item(idOf(part))).toMatchObject({
        state: 'partial',
        note: `pays 250.00 of receivable INV-S-${short} by its reference; 750.00 is still open`,
      });
      expect(await open(suite.opened.db, `INV-S-${short}`)).toBe('750.00');

      const clabe = account();
      const invoice = `INV-${randomUUID()}`;
      await registerReceivable(suite.opened.db, {
        id: invoice,
        beneficiaryAccount: clabe,
        amount: '1000.00',
        reference: '4400001',
        dueDate: '2026-11-30',
      });
      const first = moneyIn({ beneficiary_account: clabe, amount: '600.00', numeric_reference: '4400001' });
      const second = moneyIn({
        beneficiary_account: clabe,
        amount: '700.00',
        numeric_reference: '0004400001',
        transaction_date: '2026-11-21 11:00:00',
      });
      await appendAll(suite.store, [second, first]);
      await reconcileOnce(suite.opened.db);
      // The earlier credit is applied whole, the later one up to what was left.
      expect(await item(idOf(first))).toMatchObject({ state: 'matched' });
      expect(await item(idOf(second))).toMatchObject({
        state: 'overpaid',
        note: `pays 400.00 of receivable ${invoice} by its reference; 300.00 is left over`,
      });
      expect(await open(suite.opened.db, invoice)).toBe('0.00');
    });

    it('reopens the receivable a refunded credit paid, before or after the credit arrives', async () => {
      for (const refundFirst of [false, true]) {
        const clabe = account();
        const invoice = `INV-G-${randomUUID()}`;
        await registerReceivable(suite.opened.db, {
          id: invoice,
          beneficiaryAccount: clabe,
          amount: '1080.00',
          reference: '7700001',
          dueDate: '2026-11-20',
        });
        const credit = moneyIn({ beneficiary_account: clabe, amount: '1080.00', numeric_reference: '7700001' });
        const refund = coreEvent('REFUND', {
          id: randomUUID(),
          amount: '1080.00',
          payer_account: clabe,
          transaction_date: '2026-11-21 13:00:00',
          sub_category: 'SPEI_REFUNDED_DEBIT',
          original_transaction_id: idOf(credit),
          original_transaction_amount: '1080.00',
        });
        for (const event of refundFirst ? [refund, credit] : [credit, refund]) {
          await appendAll(suite.store, [event]);
          await reconcileOnce(suite.opened.db);
          if (!refundFirst && event === credit) expect(await open(suite.opened.db, invoice)).toBe('0.00');
        }
        expect(await item(idOf(credit))).toMatchObject({ state: 'refunded' });
        expect(await open(suite.opened.db, invoice)).toBe('1080.00');
        // The history is kept: the payment and its undoing are both postings of the receivable.
        const entries = (await itemJournal(suite.opened.db, `rcv:${invoice}`)).filter(
          (e) => e.account === `receivable:${invoice}`,
        );
        if (!refundFirst) expect(entries.map((e) => e.amount)).toEqual(['1080.00', '-1080.00', '1080.00']);
        const books = (await itemJournal(suite.opened.db, `tx:${idOf(credit)}`)).reduce(
          (sum, e) => sum.set(e.account, (sum.get(e.account) ?? 0) + Math.round(Number(e.amount) * 100)),
          new Map<string, number>(),
        );
        expect(Object.fromEntries(books)).toEqual({
          [`platform:${clabe}`]: 0,
          'in:received': -108000,
          'in:refunded': 108000,
        });
      }
    });

    it('counts a reversal of our transfer and a refund of a credit against their own direction', async () => {
      const opened = await kind.open();
      try {
        const store = createEventStore(opened.db);
        const sent = outbound({ amount: '310.00' });
        const twice = outbound({ amount: '420.00' });
        await recordOutbound(opened.db, sent);
        await recordOutbound(opened.db, twice);
        const reversal = (original: { transactionId: string; amount: string }) =>
          coreEvent('REFUND', {
            id: randomUUID(),
            amount: original.amount,
            beneficiary_account: '646180000000000012',
            transaction_date: '2026-11-21 12:00:00',
            sub_category: 'SPEI_REFUNDED_CREDIT',
            original_transaction_id: original.transactionId,
            original_transaction_amount: original.amount,
          });
        const credit = moneyIn({ amount: '500.00' });
        const creditRefund = coreEvent('REFUND', {
          id: randomUUID(),
          amount: '500.00',
          transaction_date: '2026-11-21 13:00:00',
          sub_category: 'SPEI_REFUNDED_DEBIT',
          original_transaction_id: idOf(credit),
          original_transaction_amount: '500.00',
        });
        for (const event of [
          statusUpdate(sent.transactionId, 'LIQUIDATED'),
          statusUpdate(twice.transactionId, 'LIQUIDATED'),
          reversal(sent),
          reversal(twice),
          reversal(twice),
          credit,
          creditRefund,
        ])
          await store.append(event);
        await store.close();
        await reconcileOnce(opened.db);
        const rows = await moneyFigures(opened.db, { from: '2026-11-01', to: '2026-11-30' });
        expect({
          inSettled: figure(rows, 'in', 'settled'),
          inReturned: figure(rows, 'in', 'returned'),
          inNet: figure(rows, 'in', 'net'),
          outSettled: figure(rows, 'out', 'settled'),
          outReturned: figure(rows, 'out', 'returned'),
          outNet: figure(rows, 'out', 'net'),
        }).toEqual({
          inSettled: '500.00',
          inReturned: '500.00',
          inNet: '0.00',
          outSettled: '730.00',
          // The second refund of the 420.00 transfer is a conflict: not money.
          outReturned: '730.00',
          outNet: '0.00',
        });
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true });
      } finally {
        await opened.drop();
      }
    });

    it('holds a held credit apart until an operator releases it after the gateway accepts it', async () => {
      const opened = await kind.open();
      try {
        const store = createEventStore(opened.db);
        const clabe = account();
        const held = moneyIn({ beneficiary_account: clabe, amount: '970.00', numeric_reference: '5500001' }, HELD);
        const { seq } = await store.append(held);
        await reconcileOnce(opened.db);
        await registerReceivable(opened.db, {
          id: 'INV-H',
          beneficiaryAccount: clabe,
          amount: '970.00',
          reference: '5500001',
          dueDate: '2026-11-30',
        });
        const range = { from: '2026-11-01', to: '2026-11-30' };
        let rows = await moneyFigures(opened.db, range);
        expect([figure(rows, 'in', 'settled'), figure(rows, 'in', 'held')]).toEqual(['0.00', '970.00']);
        expect(await open(opened.db, 'INV-H')).toBe('970.00');
        expect((await listHeld(opened.db)).map((h) => [h.transactionId, h.amount, h.redecision])).toEqual([
          [idOf(held), '970.00', null],
        ]);

        // Not before the gateway re-decided it, and not while it still refuses it.
        await expect(releaseHeld(opened.db, { credit: seq, by: 'ana@finance' })).rejects.toThrow(
          /has not been re-decided: replay event/,
        );
        await store.recordReplay({ seq, drift: [], refundReason: null, ...HELD });
        await expect(releaseHeld(opened.db, { credit: idOf(held), by: 'ana@finance' })).rejects.toThrow(
          /newest decision for event .* is stored: held for review/,
        );
        await store.recordReplay({ seq, drift: [], refundReason: null, ...ACCEPTED });
        const release = await releaseHeld(opened.db, { credit: seq, by: 'ana@finance', note: 'account added' });
        expect(release).toMatchObject({ transactionId: idOf(held), amount: '970.00', releasedBy: 'ana@finance' });
        await expect(releaseHeld(opened.db, { credit: seq, by: 'ana@finance' })).rejects.toThrow(/is not held/);
        await store.close();

        rows = await moneyFigures(opened.db, range);
        expect([figure(rows, 'in', 'settled'), figure(rows, 'in', 'held')]).toEqual(['970.00', '0.00']);
        expect(await open(opened.db, 'INV-H')).toBe('0.00');
        expect(await listHeld(opened.db)).toEqual([]);
        expect((await listReleases(opened.db)).map((r) => [r.transactionId, r.releasedBy, r.note])).toEqual([
          [idOf(held), 'ana@finance', 'account added'],
        ]);
        const sources = (await itemJournal(opened.db, `tx:${idOf(held)}`)).map((e) => `${e.account} ${e.source}`);
        expect(sources).toContain(`in:received release:${idOf(held)}`);
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
      } finally {
        await opened.drop();
      }
    });

    it('refuses to release a held credit the platform returned to its payer: it never was money in', async () => {
      const opened = await kind.open();
      try {
        const store = createEventStore(opened.db);
        const clabe = account();
        const held = moneyIn({ beneficiary_account: clabe, amount: '640.00', numeric_reference: '5500002' }, HELD);
        const { seq } = await store.append(held);
        await store.append(
          coreEvent('REFUND', {
            id: randomUUID(),
            tracking_key: 'RF-HELD',
            amount: '640.00',
            transaction_date: '2026-11-21 12:00:00',
            category: 'CREDIT_TRANS',
            sub_category: 'SPEI_REFUNDED_CREDIT',
            original_transaction_id: idOf(held),
            original_transaction_amount: '640.00',
          }),
        );
        await reconcileOnce(opened.db);
        await registerReceivable(opened.db, {
          id: 'INV-HR',
          beneficiaryAccount: clabe,
          amount: '640.00',
          reference: '5500002',
          dueDate: '2026-11-30',
        });
        // The account is added afterwards and the gateway now accepts the event.
        await store.recordReplay({ seq, drift: [], refundReason: null, ...ACCEPTED });
        expect(await listHeld(opened.db)).toEqual([]);
        await expect(releaseHeld(opened.db, { credit: seq, by: 'ana@finance' })).rejects.toThrow(
          /was returned to its payer .*nothing to release/,
        );
        await store.close();

        const rows = await moneyFigures(opened.db, { from: '2026-11-01', to: '2026-11-30' });
        expect(['settled', 'returned', 'held'].map((f) => figure(rows, 'in', f as MoneyRow['figure']))).toEqual([
          '0.00',
          '0.00',
          '0.00',
        ]);
        expect(await listReleases(opened.db)).toEqual([]);
        expect(await open(opened.db, 'INV-HR')).toBe('640.00');
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
      } finally {
        await opened.drop();
      }
    });

    it('holds every invariant over everything the suite booked', async () => {
      const check = await checkBooks(suite.opened.db);
      expect(check).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
      expect(check.debits).toBe(check.credits);
      expect(check.itemsChecked).toBeGreaterThan(50);
      // Incremental: nothing posted since the full check.
      expect(await checkBooks(suite.opened.db, { sincePosting: check.throughPosting })).toMatchObject({
        ok: true,
        postingsChecked: 0,
      });
    });
  });
}
