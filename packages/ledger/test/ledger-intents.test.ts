// Write-ahead intents on each database: written before the answer, attached with it, reused by a
// rerun of the same request (which then reads as a replay), listed while unresolved with their age
// on a fixed clock, attached by a reversal that names them exactly (and never by a guess), and an
// orphan status update shown with the amount the intent or a report line knows. On PostgreSQL, the
// recorder's writes survive a dropped connection.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, openDatabase } from '@paykit/store';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { startTcpProxy } from '@paykit/testing/tcp-proxy';
import {
  checkBooks,
  createTransactionRecorder,
  figureOf,
  getIntent,
  itemJournal,
  moneyFigures,
  importReport,
  listItems,
  listUnresolvedIntents,
  reconcileOnce,
  unresolvedIntentTotals,
  type TransactionIntentLike,
} from '../src/index.ts';
import { appendAll, refund, statusUpdate } from './support/ledger.ts';

const NOW = new Date('2026-11-21T20:00:00Z');
const CLIENT = '11111111-1111-4111-8111-111111111111';
const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';

function moneyOutIntent(amount: string, reference: string): TransactionIntentLike {
  return {
    operation: 'createMoneyOut',
    clientId: CLIENT,
    idempotencyKey: randomUUID(),
    body: {
      client_id: CLIENT,
      source_instrument_id: ACME,
      destination_instrument_id: BBVA,
      transaction_request: { amount, currency: 'MXN', description: 'payout', external_reference: reference },
    },
  };
}

