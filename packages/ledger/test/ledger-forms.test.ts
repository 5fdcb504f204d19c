// Every documented form of the platform's events applies (shapes from DESIGN.md, "The real
// platform"): a compact MONEY_IN transaction_date ("20250402") and the field reference's
// "YYYY-MM-DD HH:MM:SS", a numeric-string id, an older STATUS_UPDATE with only {tracking_key,
// status, update_at} matched by tracking key, update_at with or without an offset, msg_date a
// date or a date-time. None is parked; only an event the ledger truly cannot use is.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listItems, listParked, reconcileOnce, recordOutbound } from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { appendAll, coreEvent, moneyIn, outbound } from './support/ledger.ts';

const NOW = new Date('2026-11-21T18:00:00Z');

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`documented event forms on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });
    const items = () => listItems(suite.opened.db, { limit: 10_000, now: NOW });
    const parkedAmong = async (seqs: string[]) =>
      (await listParked(suite.opened.db)).filter((p) => seqs.includes(p.seq));

    it('applies a MONEY_IN with a compact transaction_date and a numeric id, at that day in Mexico City', async () => {
      const id = String(100_000 + Math.floor(Math.random() * 800_000));
      const seqs = await appendAll(suite.store, [moneyIn({ id, transaction_date: '20250402', amount: '1500.00' })]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 1, parked: 0 });
      expect(await parkedAmong(seqs)).toEqual([]);
      const credit = (await items()).find((i) => i.id === id);
      expect(credit).toMatchObject({ kind: 'credit', day: '2025-04-02', amount: '1500.00' });
      expect(credit!.at.toISOString()).toBe('2025-04-02T06:00:00.000Z');
    });

    it('reads every documented time form, and one it cannot read as not given', async () => {
      const forms: Array<[string, string]> = [
        ['2025-04-02 10:15:00', '2025-04-02T16:15:00.000Z'],
        ['2025-03-06 11:16:59.491631', '2025-03-06T17:16:59.491Z'],
        ['2025-03-05 11:16:59.488685-06:00', '2025-03-05T17:16:59.488Z'],
        ['2026-02-24T10:30:15Z', '2026-02-24T10:30:15.000Z'],
        ['2025-08-15T22:42:39.327Z', '2025-08-15T22:42:39.327Z'],
        ['2025-04-02', '2025-04-02T06:00:00.000Z'],
      ];
      const ids = forms.map(() => randomUUID());
      const seqs = await appendAll(
        suite.store,
        forms.map(([date], i) => moneyIn({ id: ids[i], transaction_date: date })),
      );
      const unreadable = randomUUID();
      const received = new Date('2026-11-21T16:30:00Z');
      seqs.push(...(await appendAll(suite.store, [moneyIn({ id: unreadable, transaction_date: '02/04/2025' })])));
      await reconcileOnce(suite.opened.db);
      expect(await parkedAmong(seqs)).toEqual([]);
      const all = await items();
      forms.forEach(([, at], i) => expect(all.find((item) => item.id === ids[i])!.at.toISOString()).toBe(at));
      expect(all.find((item) => item.id === unreadable)!.at.toISOString()).toBe(received.toISOString());
    });

    it('matches an older STATUS_UPDATE without an id by its tracking key, update_at without an offset, whichever comes first', async () => {
      const before = outbound();
      const after = outbound();
      await recordOutbound(suite.opened.db, before);
      const older = (t: typeof before) =>
        coreEvent('STATUS_UPDATE', {
          tracking_key: t.trackingKey,
          status: 'LIQUIDATED',
          update_at: '2026-11-21 10:16:00',
        });
      const seqs = await appendAll(suite.store, [older(before), older(after)]);
      await reconcileOnce(suite.opened.db);
      // Received before its transfer was recorded: an orphan named by its tracking key, until then.
      expect((await items()).find((i) => i.id === after.trackingKey)).toMatchObject({
        kind: 'status_update',
        state: 'orphan',
      });
      await recordOutbound(suite.opened.db, after);
      expect(await parkedAmong(seqs)).toEqual([]);
      const all = await items();
      for (const t of [before, after])
        expect(all.find((i) => i.id === t.transactionId)).toMatchObject({
          state: 'matched',
          status: 'LIQUIDATED',
          eventSeqs: [seqs[t === before ? 0 : 1]],
        });
      expect(all.find((i) => i.id === after.trackingKey)).toBeUndefined();
      const { rows } = await suite.opened.db.query<{ at: Date }>(
        'SELECT status_at AS at FROM ledger_outbound WHERE transaction_id = $1',
        [before.transactionId],
      );
      expect(rows[0]!.at.toISOString()).toBe('2026-11-21T16:16:00.000Z');
    });

    it('applies an envelope whose msg_date is a date-time, and a numeric id given as a JSON number', async () => {
      const sent = outbound();
      await recordOutbound(suite.opened.db, sent);
      const update = coreEvent('STATUS_UPDATE', {
        id: sent.transactionId,
        status: 'LIQUIDATED',
        update_at: '2026-11-21T10:16:00-06:00',
      });
      const payload = JSON.parse(new TextDecoder().decode(update.rawBody)) as Record<string, unknown>;
      payload.msg_date = '2026-11-21T10:16:01-06:00';
      const numeric = 987_654_321;
      const seqs = await appendAll(suite.store, [
        { ...update, rawBody: new TextEncoder().encode(JSON.stringify(payload)) },
        moneyIn({ id: numeric }),
      ]);
      await reconcileOnce(suite.opened.db);
      expect(await parkedAmong(seqs)).toEqual([]);
      const all = await items();
      expect(all.find((i) => i.id === sent.transactionId)).toMatchObject({ state: 'matched' });
      expect(all.find((i) => i.id === String(numeric))).toMatchObject({ kind: 'credit' });
    });

    it('still parks what cannot be applied, naming the field', async () => {
      const seqs = await appendAll(suite.store, [
        moneyIn({ amount: undefined }),
        coreEvent('STATUS_UPDATE', { status: 'LIQUIDATED' }),
        moneyIn({ amount: '12.345' }),
      ]);
      await reconcileOnce(suite.opened.db);
      expect((await parkedAmong(seqs)).map((p) => p.reason)).toEqual([
        'MONEY_IN: body.amount is missing: an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)',
        'STATUS_UPDATE: neither body.id (the transaction id) nor body.tracking_key is given',
        'MONEY_IN: body.amount "12.345" is not an amount: an amount is a decimal string with exactly two decimals from 0.01 to 9999999999999999.99, such as "150.00" (see @paykit/contracts readAmount)',
      ]);
    });
  });
}
