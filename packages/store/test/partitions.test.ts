// The event store partitioned by month (migration 0023): one stored event per dedupe key whatever
// month its deliveries fall in, twins racing across months included; an event of a month with no
// partition lands in the default partition and is moved into its month's partition when that is
// made; partitions are made ahead idempotently, and every read by seq or by key finds the event
// wherever it lies. A store migrated before the partitions keeps every event and its dedupe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEventStore,
  ensureEventPartitions,
  listEventPartitions,
  migrate,
  type EventStore,
} from '../src/index.ts';
import { testDatabases, type OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

const where = async (db: OpenedTestDatabase['db'], seq: string): Promise<string> => {
  const { rows } = await db.query<{ part: string }>(
    'SELECT tableoid::regclass::text AS part FROM webhook_events WHERE seq = $1::bigint',
    [seq],
  );
  return rows.map((row) => row.part).join(',');
};

for (const kind of testDatabases()) {
  describe(`the partitioned event store on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let store: EventStore;
    beforeAll(async () => {
      opened = await kind.open();
      store = createEventStore(opened.db);
    });
    afterAll(async () => {
      await store.close();
      await opened.drop();
    });

    it('stores one event per key across months, and answers a redelivery from a later month as the first delivery', async () => {
      const first = newEvent({ receivedAt: new Date('2031-01-31T23:59:59.999Z') });
      const stored = await store.append(first);
      const later = await store.append({
        ...first,
        receivedAt: new Date('2031-02-01T00:00:00Z'),
        outcome: 'rejected',
        answerStatus: 400,
      });
      expect(later).toMatchObject({ seq: stored.seq, inserted: false, deliveries: 2, outcome: stored.outcome });
      const twins = await Promise.all(
        ['2031-03-01T00:00:00Z', '2031-04-01T00:00:00Z', '2031-05-01T00:00:00Z'].map((at) =>
          store.append({ ...first, receivedAt: new Date(at) }),
        ),
      );
      expect(new Set(twins.map((t) => t.seq))).toEqual(new Set([stored.seq]));
      expect(twins.map((t) => t.deliveries).sort()).toEqual([3, 4, 5]);
      expect(await store.get(stored.seq)).toMatchObject({ deliveries: 5, receivedAt: first.receivedAt });
      expect((await store.getByDedupeKey(first.dedupeKey))?.seq).toBe(stored.seq);
      const { rows } = await opened.db.query<{ n: string }>(
        'SELECT count(*)::text AS n FROM webhook_events WHERE dedupe_key = $1',
        [first.dedupeKey],
      );
      expect(rows[0]!.n).toBe('1');
    });

    it('takes an event of a month with no partition into the default one, and moves it when the month is made', async () => {
      const event = newEvent({ receivedAt: new Date('2032-06-15T10:00:00Z') });
      const { seq } = await store.append(event);
      expect(await where(opened.db, seq)).toBe('webhook_events_default');
      const made = await ensureEventPartitions(opened.db, { now: new Date('2032-06-01T00:00:00Z'), monthsAhead: 1 });
      expect(made).toEqual(['webhook_events_2032_06', 'webhook_events_2032_07']);
      expect(await where(opened.db, seq)).toBe('webhook_events_2032_06');
      expect(await store.get(seq)).toMatchObject({ seq, receivedAt: event.receivedAt });
      // Again: nothing new, nothing moved.
      expect(await ensureEventPartitions(opened.db, { now: new Date('2032-06-20T00:00:00Z'), monthsAhead: 1 })).toEqual(
        made,
      );
      const partitions = await listEventPartitions(opened.db);
      expect(partitions.find((p) => p.name === 'webhook_events_2032_06')).toMatchObject({
        events: 1,
        from: new Date('2032-06-01T00:00:00Z'),
        to: new Date('2032-07-01T00:00:00Z'),
      });
      expect(partitions.at(-1)).toMatchObject({ name: 'webhook_events_default', from: null });
      await expect(ensureEventPartitions(opened.db, { monthsAhead: 99 })).rejects.toThrow(
        /monthsAhead must be a whole number from 0 to 24/,
      );
    });
  });
}

for (const kind of testDatabases()) {
  describe(`a store migrated to partitions on ${kind.name}`, () => {
    it('keeps every stored event, in its month, with its key: a redelivery after the migration is a duplicate', async () => {
      const opened = await kind.open({ migrate: false });
      try {
        await migrate(opened.db, [], { before: '0023' });
        const old = createEventStore(opened.db);
        const events = [
          newEvent({ receivedAt: new Date('2026-03-05T10:00:00Z') }),
          newEvent({ receivedAt: new Date('2026-04-05T10:00:00Z') }),
        ];
        const seqs = [];
        for (const event of events) seqs.push((await old.append(event)).seq);
        await old.append(events[0]!);
        await old.close();

        await migrate(opened.db);
        expect(await where(opened.db, seqs[0]!)).toBe('webhook_events_2026_03');
        expect(await where(opened.db, seqs[1]!)).toBe('webhook_events_2026_04');
        const store = createEventStore(opened.db);
        try {
          expect(await store.append(events[1]!)).toMatchObject({ seq: seqs[1], inserted: false, deliveries: 2 });
          expect(await store.append(events[0]!)).toMatchObject({ seq: seqs[0], inserted: false, deliveries: 3 });
          const next = await store.append(newEvent({ receivedAt: new Date('2026-04-06T10:00:00Z') }));
          expect(BigInt(next.seq)).toBeGreaterThan(BigInt(seqs[1]!));
        } finally {
          await store.close();
        }
      } finally {
        await opened.drop();
      }
    });
  });
}
