// How workers find the events to apply (migration 0004): the applied marker beside webhook_events,
// the claim floor that follows the oldest waiting event, and the cases the floor must never skip —
// a seq whose insert commits late, a parked event retried after the floor passed it, a worker
// killed mid-batch, and writers and workers all at once. Late commits and kills need a second
// connection, so those run on PostgreSQL only.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, migrate, openDatabase, type Database, type NewEvent, type Queryable } from '@paykit/store';
import { auditFloor, listParked, reconcileOnce, recordOutbound, retryParked } from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import type { OpenedTestDatabase } from '@paykit/store/testing';
import { appendAll, moneyIn, outbound, statusUpdate } from './support/ledger.ts';

/** Inserts one event the way the gateway does (its seq drawn by the INSERT), inside the caller's transaction. */
async function insertEvent(tx: Queryable, event: NewEvent): Promise<string> {
  const text = new TextDecoder().decode(event.rawBody);
  const { rows } = await tx.query<{ seq: string }>(
    `INSERT INTO webhook_events (source, event_type, dedupe_key, id_msg, transaction_id, raw_body, payload, received_at, outcome, answer_status)
     VALUES ($1, $2, $3, $4, $5, convert_to($6, 'UTF8'), $6::jsonb, $7::timestamptz, $8, $9) RETURNING seq::text AS seq`,
    [
      event.source,
      event.eventType,
      event.dedupeKey,
      event.idMsg,
      event.transactionId,
      text,
      event.receivedAt.toISOString(),
      event.outcome,
      event.answerStatus,
    ],
  );
  return rows[0]!.seq;
}

const floorOf = async (db: Queryable): Promise<bigint> =>
  BigInt(
    (await db.query<{ floor: string }>('SELECT floor_seq::text AS floor FROM webhook_events_progress')).rows[0]!.floor,
  );
const countOf = async (db: Queryable, sql: string, params: unknown[] = []): Promise<number> =>
  Number((await db.query<{ n: string }>(sql, params)).rows[0]!.n);
const UNAPPLIED =
  'SELECT count(*) AS n FROM webhook_events e WHERE NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq)';