/** The transaction money_out answers, as the platform returns it. */
function answer(amount: string, createdAt: Date, id = randomUUID()) {
  return {
    id,
    trackingId: `PK-${id.slice(0, 8)}`,
    amount,
    subCategory: 'SPEI_DEBIT',
    transactionStatus: 'INITIALIZED',
    sourceInstrument: { instrumentDetail: { clabeNumber: '646180000000000012' } },
    destinationInstrument: { instrumentDetail: { clabeNumber: '012180000045678907' } },
    audit: { createdAt: createdAt.toISOString() },
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`outbound intents on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    let clock = NOW;
    const recorder = () => createTransactionRecorder(suite.opened.db, { actor: 'ana@ops', now: () => clock });
    const items = () => listItems(suite.opened.db, { now: NOW, staleAfterSeconds: 86_400, limit: 10_000 });

    it('writes the intent before the answer and attaches the transaction with it, recorded once', async () => {
      const record = recorder();
      const intent = moneyOutIntent('4321.00', '1000001');
      const intentId = await record.onTransactionIntent(intent);
      expect(await getIntent(suite.opened.db, intentId)).toMatchObject({
        amount: '4321.00',
        operation: 'money_out',
        idempotencyKey: intent.idempotencyKey,
        sourceInstrument: ACME,
        destinationInstrument: BBVA,
        externalReference: '1000001',
        description: 'payout',
        actor: 'ana@ops',
        createdAt: NOW,
        transactionId: null,
      });
      expect((await listUnresolvedIntents(suite.opened.db, { now: NOW })).map((i) => i.id)).toContain(intentId);

      const tx = answer('4321.00', NOW);
      await record.onTransactionCreated({
        operation: 'createMoneyOut',
        transaction: tx,
        idempotencyKey: intent.idempotencyKey!,
        intentId,
      });
      expect(await getIntent(suite.opened.db, intentId)).toMatchObject({ transactionId: tx.id, attachedBy: 'answer' });
      expect((await listUnresolvedIntents(suite.opened.db, { now: NOW })).map((i) => i.id)).not.toContain(intentId);
      expect((await items()).find((i) => i.id === tx.id)).toMatchObject({ kind: 'outbound', amount: '4321.00' });
    });

    it('books an unanswered intent in suspense until its answer, a refusal or an exact fact resolves it', async () => {
      const opened = await kind.open();
      try {
        const record = createTransactionRecorder(opened.db, { actor: 'ana@ops', now: () => NOW });
        const unconfirmed = async () => figureOf(await moneyFigures(opened.db), 'out', 'unconfirmed');
        const answered = moneyOutIntent('4321.00', '3000001');
        const refused = moneyOutIntent('120.00', '3000002');
        const reversed = moneyOutIntent('310.00', '3000003');
        const ids = [
          await record.onTransactionIntent(answered),
          await record.onTransactionIntent(refused),
          await record.onTransactionIntent(reversed),
        ];
        expect(await unconfirmed()).toMatchObject({ count: 3, amount: '4751.00' });
        expect(await unresolvedIntentTotals(opened.db)).toEqual({ count: 3, amount: '4751.00' });
        expect(await itemJournal(opened.db, `int:${ids[0]}`)).toEqual([
          expect.objectContaining({ account: 'out:unconfirmed', amount: '4321.00', source: `intent:${ids[0]}` }),
          expect.objectContaining({ account: 'platform:unconfirmed', amount: '-4321.00', source: `intent:${ids[0]}` }),
        ]);
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true, itemsOff: [] });

        // The answer: out of suspense, into transit on the account the platform named.
        const tx = answer('4321.00', NOW);
        await record.onTransactionCreated({
          operation: 'createMoneyOut',
          transaction: tx,
          idempotencyKey: answered.idempotencyKey!,
          intentId: ids[0],
        });
        // A refusal that created nothing: out of suspense, and nothing else booked.
        await record.onTransactionFailed({
          operation: 'createMoneyOut',
          intentId: ids[1],
          nothingMoved: true,
          error: new Error('HTTP 400'),
        });
        expect(await unconfirmed()).toMatchObject({ count: 1, amount: '310.00' });
        // An exact fact: a reversal naming the transaction, the intent's reference and amount.
        const moved = randomUUID();
        const store = createEventStore(opened.db);
        await appendAll(store, [
          refund(
            { id: moved, amount: '310.00' },
            { numeric_reference: '3000003', transaction_date: '2026-11-21 15:00:00' },
          ),
        ]);
        await store.close();
        await reconcileOnce(opened.db);
        expect(await getIntent(opened.db, ids[2]!)).toMatchObject({ transactionId: moved });
        expect(await unconfirmed()).toMatchObject({ count: 0, amount: '0.00' });
        expect(await unresolvedIntentTotals(opened.db)).toEqual({ count: 0, amount: '0.00' });
        const figures = await moneyFigures(opened.db);
        expect(figureOf(figures, 'out', 'in_transit').amount).toBe('4321.00');
        // The suspense entries stay, each taken out by a posting of its own.
        expect((await itemJournal(opened.db, `int:${ids[1]}`)).map((e) => [e.account, e.amount])).toEqual([
          ['out:unconfirmed', '120.00'],
          ['platform:unconfirmed', '-120.00'],
          ['out:unconfirmed', '-120.00'],
          ['platform:unconfirmed', '120.00'],
        ]);
        expect(await checkBooks(opened.db)).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
      } finally {
        await opened.drop();
      }
    });

    it('a rerun of the same request reuses its intent, and its answer reads as a replay', async () => {
      const seen: { replayed: boolean; intentId: string | null }[] = [];
      clock = NOW;
      const record = createTransactionRecorder(suite.opened.db, {
        actor: 'ana@ops',
        now: () => clock,
        onRecorded: (r) => seen.push(r),
      });
      const intent = moneyOutIntent('120.00', '1000002');
      const first = await record.onTransactionIntent(intent);
      // The answer of the first attempt never reached the ledger. The rerun, a minute later:
      clock = new Date(NOW.getTime() + 60_000);
      const second = await record.onTransactionIntent(intent);
      expect(second).toBe(first);
      expect(await getIntent(suite.opened.db, first)).toMatchObject({ attempts: 2, createdAt: NOW });
      // The platform answers the transaction it created for the first attempt.
      const tx = answer('120.00', new Date(NOW.getTime() + 500));
      await record.onTransactionCreated({
        operation: 'createMoneyOut',
        transaction: tx,
        idempotencyKey: intent.idempotencyKey!,
        intentId: second,
      });
      expect(seen).toEqual([expect.objectContaining({ intentId: first, replayed: true, recorded: true })]);
      // Once more: the ledger knows the transaction, so this is a replay too, and nothing is recorded twice.
      clock = new Date(NOW.getTime() + 120_000);
      const third = await record.onTransactionIntent(intent);
      await record.onTransactionCreated({
        operation: 'createMoneyOut',
        transaction: tx,
        idempotencyKey: intent.idempotencyKey!,
        intentId: third,
      });
      expect(seen.at(-1)).toMatchObject({ intentId: first, replayed: true, recorded: false });
      // A request answered for the first time is not a replay.
      const fresh = moneyOutIntent('121.00', '1000003');
      const freshId = await record.onTransactionIntent(fresh);
      await record.onTransactionCreated({
        operation: 'createMoneyOut',
        transaction: answer('121.00', clock),
        idempotencyKey: fresh.idempotencyKey!,
        intentId: freshId,
      });
      expect(seen.at(-1)).toMatchObject({ intentId: freshId, replayed: false, recorded: true });
      clock = NOW;
    });

    it('lists an unresolved intent with its amount, age and sender, and whether a replay is still answered', async () => {
      const record = recorder();
      const intent = moneyOutIntent('77.10', '1000004');
      const id = await record.onTransactionIntent(intent);
      const later = new Date(NOW.getTime() + 3 * 3600_000);
      const listed = (await listUnresolvedIntents(suite.opened.db, { now: later })).find((i) => i.id === id);
      expect(listed).toMatchObject({ amount: '77.10', actor: 'ana@ops', ageSeconds: 3 * 3600, replayable: true });
      const dayLater = new Date(NOW.getTime() + 25 * 3600_000);
      expect((await listUnresolvedIntents(suite.opened.db, { now: dayLater })).find((i) => i.id === id)).toMatchObject({
        replayable: false,
      });
      const totals = await unresolvedIntentTotals(suite.opened.db);
      expect(totals.count).toBeGreaterThanOrEqual(1);
      // A request the platform refused moved nothing: it is not unresolved.
      await record.onTransactionFailed({
        operation: 'createMoneyOut',
        intentId: id,
        nothingMoved: true,
        error: new Error('HTTP 400'),
      });
      expect((await listUnresolvedIntents(suite.opened.db, { now: later })).map((i) => i.id)).not.toContain(id);
    });

    it('a reversal naming the transaction, its reference and amount attaches the one intent it fits; a guess attaches nothing', async () => {
      const record = recorder();
      const exact = moneyOutIntent('310.00', '2000001');
      const exactId = await record.onTransactionIntent(exact);
      // Two open intents of one reference and amount: a reversal of either fits both.
      const twinA = await record.onTransactionIntent(moneyOutIntent('55.00', '2000002'));
      const twinB = await record.onTransactionIntent(moneyOutIntent('55.00', '2000002'));
      const moved = randomUUID();
      const ambiguous = randomUUID();
      await appendAll(suite.store, [
        statusUpdate(moved, 'LIQUIDATED'),
        refund(
          { id: moved, amount: '310.00' },
          { numeric_reference: '2000001', transaction_date: '2026-11-21 15:00:00' },
        ),
        refund(
          { id: ambiguous, amount: '55.00' },
          { numeric_reference: '2000002', transaction_date: '2026-11-21 15:00:00' },
        ),
      ]);
      await reconcileOnce(suite.opened.db);
      expect(await getIntent(suite.opened.db, exactId)).toMatchObject({ transactionId: moved, attachedBy: 'event' });
      expect(await getIntent(suite.opened.db, twinA)).toMatchObject({ transactionId: null });
      expect(await getIntent(suite.opened.db, twinB)).toMatchObject({ transactionId: null });
      // Recorded from the intent: its status update is no orphan, and it carries the amount.
      const item = (await items()).find((i) => i.id === moved);
      expect(item).toMatchObject({ kind: 'outbound', amount: '310.00' });
    });

    it('an orphan status update shows the amount the intent or a report line knows', async () => {
      const viaIntent = randomUUID();
      const viaReport = randomUUID();
      const unknown = randomUUID();
      const record = recorder();
      const intentId = await record.onTransactionIntent(moneyOutIntent('4321.00', '3000001'));
      // An intent attached without its transfer recorded (as a recorder that attached, then lost, left it).
      await suite.opened.db.query(
        `UPDATE ledger_outbound_intents SET transaction_id = $2, attached_at = now(), attached_by = 'answer' WHERE id = $1`,
        [intentId, viaIntent],
      );
      await appendAll(suite.store, [
        statusUpdate(viaIntent, 'LIQUIDATED'),
        statusUpdate(viaReport, 'LIQUIDATED'),
        statusUpdate(unknown, 'LIQUIDATED'),
      ]);
      await reconcileOnce(suite.opened.db);
      await importReport(
        suite.opened.db,
        `TRANSACTIONS_DAILY_2026-11-21_${randomUUID().slice(0, 8)}.csv`,
        `transaction_id,tracking_key,transaction_date,sub_category,amount,status\n${viaReport},PK-${viaReport.slice(0, 8)},2026-11-21 10:00:00,SPEI_DEBIT,88.50,LIQUIDATED\n`,
      );
      const all = await items();
      expect(all.find((i) => i.id === viaIntent)).toMatchObject({ kind: 'status_update', amount: '4321.00' });
      expect(all.find((i) => i.id === viaReport)).toMatchObject({ kind: 'status_update', amount: '88.50' });
      expect(all.find((i) => i.id === unknown)).toMatchObject({ kind: 'status_update', amount: null });
    });
  });
}

describe.runIf(testDatabases([ledgerMigrations]).some((kind) => kind.name === 'postgres'))(
  'the recorder on PostgreSQL',
  () => {
    const kind = testDatabases([ledgerMigrations]).find((k) => k.name === 'postgres')!;
    let opened: Awaited<ReturnType<typeof kind.open>>;
    beforeAll(async () => {
      opened = await kind.open();
    });
    afterAll(async () => {
      await opened?.drop();
    });

    it('retries its writes over a dropped connection, and a write that cannot be made at all fails', async () => {
      const target = new URL(opened.url!);
      const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      const viaProxy = new URL(opened.url!);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      const db = await openDatabase({ databaseUrl: viaProxy.toString(), connectTimeoutMs: 500 });
      try {
        const record = createTransactionRecorder(db, { actor: 'svc', retry: { baseDelayMs: 50, maxDelayMs: 200 } });
        const intent = moneyOutIntent('10.00', '4000001');
        await db.query('SELECT 1');
        // The connection drops and the database is away for 0.4 s, as in a restart.
        proxy.cut();
        setTimeout(() => proxy.restore(), 400);
        const id = await record.onTransactionIntent(intent);
        proxy.cut();
        setTimeout(() => proxy.restore(), 400);
        const tx = answer('10.00', new Date());
        await record.onTransactionCreated({
          operation: 'createMoneyOut',
          transaction: tx,
          idempotencyKey: intent.idempotencyKey!,
          intentId: id,
        });
        expect(await getIntent(opened.db, id)).toMatchObject({ transactionId: tx.id, attempts: 1 });
        // Away for longer than the policy allows: the error reaches the caller.
        proxy.cut();
        const bounded = createTransactionRecorder(db, {
          actor: 'svc',
          retry: { attempts: 3, baseDelayMs: 20, maxDelayMs: 20 },
        });
        await expect(bounded.onTransactionIntent(moneyOutIntent('11.00', '4000002'))).rejects.toThrow();
        proxy.restore();
      } finally {
        await db.close();
        await proxy.close();
      }
    });
  },
);
