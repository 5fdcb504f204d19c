// The time and day rules in SQL: ledger_time reads every form the platform documents (an offset
// time, a Mexico City local time, a date, a compact date) and gives NULL, never an error, for
// anything else — an impossible date, an hour or an offset out of range — so one bad field cannot
// fail a worker's whole batch; ledger_day is the Mexico City (UTC−6) day of an instant, whatever the
// session's time zone. On PGlite, and on PostgreSQL when DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listItems, listParked, reconcileOnce } from '../src/index.ts';
import { appendAll, coreEvent, moneyIn } from './support/ledger.ts';

/** [input, the instant it names (ISO, UTC) or null]. */
const TIMES: Array<[string, string | null]> = [
  // The platform's usual form, with an offset.
  ['2026-11-21T06:00:00-06:00', '2026-11-21T12:00:00.000Z'],
  ['2026-11-21T23:59:59+00:00', '2026-11-21T23:59:59.000Z'],
  ['2026-11-28T00:00:00+14:00', '2026-11-27T10:00:00.000Z'],
  ['2026-11-28T00:00:00-12:00', '2026-11-28T12:00:00.000Z'],
  ['2026-11-28T00:00:00+15:59', '2026-11-27T08:01:00.000Z'],
  ['2026-01-31T10:00:00-06:00', '2026-01-31T16:00:00.000Z'],
  ['2024-02-29T10:00:00-06:00', '2024-02-29T16:00:00.000Z'],
  ['2026-02-24T10:30:15Z', '2026-02-24T10:30:15.000Z'],
  ['2025-08-15T22:42:39.327Z', '2025-08-15T22:42:39.327Z'],
  ['2025-03-05 11:16:59.488685-06:00', '2025-03-05T17:16:59.488Z'],
  ['2026-11-21T06:00-06:00', '2026-11-21T12:00:00.000Z'],
  // Local times and dates are Mexico City's (UTC−6).
  ['2025-04-02 10:15:00', '2025-04-02T16:15:00.000Z'],
  ['2025-03-06 11:16:59.491631', '2025-03-06T17:16:59.491Z'],
  ['2025-04-02', '2025-04-02T06:00:00.000Z'],
  ['20250402', '2025-04-02T06:00:00.000Z'],
  // Not a time: NULL, and the caller falls back (the event's arrival, for a credit).
  ['2026-11-28T00:00:00+16:00', null],
  ['2026-11-28T00:00:00+99:00', null],
  ['2026-11-28T00:00:00-20:00', null],
  ['2026-02-29T10:00:00-06:00', null],
  ['2100-02-29T10:00:00-06:00', null],
  ['2026-02-30T10:00:00-06:00', null],
  ['2026-04-31T10:00:00-06:00', null],
  ['2026-13-01T10:00:00-06:00', null],
  ['2026-00-10T10:00:00-06:00', null],
  ['2026-11-00T10:00:00-06:00', null],
  ['2026-11-21T24:00:00-06:00', null],
  ['2026-11-21T23:60:00-06:00', null],
  ['2026-11-21T23:59:60-06:00', null],
  ['2026-11-21T06:00:00-06:60', null],
  ['0000-01-01T00:00:00+00:00', null],
  ['2026-11-2aT06:00:00-06:00', null],
  ['2026-11-21T06:00:00−06:00', null],
  ['2026-11-21T06:00:00-06:00 ', null],
  [' 2026-11-21T06:00:00-06:00', null],
  ['2026-11-21X06:00:00-06:00', null],
  // The usual form's length and separators, each separator one place off: never read leniently.
  ['2025-01-02T10:30:15-0:559', null],
  ['2025-04-02T10:30:15-0:600', null],
  ['2025-04-02T10:30:1-506:00', null],
  ['2025-1-020T10:30:15-06:00', null],
  ['2025-04-02T1:030:15-06:00', null],
  ['2025-04-0T210:30:15-06:00', null],
  ['202-504-02T10:30:15-06:00', null],
  ['02/04/2025', null],
  ['today', null],
  ['epoch', null],
  ['', null],
];