const HISTORY = 'SELECT count(*) AS n FROM ledger_status_history';
const PARKED = 'SELECT count(*) AS n FROM ledger_parked_events';
const orphanUpdate = () => statusUpdate(randomUUID(), 'LIQUIDATED');

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`claims on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });

    it('moves the floor over applied events and over the seq of an insert that rolled back', async () => {
      let gap = '';
      const rolledBack = await suite.opened.db
        .transaction(async (tx) => {
          gap = await insertEvent(tx, orphanUpdate());
          throw new Error('rolled back on purpose');
        })
        .catch((error: unknown) => error);
      expect(rolledBack).toBeInstanceOf(Error);
      const seqs = await appendAll(suite.store, [orphanUpdate(), orphanUpdate(), orphanUpdate()]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 3, parked: 0 });
      const last = seqs.map(BigInt).reduce((a, b) => (a > b ? a : b));
      expect(BigInt(gap)).toBeLessThan(last);
      expect(await floorOf(suite.opened.db)).toBe(last);
      expect(await countOf(suite.opened.db, UNAPPLIED)).toBe(0);
    });

    it('claims a parked event below the floor again once it is retried', async () => {
      const [badSeq] = await appendAll(suite.store, [moneyIn({ amount: undefined })]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 0, parked: 1 });
      await appendAll(suite.store, [orphanUpdate(), orphanUpdate()]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 2, parked: 0 });
      expect(await floorOf(suite.opened.db)).toBeGreaterThan(BigInt(badSeq!));
      expect(await retryParked(suite.opened.db, [badSeq!])).toBe(1);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 0, parked: 1 });
      expect((await listParked(suite.opened.db)).find((p) => p.seq === badSeq)).toMatchObject({
        attempts: 2,
        retry: false,
      });
    });

    it('audits the floor in steps of its span, and lowers it below an event neither applied nor parked', async () => {
      const seqs = await appendAll(suite.store, [orphanUpdate(), orphanUpdate(), orphanUpdate(), orphanUpdate()]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 4 });
      const floor = await floorOf(suite.opened.db);
      // A sweep from 0 in steps of 2 seqs reaches the floor and says so; nothing is lost.
      let after = '0';
      let steps = 0;
      for (;;) {
        const step = await auditFloor(suite.opened.db, after, 2);
        steps += 1;
        expect(step.found).toEqual([]);
        expect(BigInt(step.through)).toBeLessThanOrEqual(floor);
        if (step.sweepDone) {
          expect(step).toMatchObject({ through: String(floor), next: '0', floor: String(floor) });
          break;
        }
        expect(BigInt(step.through)).toBe(BigInt(after) + 2n);
        after = step.next;
      }
      expect(steps).toBe(Math.ceil(Number(floor) / 2));

      // The floor's promise broken behind the worker's back: an applied marker removed by hand.
      const lost = seqs[1]!;
      await suite.opened.db.query('DELETE FROM webhook_events_applied WHERE seq = $1::bigint', [lost]);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 0 });
      const found = await auditFloor(suite.opened.db, '0', 1_000_000);
      expect(found).toMatchObject({ found: [lost], sweepDone: true, next: '0', floor: String(BigInt(lost) - 1n) });
      expect(await floorOf(suite.opened.db)).toBe(BigInt(lost) - 1n);
      // Claimed again like any waiting event; applying it twice changes nothing it applied before.
      const history = await countOf(suite.opened.db, HISTORY);
      expect(await reconcileOnce(suite.opened.db)).toMatchObject({ applied: 1 });
      expect(await countOf(suite.opened.db, HISTORY)).toBe(history);
      expect(
        await countOf(
          suite.opened.db,
          `${UNAPPLIED} AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq)`,
        ),
      ).toBe(0);
      expect(await floorOf(suite.opened.db)).toBeGreaterThanOrEqual(floor);
    });

    it('keeps what 0003 marked applied when 0004 moves the marker out of webhook_events', async () => {
      const fresh = await kind.open({ migrate: false });
      try {
        await migrate(fresh.db, [ledgerMigrations], { before: '0004' });
        const [done, waiting] = [
          await insertEvent(fresh.db, orphanUpdate()),
          await insertEvent(fresh.db, orphanUpdate()),
        ];
        await fresh.db.query('UPDATE webhook_events SET applied_at = now() WHERE seq = $1::bigint', [done]);
        expect((await migrate(fresh.db, [ledgerMigrations])).applied).toContain('0004_applied_marker');
        expect(
          (await fresh.db.query<{ seq: string }>('SELECT seq::text AS seq FROM webhook_events_applied')).rows,
        ).toEqual([{ seq: done }]);
        expect(await reconcileOnce(fresh.db)).toMatchObject({ applied: 1 });
        expect(
          await countOf(fresh.db, 'SELECT count(*) AS n FROM ledger_status_history WHERE event_seq = $1::bigint', [
            waiting,
          ]),
        ).toBe(1);
        expect(
          await countOf(
            fresh.db,
            "SELECT count(*) AS n FROM information_schema.columns WHERE table_name = 'webhook_events' AND column_name = 'applied_at'",
          ),
        ).toBe(0);
      } finally {
        await fresh.drop();
      }
    });
  });
}

const postgres = testDatabases([ledgerMigrations]).find((kind) => kind.name === 'postgres');

describe.skipIf(postgres === undefined)('claims with other connections on PostgreSQL', () => {
  let opened: OpenedTestDatabase;
  let other: Database;
  beforeAll(async () => {
    opened = await postgres!.open();
    other = await openDatabase({ databaseUrl: opened.url! });
  });
  afterAll(async () => {
    await other.close();
    await opened.drop();
  });

  it('does not move the floor past a lower seq whose insert commits after higher ones were applied', async () => {
    const store = createEventStore(opened.db);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let lowSeq!: (seq: string) => void;
    const drawn = new Promise<string>((resolve) => (lowSeq = resolve));
    const held = other.transaction(async (tx) => {
      lowSeq(await insertEvent(tx, orphanUpdate()));
      await gate;
    });
    try {
      const low = await drawn;
      const higher = await appendAll(store, [orphanUpdate(), orphanUpdate(), orphanUpdate()]);
      expect(higher.every((seq) => BigInt(seq) > BigInt(low))).toBe(true);
      expect(await reconcileOnce(opened.db)).toMatchObject({ applied: 3 });
      expect(await reconcileOnce(opened.db)).toMatchObject({ applied: 0 });
      expect(await floorOf(opened.db)).toBeLessThan(BigInt(low));
      release();
      await held;
      expect(await reconcileOnce(opened.db)).toMatchObject({ applied: 1 });
      expect(
        await countOf(opened.db, 'SELECT count(*) AS n FROM webhook_events_applied WHERE seq = $1::bigint', [low]),
      ).toBe(1);
      await reconcileOnce(opened.db);
      expect(await floorOf(opened.db)).toBeGreaterThanOrEqual(BigInt(higher.at(-1)!));
    } finally {
      release();
      await held.catch(() => undefined);
      await store.close();
    }
  });

  it('a worker killed mid-batch applies nothing, and the next applies every event once', async () => {
    const store = createEventStore(opened.db);
    const worker = await openDatabase({ databaseUrl: opened.url! });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let blocker: Promise<void> | undefined;
    try {
      const sent = outbound();
      await recordOutbound(opened.db, sent);
      const events = [statusUpdate(sent.transactionId, 'LIQUIDATED'), ...Array.from({ length: 40 }, orphanUpdate)];
      await appendAll(store, events);
      const [appliedBefore, historyBefore] = [
        await countOf(opened.db, 'SELECT count(*) AS n FROM webhook_events_applied'),
        await countOf(opened.db, HISTORY),
      ];
      // Another session holds the transfer's row: the worker's batch stops at it, mid-statement.
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      blocker = other.transaction(async (tx) => {
        await tx.query('SELECT 1 FROM ledger_outbound WHERE transaction_id = $1 FOR UPDATE', [sent.transactionId]);
        locked();
        await gate;
      });
      await holding;
      const killed = reconcileOnce(worker).catch((error: unknown) => error);
      const pid = await waitForBlockedBatch(opened.db);
      await opened.db.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(await killed).toBeInstanceOf(Error);
      expect(await countOf(opened.db, 'SELECT count(*) AS n FROM webhook_events_applied')).toBe(appliedBefore);
      expect(await countOf(opened.db, HISTORY)).toBe(historyBefore);
      release();
      await blocker;

      expect(await reconcileOnce(opened.db)).toMatchObject({ applied: events.length, parked: 0 });
      expect(await countOf(opened.db, HISTORY)).toBe(historyBefore + events.length);
      expect(await countOf(opened.db, UNAPPLIED)).toBe(0);
    } finally {
      release();
      await blocker?.catch(() => undefined);
      await worker.close();
      await store.close();
    }
  });

  it('four workers and four writers, with rollbacks and late commits: every committed event applied exactly once', {
    timeout: 90_000,
  }, async () => {
    const [before, historyBefore, parkedBefore] = [
      await countOf(opened.db, 'SELECT count(*) AS n FROM webhook_events'),
      await countOf(opened.db, HISTORY),
      await countOf(opened.db, PARKED),
    ];
    const workers = await Promise.all([1, 2, 3, 4].map(() => openDatabase({ databaseUrl: opened.url! })));
    let writing = true;
    let applied = 0;
    try {
      const write = async (writer: number): Promise<number> => {
        let committed = 0;
        for (let i = 0; i < 150; i++) {
          const rollback = (i + writer) % 7 === 0;
          await other
            .transaction(async (tx) => {
              await insertEvent(tx, orphanUpdate());
              await insertEvent(tx, orphanUpdate());
              // Hold some inserts open while later ones commit and get applied.
              if (i % 5 === writer) await new Promise((resolve) => setTimeout(resolve, 20));
              if (rollback) throw new Error('rolled back on purpose');
            })
            .then(
              () => (committed += 2),
              () => undefined,
            );
        }
        return committed;
      };
      const work = async (db: Database): Promise<void> => {
        while (writing) {
          // Read the total after the await: `applied += await …` would add to a stale total.
          const round = await reconcileOnce(db, { batchSize: 37 });
          applied += round.applied;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      const running = workers.map(work);
      const committed = (await Promise.all([0, 1, 2, 3].map(write))).reduce((a, b) => a + b, 0);
      writing = false;
      await Promise.all(running);
      for (const db of workers) {
        const round = await reconcileOnce(db);
        applied += round.applied;
      }

      expect(committed).toBeGreaterThan(1000);
      expect(await countOf(opened.db, 'SELECT count(*) AS n FROM webhook_events')).toBe(before + committed);
      expect(applied).toBe(committed);
      expect(await countOf(opened.db, UNAPPLIED)).toBe(0);
      expect(await countOf(opened.db, HISTORY)).toBe(historyBefore + committed);
      expect(await countOf(opened.db, PARKED)).toBe(parkedBefore);
    } finally {
      writing = false;
      for (const db of workers) await db.close();
    }
  });
});

/** The pid of the batch stopped on the held row (the only session of the database waiting on a lock), within 10 s. */
async function waitForBlockedBatch(db: Queryable): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND backend_type = 'client backend'`,
    );
    if (rows[0]) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no reconcile batch waited on the locked transfer within 10 s: the test cannot kill it mid-batch');
}
