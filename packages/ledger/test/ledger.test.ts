// The ledger on each database: events applied once in any order, statuses only moving forward,
// orphans adopted, ownership decided, receivables matched one-to-one, refunds told apart and
// checked, bad events parked without blocking the rest, reports imported all-or-nothing and
// matched three ways.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportFormatError } from '@paykit/contracts';
import {
  createTransactionRecorder,
  importReport,
  listItems,
  listParked,
  reconcileOnce,
  reconciliationSummary,
  recordOutbound,
  registerReceivable,
  reportMatches,
  retryParked,
  type ReconItem,
} from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, coreEvent, moneyIn, outbound, refund, reportEvent, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-21T20:00:00Z');
const view = { now: NOW, staleAfterSeconds: 86_400 };

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`ledger on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const item = async (id: string): Promise<ReconItem | undefined> =>
      (await listItems(suite.opened.db, { ...view, limit: 10_000 })).find((i) => i.id === id);

    it('moves a transfer forward only, whatever the order, and applies each event once', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      // LIQUIDATED arrives before IN_PROGRESS; a REJECTED after it disagrees.
      await appendAll(suite.store, [
        statusUpdate(sent.transactionId, 'LIQUIDATED'),
        statusUpdate(sent.transactionId, 'IN_PROGRESS'),
      ]);
      const first = await reconcileOnce(suite.opened.db);
      expect(first).toMatchObject({ applied: 2, parked: 0 });
      expect(await reconcileOnce(suite.opened.db)).toEqual({ batches: 0, applied: 0, parked: 0 });
      expect(await item(sent.transactionId)).toMatchObject({
        state: 'matched',
        status: 'LIQUIDATED',
        product: 'spei_out',
        fields: [],
      });
      expect((await item(sent.transactionId))!.eventSeqs).toHaveLength(2);

      await appendAll(suite.store, [statusUpdate(sent.transactionId, 'REJECTED')]);
      await reconcileOnce(suite.opened.db);
      expect(await item(sent.transactionId)).toMatchObject({
        state: 'mismatched',
        status: 'LIQUIDATED',
        fields: ['status'],
      });
    });

    it('keeps a status update for an unknown transaction as an orphan, and adopts it when the transaction is recorded', async () => {
      const later = outbound({ subCategory: 'SPEI_DEBIT' });
      await appendAll(suite.store, [statusUpdate(later.transactionId, 'REJECTED')]);
      await reconcileOnce(suite.opened.db);
      expect(await item(later.transactionId)).toMatchObject({
        kind: 'status_update',
        state: 'orphan',
        product: 'unrecorded_out',
      });
      await recordOutbound(suite.opened.db, later);
      expect(await item(later.transactionId)).toMatchObject({ kind: 'outbound', state: 'matched', status: 'REJECTED' });
      expect(await recordOutbound(suite.opened.db, later)).toBe(false);
    });

    it('decides ownership from the CEP, normalised, and records through the client hook', async () => {
      const record = createTransactionRecorder(suite.opened.db);
      const make = async (holder: string, rfc: string) => {
        const id = randomUUID();
        await record({
          operation: 'createPennyValidation',
          transaction: {
            id,
            trackingId: `PK${id.slice(0, 6)}`,
            amount: '0.01',
            subCategory: 'SPEI_DEBIT',
            transactionStatus: 'INITIALIZED',
            audit: { createdAt: '2026-11-21T10:00:00-06:00' },
            destinationInstrument: { rfc, instrumentDetail: { clabeNumber: '012180000045678907', holderName: holder } },
          },
        });
        return id;
      };
      const verified = await make('José Pérez López', 'PELJ800101AB1');
      const mismatched = await make('ACME Pagos SA de CV', 'APA010101AB1');
      const cep = (id: string, status: string, name: string, rfc: string | null) =>
        coreEvent('CEP', {
          id,
          tracking_key: 'x',
          beneficiary_account: '012180000045678907',
          beneficiary_name: name,
          beneficiary_rfc: rfc,
          status,
          processed_at: status === 'PENDING' ? null : '2026-11-21T10:05:00-06:00',
        });
      await appendAll(suite.store, [
        cep(verified, 'COMPLETED', 'LOPEZ PEREZ, JOSE', 'pelj800101ab1'),
        cep(verified, 'PENDING', 'LOPEZ PEREZ, JOSE', null), // late PENDING does not undo the final result
        cep(mismatched, 'COMPLETED', 'Otra Empresa SA de CV', 'OEM010101AB1'),
      ]);
      await reconcileOnce(suite.opened.db);
      expect(await item(verified)).toMatchObject({ state: 'matched', product: 'penny_validation' });
      expect(await item(mismatched)).toMatchObject({ state: 'mismatched', fields: ['holder_name', 'holder_rfc'] });
    });

    it('pays a receivable by its reference first, and never guesses between credits that fit one receivable', async () => {
      const account = '646180000000000038';
      const byAmount = await registerReceivable(suite.opened.db, {
        id: `inv-${randomUUID()}`,
        beneficiaryAccount: account,
        amount: '700.00',
        reference: '7000001',
        dueDate: '2026-11-30',
      });
      const byRef = await registerReceivable(suite.opened.db, {
        id: `inv-${randomUUID()}`,
        beneficiaryAccount: account,
        amount: '700.00',
        reference: '7000002',
        dueDate: '2026-11-30',
      });
      const paid = moneyIn({ beneficiary_account: account, amount: '700.00', numeric_reference: '7000002' });
      const second = moneyIn({ beneficiary_account: account, amount: '700.00', numeric_reference: '9999999' });
      const third = moneyIn({ beneficiary_account: account, amount: '700.00', numeric_reference: '9999999' });
      await appendAll(suite.store, [paid, second, third]);
      await reconcileOnce(suite.opened.db);
      const idOf = (e: typeof paid) =>
        String((JSON.parse(new TextDecoder().decode(e.rawBody)) as { body: { id: string } }).body.id);
      expect(await item(idOf(paid))).toMatchObject({
        state: 'matched',
        note: `receivable ${byRef.id} (by its reference)`,
        product: 'spei_in',
      });
      // Both fit the one receivable left of that amount: neither is booked against it.
      for (const credit of [second, third])
        expect(await item(idOf(credit))).toMatchObject({
          state: 'needs_review',
          note: `receivable ${byAmount.id} fits it, and so do 1 other credit(s) of that amount`,
        });
      // A second receivable of the amount makes two candidates for each: still a person's call.
      const late = await registerReceivable(suite.opened.db, {
        id: `inv-${randomUUID()}`,
        beneficiaryAccount: account,
        amount: '700.00',
        dueDate: '2026-12-01',
      });
      expect(late).toMatchObject({ creditId: null, paid: '0.00', open: '700.00' });
      expect((await item(idOf(second)))!.state).toBe('needs_review');
      expect((await item(idOf(second)))!.note).toMatch(/^2 receivables fit its account and amount: /);
    });

    it('tells a reversal from a refund of a credit, marks the original refunded and flags an amount that differs', async () => {
      const sent = outbound({ amount: '250.00' });
      await recordOutbound(suite.opened.db, sent);
      const credit = moneyIn({ amount: '80.00' });
      const creditId = String(
        (JSON.parse(new TextDecoder().decode(credit.rawBody)) as { body: { id: string } }).body.id,
      );
      const reversal = refund({ id: sent.transactionId, amount: '250.00' });
      const partial = refund(
        { id: creditId, amount: '80.00' },
        { amount: '50.00', sub_category: 'SPEI_REFUNDED_DEBIT' },
      );
      // The refunds arrive before the credit they refund.
      await appendAll(suite.store, [statusUpdate(sent.transactionId, 'LIQUIDATED'), reversal, partial]);
      await reconcileOnce(suite.opened.db);
      await appendAll(suite.store, [credit, statusUpdate(sent.transactionId, 'REFUNDED')]);
      await reconcileOnce(suite.opened.db);
      expect(await item(sent.transactionId)).toMatchObject({ state: 'refunded', status: 'REFUNDED' });
      expect(await item(creditId)).toMatchObject({ state: 'refunded', status: 'REFUNDED' });
      const refunds = (
        await listItems(suite.opened.db, { ...view, products: ['reversal', 'credit_refund'], limit: 10_000 })
      ).filter((i) => i.note?.includes(sent.transactionId) || i.note?.includes(creditId));
      expect(refunds.map((r) => [r.product, r.state, r.fields]).sort()).toEqual([
        ['credit_refund', 'mismatched', ['amount', 'original_transaction_amount']],
        ['reversal', 'matched', []],
      ]);
    });

    it('parks an event that does not parse, applies the ones behind it, and retries it on request', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const bad = moneyIn({ amount: undefined });
      const [badSeq] = await appendAll(suite.store, [bad, statusUpdate(sent.transactionId, 'LIQUIDATED')]);
      const result = await reconcileOnce(suite.opened.db);
      expect(result).toMatchObject({ applied: 1, parked: 1 });
      expect(await item(sent.transactionId)).toMatchObject({ state: 'matched' });
      const parked = await listParked(suite.opened.db);
      expect(parked.find((p) => p.seq === badSeq)).toMatchObject({
        eventType: 'MONEY_IN',
        reason:
          'MONEY_IN: body.amount is missing: an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)',
        attempts: 1,
      });
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 0 });
      expect(await retryParked(suite.opened.db, [badSeq!])).toBe(1);
      // Still bad: parked again, one more attempt.
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ parked: 1 });
      expect((await listParked(suite.opened.db)).find((p) => p.seq === badSeq)).toMatchObject({
        attempts: 2,
        retry: false,
      });
    });

    it('reads a time that is no date (29 February of a common year) as not given, and applies its event', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const [seq] = await appendAll(suite.store, [
        statusUpdate(sent.transactionId, 'LIQUIDATED', '2026-02-29T10:00:00-06:00'),
      ]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 1, parked: 0 });
      expect((await listParked(suite.opened.db)).filter((p) => p.seq === seq)).toEqual([]);
      expect(await item(sent.transactionId)).toMatchObject({ state: 'matched', status: 'LIQUIDATED' });
    });

    it('imports a report all or nothing and matches it three ways', async () => {
      const sent = outbound({ amount: '410.00' });
      await recordOutbound(suite.opened.db, sent);
      const fileName = `TRANSACTIONS_DAILY_${randomUUID().slice(0, 8)}.csv`;
      await appendAll(suite.store, [statusUpdate(sent.transactionId, 'LIQUIDATED'), reportEvent(fileName)]);
      await reconcileOnce(suite.opened.db);
      const header = 'transaction_id,tracking_key,transaction_date,sub_category,amount,status';
      const bad = `${header}\n${sent.transactionId},PK,2026-11-21 10:00:00,SPEI_DEBIT,410.00,LIQUIDATED\nx,PK,2026-11-21 10:00:00,SPEI_DEBIT,41,LIQUIDATED\n`;
      const error = await importReport(suite.opened.db, fileName, bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ReportFormatError);
      expect((error as ReportFormatError).message).toBe(
        'line 3: amount "41" is not a decimal with two decimals, such as 1500.00',
      );
      expect(await reportMatches(suite.opened.db, fileName)).toEqual([]);

      const unknown = randomUUID();
      const good = `${header}\n${sent.transactionId},PK,2026-11-21 10:00:00,SPEI_DEBIT,410.00,LIQUIDATED\n${unknown},PK2,2026-11-21 11:00:00,SPEI_DEBIT,5.00,LIQUIDATED\n`;
      expect(await importReport(suite.opened.db, fileName, good)).toMatchObject({
        lines: 2,
        imported: true,
        eventSeq: expect.stringMatching(/^\d+$/),
      });
      expect(await importReport(suite.opened.db, fileName, good)).toMatchObject({ imported: false });
      const matches = await reportMatches(suite.opened.db, fileName);
      expect(matches.map((m) => [m.lineNo, m.state, m.fields])).toEqual([
        [2, 'matched', []],
        [3, 'orphan', []],
      ]);
    });

    it('summarises by day and product with exact amounts and a match rate', async () => {
      const rows = await reconciliationSummary(suite.opened.db, view);
      const items = await listItems(suite.opened.db, { ...view, limit: 10_000 });
      for (const row of rows) {
        const mine = items.filter((i) => i.day === row.day && i.product === row.product);
        expect(row.total.count).toBe(mine.length);
        expect(row.states.matched.count).toBe(mine.filter((i) => i.state === 'matched').length);
      }
      const spei = rows.find((r) => r.product === 'spei_out' && r.day === '2026-11-21')!;
      expect(spei.matchRate).toBeGreaterThan(0);
      expect(spei.total.amount).toMatch(/^\d+\.\d{2}$/);
    });
  });
}