/** [instant (ISO), its day in Mexico City (UTC−6)]. */
const DAYS: Array<[string, string]> = [
  ['2026-11-21T05:59:59.999Z', '2026-11-20'],
  ['2026-11-21T06:00:00.000Z', '2026-11-21'],
  ['2026-11-22T05:59:59.999Z', '2026-11-21'],
  ['2024-03-01T05:00:00.000Z', '2024-02-29'],
  ['2027-01-01T05:59:59.000Z', '2026-12-31'],
];

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`the time rules in SQL on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });

    it('ledger_time reads every documented form and gives NULL, not an error, for anything else', async () => {
      const { rows } = await suite.opened.db.query<{ value: string; at: Date | null }>(
        'SELECT t.value, ledger_time(t.value) AS at FROM unnest($1::text[]) AS t(value)',
        [TIMES.map(([value]) => value)],
      );
      expect(rows.map((row) => [row.value, row.at?.toISOString() ?? null])).toEqual(TIMES);
    });

    it('ledger_time gives the same instant as a plain cast for every well-formed offset time of a year', async () => {
      // One time a day through 2024 (a leap year) with every offset from −12:00 to +14:00 in turn.
      const { rows } = await suite.opened.db.query<{ differ: string; total: string }>(
        `SELECT count(*) FILTER (WHERE ledger_time(v) IS DISTINCT FROM v::timestamptz) AS differ, count(*) AS total
         FROM (SELECT to_char(d, 'YYYY-MM-DD"T"HH24:MI:SS') || CASE WHEN o < 0 THEN '-' ELSE '+' END
                      || lpad(abs(o)::text, 2, '0') || ':' || CASE WHEN o % 2 = 0 THEN '00' ELSE '30' END AS v
               FROM generate_series(timestamp '2024-01-01 00:00:00', timestamp '2024-12-31 23:59:59', interval '1 day 1 hour 1 minute 1 second') d,
                    generate_series(-12, 14) o) s`,
      );
      expect(Number(rows[0]!.total)).toBeGreaterThan(9_000);
      expect(rows[0]!.differ).toBe('0');
    });

    it('books a credit and a status update whose time is out of range at their arrival, in one batch with good events', async () => {
      const credit = randomUUID();
      const good = randomUUID();
      const seqs = await appendAll(suite.store, [
        moneyIn({ id: credit, transaction_date: '2026-11-21T10:00:00+16:00', amount: '970.00' }),
        coreEvent('STATUS_UPDATE', { id: randomUUID(), status: 'LIQUIDATED', update_at: '2026-11-21T10:00:00+20:00' }),
        moneyIn({ id: good, amount: '25.00' }),
      ]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 3, parked: 0 });
      expect((await listParked(suite.opened.db)).filter((p) => seqs.includes(p.seq))).toEqual([]);
      const items = await listItems(suite.opened.db, { limit: 10_000, now: new Date('2026-11-21T18:00:00Z') });
      expect(items.find((i) => i.id === credit)).toMatchObject({ amount: '970.00' });
      expect(items.find((i) => i.id === credit)!.at.toISOString()).toBe('2026-11-21T16:30:00.000Z');
      expect(items.find((i) => i.id === good)).toMatchObject({ amount: '25.00' });
    });

    it('ledger_day gives the day its first form gave, over 32 years in four session time zones', async () => {
      // Migration 0018 replaced ((at - interval '6 hours') AT TIME ZONE 'UTC')::date, which indexes were built on.
      for (const zone of ['UTC', 'America/Mexico_City', 'Pacific/Chatham', 'Asia/Kathmandu']) {
        const { rows } = await suite.opened.db.transaction(async (tx) => {
          await tx.query("SELECT set_config('TimeZone', $1, true)", [zone]);
          return tx.query<{ differ: string; total: string }>(
            `SELECT count(*) FILTER (WHERE ledger_day(t) IS DISTINCT FROM ((t - interval '6 hours') AT TIME ZONE 'UTC')::date) AS differ,
                    count(*) AS total
             FROM generate_series(timestamptz '1999-01-01 00:00:00Z', timestamptz '2031-01-01 00:00:00Z', interval '1 hour 7 minutes 13 seconds') t`,
          );
        });
        expect(Number(rows[0]!.total), zone).toBeGreaterThan(250_000);
        expect(rows[0]!.differ, zone).toBe('0');
      }
    });

    it('ledger_day is the day in Mexico City whatever the session time zone', async () => {
      for (const zone of ['UTC', 'America/Mexico_City', 'Pacific/Chatham', 'Asia/Kathmandu']) {
        const { rows } = await suite.opened.db.transaction((tx) =>
          tx
            .query("SELECT set_config('TimeZone', $1, true)", [zone])
            .then(() =>
              tx.query<{ day: string }>(
                'SELECT ledger_day(t.at)::text AS day FROM unnest($1::timestamptz[]) WITH ORDINALITY AS t(at, n) ORDER BY t.n',
                [DAYS.map(([at]) => at)],
              ),
            ),
        );
        expect(
          rows.map((row) => row.day),
          zone,
        ).toEqual(DAYS.map(([, day]) => day));
      }
    });
  });
}
