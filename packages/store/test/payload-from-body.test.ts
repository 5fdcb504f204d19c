// A payload that is the body's own JSON is stored once, in raw_body (migration 0006): the payload
// column holds NULL and every read parses the body. What jsonb refuses must still fail the append,
// and rows written before 0006 must read as they did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, migrate, StoreInputError } from '../src/index.ts';
import type { Database } from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** What the payload column itself holds, by seq. */
async function storedColumn(db: Database, seqs: string[]): Promise<Map<string, unknown>> {
  const { rows } = await db.query<{ seq: string; payload: unknown }>(
    'SELECT seq::text AS seq, payload FROM webhook_events WHERE seq = ANY($1::bigint[])',
    [seqs],
  );
  return new Map(rows.map((row) => [row.seq, row.payload]));
}

for (const kind of testDatabases()) {
  describe(`payloads read from the body on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });

    it('keeps an omitted payload only in the body, a given one in its column, and reads both back', async () => {
      const rawText = '{"msg_name":"MONEY_IN","body":{"amount":"10.00","name":"Peña"}}';
      const [fromBody, withBom, given] = await Promise.all([
        suite.store.append(newEvent({ rawBody: encode(rawText), payload: undefined })),
        suite.store.append(newEvent({ rawBody: encode(`\uFEFF${rawText}`), payload: undefined })),
        suite.store.append(newEvent({ rawBody: encode(rawText), payload: { mended: true } })),
      ]);
      const column = await storedColumn(suite.opened.db, [fromBody.seq, withBom.seq, given.seq]);
      expect(column.get(fromBody.seq)).toBeNull();
      expect(column.get(withBom.seq)).toBeNull();
      expect(column.get(given.seq)).toEqual({ mended: true });

      expect((await suite.store.get(fromBody.seq))!.payload).toEqual(JSON.parse(rawText));
      expect((await suite.store.get(withBom.seq))!.payload).toEqual(JSON.parse(rawText));
      expect((await suite.store.get(given.seq))!.payload).toEqual({ mended: true });
      const listed = await suite.store.list({ limit: 10 });
      expect(listed.find((event) => event.seq === fromBody.seq)!.payload).toEqual(JSON.parse(rawText));
    });

    it('refuses at the append a body jsonb cannot hold, so no reader ever fails on it, and stores its batch neighbours', async () => {
      // JSON, and nothing the store's own check refuses, but past jsonb's numeric range.
      const [overflow, neighbour] = await Promise.allSettled([
        suite.store.append(newEvent({ rawBody: encode('{"n":1e1000000}'), payload: undefined })),
        suite.store.append(newEvent({ rawBody: encode('{"n":1}'), payload: undefined })),
      ]);
      expect(overflow.status).toBe('rejected');
      expect((overflow as PromiseRejectedResult).reason).toBeInstanceOf(StoreInputError);
      expect(neighbour.status).toBe('fulfilled');
      const stored = await suite.store.get((neighbour as PromiseFulfilledResult<{ seq: string }>).value.seq);
      expect(stored!.payload).toEqual({ n: 1 });
    });
  });

  describe(`rows written before migration 0006 on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open({ migrate: false });
    });
    afterAll(() => opened.drop());

    it('keep their stored payload, and read the same after it', async () => {
      // The store's migrations as released before 0006.
      await migrate(opened.db, [], { before: '0006' });
      const before = createEventStore(opened.db);
      const rawText = '{"msg_name":"CEP","body":{"status":"COMPLETED"}}';
      const old = await before.append(newEvent({ rawBody: encode(rawText), payload: undefined }));
      await before.close();
      expect((await storedColumn(opened.db, [old.seq])).get(old.seq)).toEqual(JSON.parse(rawText));

      expect((await migrate(opened.db)).applied).toContain('0006_payload_from_body');
      const after = createEventStore(opened.db);
      try {
        expect((await after.get(old.seq))!.payload).toEqual(JSON.parse(rawText));
        const added = await after.append(newEvent({ rawBody: encode(rawText), payload: undefined }));
        expect((await storedColumn(opened.db, [old.seq, added.seq])).get(added.seq)).toBeNull();
        expect((await after.get(added.seq))!.payload).toEqual(JSON.parse(rawText));
      } finally {
        await after.close();
      }
    });
  });
}
