// The store under trouble: a deadline that passes before the commit, a database that is gone, and
// (on PostgreSQL) a network cut through a real TCP proxy, then restored, with the same store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, openDatabase, StoreUnavailableError } from '../src/index.ts';
import type { CommitInfo } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';
import { startTcpProxy } from '@paykit/testing/tcp-proxy';

/** A test that opens a second database of its kind: PGlite takes seconds to start on a busy machine. */
const OPENS_ANOTHER = 30_000;

for (const kind of testDatabases()) {
  describe(`event store outages on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open();
    });
    afterAll(() => opened.drop());

    it('rejects with StoreUnavailableError when the deadline passes first; the late commit makes the redelivery a duplicate', async () => {
      const store = createEventStore(opened.db);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holding = opened.db.transaction(async (tx) => {
        await tx.query('LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE');
        locked();
        await held;
      });
      await isLocked;
      const event = newEvent();
      const started = performance.now();
      try {
        const error = await store
          .append(event, { deadline: performance.now() + 150 })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(
          new RegExp(
            `^${escape(opened.db.description)} did not commit the event before its deadline \\(waited \\d+ ms\\): .*answer 503`,
          ),
        );
        const waited = performance.now() - started;
        expect(waited).toBeGreaterThanOrEqual(145);
        expect(waited).toBeLessThan(1000);
        await expect(store.append(newEvent(), { deadline: performance.now() - 1 })).rejects.toThrow(
          StoreUnavailableError,
        );
      } finally {
        release();
        await holding;
      }
      // The first append's commit was in flight all along and lands now; the redelivery then finds it.
      await until(async () => (await store.getByDedupeKey(event.dedupeKey)) !== undefined);
      const redelivery = await store.append(event, { deadline: performance.now() + 5000 });
      expect(redelivery).toMatchObject({ inserted: false, deliveries: 2 });
      await store.close();
    });

    it(
      'rejects with StoreUnavailableError once the database is closed, and after close() of the store',
      async () => {
        const spare = await kind.open();
        const store = createEventStore(spare.db);
        await store.append(newEvent());
        await spare.db.close();
        const error = await store.append(newEvent()).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toContain(spare.db.description);
        await store.close();
        await expect(store.append(newEvent())).rejects.toThrow(/is closed: it takes no more appends/);
        await spare.drop();
      },
      OPENS_ANOTHER,
    );

    it('close() waits for queued appends to commit', async () => {
      const store = createEventStore(opened.db, { maxBatch: 10 });
      const appends = Array.from({ length: 50 }, () => store.append(newEvent()));
      await store.close();
      const settled = await Promise.allSettled(appends);
      expect(settled.every((result) => result.status === 'fulfilled')).toBe(true);
    });
  });
}

const postgres = testDatabases().find((kind) => kind.name === 'postgres');
describe.runIf(postgres)('event store behind a TCP proxy that is cut and restored', () => {
  let opened: OpenedTestDatabase;
  beforeAll(async () => {
    opened = await postgres!.open();
  });
  afterAll(() => opened.drop());

  it('fails appends fast while the network is cut, and succeeds again after, with the same store', async () => {
    const target = new URL(opened.url!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(opened.url!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const db = await openDatabase({ databaseUrl: viaProxy.toString(), connectTimeoutMs: 500 });
    const commits: CommitInfo[] = [];
    const store = createEventStore(db, { onCommit: (info) => commits.push(info) });
    try {
      expect(await store.append(newEvent())).toMatchObject({ inserted: true });

      proxy.cut();
      const started = performance.now();
      const during = await Promise.allSettled(
        Array.from({ length: 5 }, () => store.append(newEvent(), { deadline: performance.now() + 3000 })),
      );
      expect(performance.now() - started).toBeLessThan(2500);
      for (const result of during) {
        expect(result.status).toBe('rejected');
        const reason = (result as PromiseRejectedResult).reason as Error;
        expect(reason).toBeInstanceOf(StoreUnavailableError);
        expect(reason.message).toContain(`PostgreSQL postgres@127.0.0.1:${proxy.port}/`);
      }
      expect(commits.some((info) => !info.ok)).toBe(true);
      await expect(db.ping(1000)).rejects.toThrow(StoreUnavailableError);

      proxy.restore();
      const after = await store.append(newEvent());
      expect(after).toMatchObject({ inserted: true, deliveries: 1 });
      await expect(db.ping(1000)).resolves.toBeUndefined();
    } finally {
      await store.close();
      await db.close();
      await proxy.close();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  const giveUp = performance.now() + 5000;
  while (!(await condition())) {
    if (performance.now() > giveUp) throw new Error('the condition did not come true within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
