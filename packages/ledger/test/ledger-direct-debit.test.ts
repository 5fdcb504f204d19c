// Direct debit charges in the ledger: the charges we created (recorded from the API's answer) and
// the charge_result events the platform sends, in the documented forms (packages/contracts
// fixtures), in any order. One result per (charge, outcome); a declined or canceled after a
// confirmed is a chargeback; amounts are JSON numbers read exactly.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreInputError, type NewEvent } from '@paykit/store';
import { createChargeRecorder, listItems, listParked, reconcileOnce, reconciliationSummary } from '../src/index.ts';
import { chargeFromApi, recordCharge } from '../src/record/charges.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { documentedFixture } from '@paykit/testing/documented-fixtures';
import { appendAll } from './support/ledger.ts';

const NOW = new Date('2026-04-01T18:00:00Z');
const fixture = (name: string) => documentedFixture(`direct-debit/${name}`).payload;

/** The documented answer to POST /charges, as another charge. */
function chargeAnswer(id: string, amount: unknown = 100.0): Record<string, unknown> {
  return { ...fixture('answer.charges.create.inline.json'), id, amount, created_at: '2026-03-29T11:50:00.000000Z' };
}

/** A documented charge_result (fixture by name) for another charge, stored as the gateway stores it. */
function chargeResult(
  name: string,
  chargeId: string,
  changes: { outcome?: string; timestamp?: string; amount?: unknown; flat?: boolean } = {},
): NewEvent {
  const documented = fixture(name) as { timestamp: string; data: Record<string, unknown> };
  const timestamp = changes.timestamp ?? documented.timestamp;
  const data: Record<string, unknown> = { ...documented.data, charge_id: chargeId };
  if (changes.outcome !== undefined) data.charge_result = changes.outcome;
  if (changes.amount !== undefined) data.amount = changes.amount;
  const payload = changes.flat ? data : { ...documented, timestamp, data };
  const outcome = String(data.charge_result).toLowerCase();
  return {
    source: 'direct_debit',
    eventType: 'charge_result',
    dedupeKey: `direct_debit:charge_result:${chargeId}:${outcome}:${timestamp}:${changes.flat ? 'flat' : 'data'}`,
    idMsg: null,
    transactionId: chargeId,
    operationId: null,
    rawBody: new TextEncoder().encode(JSON.stringify(payload)),
    headers: {},
    receivedAt: new Date('2026-03-29T12:02:00Z'),
    drift: [],
    outcome: 'stored',
    reason: null,
    answerStatus: 200,
    refundReason: null,
  };
}

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`direct debit charges on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const item = async (id: string) =>
      (await listItems(suite.opened.db, { limit: 10_000, now: NOW })).find((i) => i.id === id);
    const record = (id: string, amount?: unknown) =>
      createChargeRecorder(suite.opened.db)({ charge: chargeAnswer(id, amount) });

    it('matches a confirmed charge we recorded, in the documented form, whichever came first', async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      await record(first);
      await appendAll(suite.store, [
        chargeResult('event.charge-result.confirmed.json', first),
        chargeResult('event.charge-result.confirmed.json', second),
      ]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ parked: 0 });
      // The result came before the charge was recorded: an orphan until it is.
      expect(await item(second)).toMatchObject({
        kind: 'charge',
        product: 'direct_debit_charge',
        state: 'orphan',
        amount: null,
      });
      await record(second);
      for (const id of [first, second]) {
        expect(await item(id)).toMatchObject({
          kind: 'charge',
          product: 'direct_debit_charge',
          state: 'matched',
          status: 'confirmed',
          amount: '100.00',
          direction: 'in',
          fields: [],
        });
      }
      expect((await item(first))!.eventSeqs).toHaveLength(1);
    });

    it('applies the older flat form and any letter case; a declined charge settles as declined', async () => {
      const [flat, declined] = [randomUUID(), randomUUID()];
      await record(flat, 250.5);
      await record(declined);
      const seqs = await appendAll(suite.store, [
        chargeResult('event.charge-result.older-form.json', flat, { flat: true, outcome: 'CONFIRMED' }),
        chargeResult('event.charge-result.declined.json', declined, { outcome: 'Declined' }),
      ]);
      await reconcileOnce(suite.opened.db);
      expect((await listParked(suite.opened.db)).filter((p) => seqs.includes(p.seq))).toEqual([]);
      expect(await item(flat)).toMatchObject({ state: 'matched', status: 'confirmed', amount: '250.50' });
      expect(await item(declined)).toMatchObject({ state: 'matched', status: 'declined' });
    });

    it('applies one result per (charge, outcome): a resend with a new timestamp is not applied twice', async () => {
      const id = randomUUID();
      await record(id);
      // The resend is applied first, in a batch of its own, then the first delivery.
      const seqs = await appendAll(suite.store, [
        chargeResult('event.charge-result.confirmed.json', id, { timestamp: '2026-03-29T12:05:00.000000Z' }),
      ]);
      await reconcileOnce(suite.opened.db);
      seqs.push(...(await appendAll(suite.store, [chargeResult('event.charge-result.confirmed.json', id)])));
      await reconcileOnce(suite.opened.db);
      // A later resend, applied last, changes nothing.
      seqs.push(
        ...(await appendAll(suite.store, [
          chargeResult('event.charge-result.confirmed.json', id, { timestamp: '2026-03-29T12:20:00.000000Z' }),
        ])),
      );
      await reconcileOnce(suite.opened.db);
      const { rows } = await suite.opened.db.query<{ event_seq: string; result_at: Date }>(
        'SELECT event_seq::text, result_at FROM ledger_dd_results WHERE charge_id = $1',
        [id],
      );
      // The earliest stands, whichever was applied first.
      expect(rows).toEqual([{ event_seq: seqs[1], result_at: new Date('2026-03-29T12:01:30Z') }]);
      expect(await item(id)).toMatchObject({ state: 'matched', eventSeqs: [seqs[1]] });
    });

    it('shows a declined or canceled after a confirmed as a chargeback, never matched, in any order', async () => {
      const [declinedLater, canceledFirstApplied] = [randomUUID(), randomUUID()];
      await record(declinedLater);
      await appendAll(suite.store, [chargeResult('event.charge-result.confirmed.json', declinedLater)]);
      await reconcileOnce(suite.opened.db);
      await appendAll(suite.store, [
        chargeResult('event.charge-result.declined.json', declinedLater, { timestamp: '2026-03-30T09:00:00Z' }),
      ]);
      // Applied in the other order: the canceled first, its confirmation after.
      await appendAll(suite.store, [
        chargeResult('event.charge-result.canceled-penny-validation.json', canceledFirstApplied, {
          timestamp: '2026-03-30T09:00:00Z',
        }),
      ]);
      await reconcileOnce(suite.opened.db);
      await appendAll(suite.store, [chargeResult('event.charge-result.confirmed.json', canceledFirstApplied)]);
      await reconcileOnce(suite.opened.db);
      await record(canceledFirstApplied);
      expect(await item(declinedLater)).toMatchObject({
        state: 'mismatched',
        status: 'chargeback',
        fields: ['chargeback'],
      });
      expect(await item(canceledFirstApplied)).toMatchObject({
        state: 'mismatched',
        status: 'chargeback',
        fields: ['chargeback'],
      });
      expect((await item(canceledFirstApplied))!.eventSeqs).toHaveLength(2);
    });

    it('reads a JSON number amount exactly and reports another amount in a result as a mismatch', async () => {
      const id = randomUUID();
      await record(id, 1234567890123.45);
      await appendAll(suite.store, [
        chargeResult('event.charge-result.confirmed.json', id, { amount: 1234567890123.46 }),
      ]);
      await reconcileOnce(suite.opened.db);
      expect(await item(id)).toMatchObject({ state: 'mismatched', amount: '1234567890123.45', fields: ['amount'] });
      const same = randomUUID();
      await record(same, 100);
      await appendAll(suite.store, [chargeResult('event.charge-result.confirmed.json', same, { amount: 100.0 })]);
      await reconcileOnce(suite.opened.db);
      expect(await item(same)).toMatchObject({ state: 'matched', amount: '100.00' });
    });

    it('keeps a recorded charge without a result pending, then stale, then an orphan; counts charges in the summary', async () => {
      const id = randomUUID();
      await record(id, 75.25);
      expect(await item(id)).toMatchObject({
        state: 'orphan',
        status: 'pending',
        note: 'waiting for the charge result',
      });
      const young = (await listItems(suite.opened.db, { limit: 10_000, now: new Date('2026-03-29T12:00:00Z') })).find(
        (i) => i.id === id,
      );
      expect(young).toMatchObject({ state: 'pending' });
      const summary = await reconciliationSummary(suite.opened.db, { now: NOW, from: '2026-03-29', to: '2026-03-29' });
      const row = summary.find((r) => r.product === 'direct_debit_charge');
      expect(row!.states.orphan.count).toBeGreaterThanOrEqual(1);
      expect(row!.total.count).toBe(
        (
          await listItems(suite.opened.db, {
            limit: 10_000,
            now: NOW,
            products: ['direct_debit_charge'],
            from: '2026-03-29',
            to: '2026-03-29',
          })
        ).length,
      );
    });

    it('parks a charge_result it cannot apply, saying what is wrong', async () => {
      const id = randomUUID();
      const seqs = await appendAll(suite.store, [
        chargeResult('event.charge-result.confirmed.json', id, { outcome: 'refunded' }),
        chargeResult('event.charge-result.confirmed.json', randomUUID(), { amount: 100.001 }),
      ]);
      await reconcileOnce(suite.opened.db);
      const parked = (await listParked(suite.opened.db))
        .filter((p) => seqs.includes(p.seq))
        .map((p) => p.reason)
        .sort();
      expect(parked).toEqual([
        'charge_result: data.amount is not an amount of pesos with up to two decimals (such as 100 or 100.50)',
        'charge_result: data.charge_result is missing or not confirmed, declined or canceled',
      ]);
    });

    it('ends the same with workers and the recorder running at once over resends in small batches', async () => {
      const ids = Array.from({ length: 40 }, () => randomUUID());
      // Each charge: its resend stored first, then the first delivery, then a duplicate of the resend.
      const events = ids.flatMap((id) => [
        chargeResult('event.charge-result.confirmed.json', id, { timestamp: '2026-03-29T12:09:00Z' }),
        chargeResult('event.charge-result.confirmed.json', id),
        chargeResult('event.charge-result.older-form.json', id, { flat: true }),
      ]);
      const seqs = await appendAll(suite.store, events);
      await Promise.all([
        reconcileOnce(suite.opened.db, { batchSize: 7 }),
        reconcileOnce(suite.opened.db, { batchSize: 5 }),
        ...ids.map((id) => record(id, 99.9)),
        reconcileOnce(suite.opened.db, { batchSize: 3 }),
      ]);
      await reconcileOnce(suite.opened.db);
      const all = await listItems(suite.opened.db, { limit: 10_000, now: NOW, products: ['direct_debit_charge'] });
      ids.forEach((id, n) => {
        const found = all.find((i) => i.id === id);
        // The older flat form has no timestamp: its receipt time (12:02) is later than 12:01:30, so the first delivery stands.
        expect(found).toMatchObject({
          state: 'matched',
          status: 'confirmed',
          amount: '99.90',
          eventSeqs: [seqs[n * 3 + 1]],
        });
      });
    });

    it('records a charge once, and refuses an answer it cannot read exactly', async () => {
      const id = randomUUID();
      expect(await recordCharge(suite.opened.db, chargeFromApi(chargeAnswer(id)))).toBe(true);
      expect(await recordCharge(suite.opened.db, chargeFromApi(chargeAnswer(id, 999)))).toBe(false);
      expect(await item(id)).toMatchObject({ amount: '100.00' });
      expect(() => chargeFromApi(chargeAnswer(id, 0.1 + 0.2))).toThrow(StoreInputError);
      expect(() => chargeFromApi(chargeAnswer(id, '1e3'))).toThrow(/charge.amount/);
      expect(() => chargeFromApi({ ...chargeAnswer(id), id: undefined })).toThrow(/charge.id is missing/);
    });
  });
}
