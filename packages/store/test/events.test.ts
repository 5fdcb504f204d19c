import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventStore, StoreInputError, StoreUnavailableError } from '../src/index.ts';
import type { CommitInfo, EventStore, NewEvent } from '../src/index.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

for (const kind of testDatabases()) {
  describe(`event store on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    let store: EventStore;
    const commits: CommitInfo[] = [];
    beforeAll(async () => {
      opened = await kind.open();
      store = createEventStore(opened.db, { onCommit: (info) => commits.push(info) });
    });
    afterAll(async () => {
      await store.close();
      await opened.drop();
    });

    it('stores an event once and reads it back exactly', async () => {
      const rawText = '{"msg_name":"MONEY_IN","body":{"beneficiary":"José Peña Ñúñez ✓ 💸","amount":"1500.00"}}\n';
      const rawBody = new TextEncoder().encode(rawText);
      const payload = JSON.parse(rawText) as unknown;
      const receivedAt = new Date('2026-11-21T10:11:12.345Z');
      const drift = [{ path: 'body.extra_field', kind: 'extra-field', expected: 'absent', seen: 'string' }];
      const event = newEvent({
        rawBody,
        payload,
        receivedAt,
        drift,
        headers: { 'content-type': 'application/json', 'user-agent': 'platform/1' },
      });

      const result = await store.append(event);
      expect(result).toEqual({
        seq: expect.stringMatching(/^\d+$/),
        inserted: true,
        deliveries: 1,
        outcome: 'accepted',
        reason: null,
        answerStatus: 201,
        refundReason: null,
      });

      const stored = await store.get(result.seq);
      expect(stored).toEqual({ ...event, seq: result.seq, deliveries: 1 });
      expect(stored!.rawBody).toBeInstanceOf(Uint8Array);
      expect(new TextDecoder().decode(stored!.rawBody)).toBe(rawText);
      expect(await store.getByDedupeKey(event.dedupeKey)).toEqual(stored);
    });

    it('reads an omitted payload from the body itself, the body sent once', async () => {
      const rawText = '{"msg_name":"CEP","body":{"beneficiary_name":"Peña \\u00d1", "n": 1.50, "list":[1,{"a":null}]}}';
      const { seq } = await store.append(newEvent({ rawBody: new TextEncoder().encode(rawText), payload: undefined }));
      const stored = (await store.get(seq))!;
      expect(stored.payload).toEqual(JSON.parse(rawText));
      expect(new TextDecoder().decode(stored.rawBody)).toBe(rawText);
      // What jsonb refuses is mended in the payload, never in the bytes.
      const nul = '{"note":"a\\u0000b"}';
      const mended = (await store.get(
        (
          await store.append(newEvent({ rawBody: new TextEncoder().encode(nul), payload: undefined }))
        ).seq,
      ))!;
      expect(mended.payload).toEqual({ note: 'a\ufffdb' });
      expect(new TextDecoder().decode(mended.rawBody)).toBe(nul);
      await expect(
        store.append(newEvent({ rawBody: Uint8Array.from([0x7b, 0xff, 0x7d]), payload: undefined })),
      ).rejects.toThrow(/payload is omitted but rawBody is not UTF-8/);
      await expect(
        store.append(newEvent({ rawBody: new TextEncoder().encode('{"a":'), payload: undefined })),
      ).rejects.toThrow(StoreInputError);
    });

    it('keeps a byte order mark in the raw body, and reads the payload after it', async () => {
      const rawBody = new TextEncoder().encode('\uFEFF{"msg_name":"CEP","n":1}');
      expect([...rawBody.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const { seq } = await store.append(newEvent({ rawBody, payload: undefined }));
      const stored = (await store.get(seq))!;
      expect([...stored.rawBody]).toEqual([...rawBody]);
      expect(stored.payload).toEqual({ msg_name: 'CEP', n: 1 });
    });

    it('stores ids that carry a lone surrogate (from a body) with U+FFFD, as text parameters would', async () => {
      const idMsg = 'id-\ud800-x';
      const { seq } = await store.append(newEvent({ idMsg, dedupeKey: `core:${idMsg}`, reason: `looked at ${idMsg}` }));
      const stored = (await store.get(seq))!;
      expect(stored).toMatchObject({
        idMsg: 'id-\ufffd-x',
        dedupeKey: 'core:id-\ufffd-x',
        reason: 'looked at id-\ufffd-x',
      });
    });

    it('stores a body of long backslash runs in linear time, with or without an escape jsonb refuses', async () => {
      // 800,000 backslashes in the text (escaped pairs in the JSON), ending in \u0000 or not.
      for (const tail of ['', '\\u0000']) {
        const rawText = `{"note":"${'\\\\'.repeat(400_000)}x${tail}","also":"${'\\\\'.repeat(1_000)}u0000"}`;
        const { seq } = await store.append(
          newEvent({ rawBody: new TextEncoder().encode(rawText), payload: undefined }),
        );
        const stored = (await store.get(seq))!;
        expect(stored.rawBody.byteLength).toBe(rawText.length);
        expect((stored.payload as { note: string }).note).toBe(
          `${'\\'.repeat(400_000)}x${tail === '' ? '' : '\ufffd'}`,
        );
      }
    });

    it('says to run the migrations when the database has not been migrated', async () => {
      const bare = await kind.open({ migrate: false });
      const unmigrated = createEventStore(bare.db);
      try {
        const error = await unmigrated.append(newEvent()).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(/not migrated to this version, run the migrations first/);
      } finally {
        await unmigrated.close();
        await bare.drop();
      }
    });

    it('keeps bytes that are not UTF-8 at all', async () => {
      const rawBody = Uint8Array.from([0, 1, 0xff, 0xfe, 0x80, 0x7f, 0xc3]);
      const { seq } = await store.append(newEvent({ rawBody, payload: null }));
      expect([...(await store.get(seq))!.rawBody]).toEqual([...rawBody]);
    });

    it('answers a sequential duplicate with the original decision, counting deliveries', async () => {
      const original = newEvent({
        outcome: 'rejected',
        reason: 'beneficiary account is BLOCKED',
        answerStatus: 422,
        refundReason: 'CUENTA_BLOQUEADA',
      });
      const first = await store.append(original);
      const again = await store.append({
        ...original,
        outcome: 'accepted',
        reason: null,
        answerStatus: 201,
        refundReason: null,
        receivedAt: new Date(),
      });
      const third = await store.append(original);
      expect(first).toMatchObject({ inserted: true, deliveries: 1 });
      const decision = {
        seq: first.seq,
        outcome: 'rejected',
        reason: 'beneficiary account is BLOCKED',
        answerStatus: 422,
        refundReason: 'CUENTA_BLOQUEADA',
      };
      expect(again).toEqual({ ...decision, inserted: false, deliveries: 2 });
      expect(third).toEqual({ ...decision, inserted: false, deliveries: 3 });
      expect((await store.get(first.seq))!.deliveries).toBe(3);
      expect(
        await store
          .list({ eventType: 'MONEY_IN', limit: 1000 })
          .then((events) => events.filter((event) => event.dedupeKey === original.dedupeKey)),
      ).toHaveLength(1);
    });

    it('stores 20 concurrent copies of one key once: one inserted, deliveries 1…20, all with the first decision', async () => {
      const key = `core:${randomUUID()}`;
      const copies = Array.from({ length: 20 }, (_, index) =>
        newEvent({
          dedupeKey: key,
          idMsg: key.slice(5),
          outcome: index === 0 ? 'accepted' : 'flagged',
          answerStatus: index === 0 ? 201 : 202,
        }),
      );
      const results = await Promise.all(copies.map((copy) => store.append(copy)));
      expect(results.filter((result) => result.inserted)).toHaveLength(1);
      expect(results[0]!.inserted).toBe(true);
      expect(results.map((result) => result.deliveries).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      expect(new Set(results.map((result) => result.seq)).size).toBe(1);
      expect(results.every((result) => result.outcome === 'accepted' && result.answerStatus === 201)).toBe(true);
      const stored = await store.getByDedupeKey(key);
      expect(stored).toMatchObject({ deliveries: 20, outcome: 'accepted' });
    });

    it('answers a mixed batch of new keys, in-batch duplicates and keys already stored', async () => {
      const old = newEvent();
      const oldResult = await store.append(old);
      const fresh = Array.from({ length: 5 }, () => newEvent());
      const batch: NewEvent[] = [fresh[0]!, old, fresh[1]!, fresh[0]!, fresh[2]!, old, fresh[3]!, fresh[4]!, fresh[4]!];
      const before = commits.length;
      const results = await Promise.all(batch.map((event) => store.append(event)));
      expect(commits.length - before).toBe(1);
      expect(results.map((result) => [result.inserted, result.deliveries])).toEqual([
        [true, 1],
        [false, 2],
        [true, 1],
        [false, 2],
        [true, 1],
        [false, 3],
        [true, 1],
        [true, 1],
        [false, 2],
      ]);
      expect(results[1]!.seq).toBe(oldResult.seq);
      // seq follows arrival order within the batch, whatever order the rows were written in.
      const newSeqs = [results[0]!, results[2]!, results[4]!, results[6]!, results[7]!].map((result) =>
        BigInt(result.seq),
      );
      expect([...newSeqs].sort((a, b) => (a < b ? -1 : 1))).toEqual(newSeqs);
    });

    it('groups concurrent appends into batches (200 at once)', async () => {
      const before = commits.length;
      const results = await Promise.all(Array.from({ length: 200 }, () => store.append(newEvent())));
      expect(results.every((result) => result.inserted)).toBe(true);
      const batches = commits.slice(before);
      expect(batches.reduce((sum, info) => sum + info.events, 0)).toBe(200);
      expect(Math.max(...batches.map((info) => info.events))).toBeGreaterThan(1);
      expect(batches.every((info) => info.ok && info.ms >= 0)).toBe(true);
    });

    it('keeps concurrent batches that share keys in any order from deadlocking', async () => {
      const overlapping = createEventStore(opened.db, { maxBatch: 8, maxInFlight: 4 });
      const keys = Array.from({ length: 40 }, () => `cash:${randomUUID()}:paid`);
      const events = [...keys, ...[...keys].reverse(), ...keys].map((dedupeKey) =>
        newEvent({
          source: 'cash',
          eventType: 'paid',
          dedupeKey,
          idMsg: null,
          transactionId: null,
          operationId: '123',
        }),
      );
      const results = [];
      // Appended across turns so that several batches are in flight at once.
      for (const event of events) {
        results.push(overlapping.append(event));
        if (results.length % 8 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      const settled = await Promise.all(results);
      await overlapping.close();
      expect(settled.filter((result) => result.inserted)).toHaveLength(40);
      for (const key of keys) expect((await store.getByDedupeKey(key))!.deliveries).toBe(3);
    });

    it('round-trips the payload as jsonb, and stores what jsonb cannot hold as U+FFFD (rawBody keeps the original)', async () => {
      const payload = {
        nested: { list: [1, 2.5, 'três', null, true, { deep: ['x'] }] },
        big: '12345678901234567890',
        empty: {},
      };
      const plain = await store.append(newEvent({ payload }));
      expect((await store.get(plain.seq))!.payload).toEqual(payload);

      const rawText = '{"name":"a\\u0000b","lone":"\\ud800","escaped":"\\\\u0000"}';
      const awkward = JSON.parse(rawText) as unknown;
      const result = await store.append(newEvent({ payload: awkward, rawBody: new TextEncoder().encode(rawText) }));
      const stored = (await store.get(result.seq))!;
      expect(stored.payload).toEqual({ name: 'a\ufffdb', lone: '\ufffd', escaped: '\\u0000' });
      expect(new TextDecoder().decode(stored.rawBody)).toBe(rawText);

      const deepest = JSON.parse('['.repeat(1000) + ']'.repeat(1000)) as unknown;
      const deep = await store.append(newEvent({ payload: deepest }));
      expect((await store.get(deep.seq))!.payload).toEqual(deepest);
    });

    it('refuses a malformed event with StoreInputError naming the field, without failing its batch', async () => {
      const good = newEvent();
      const attempts = await Promise.allSettled([
        store.append(good),
        store.append(newEvent({ answerStatus: 2010 })),
        store.append(newEvent({ outcome: 'maybe' as never })),
        store.append(newEvent({ dedupeKey: '' })),
        store.append(newEvent({ reason: 'nul\0inside' })),
        store.append(newEvent({ receivedAt: new Date('not a date') })),
        store.append(newEvent({ rawBody: 'text' as never })),
        store.append(newEvent({ payload: { amount: 10n }, rawBody: new Uint8Array([123, 125]) })),
        store.append(newEvent({ payload: undefined, rawBody: new Uint8Array() })),
        store.append(newEvent({ drift: [{ path: 'x' }] as never })),
        store.append(newEvent({ headers: { 'x-count': 3 } as never })),
      ]);
      expect(attempts[0]).toMatchObject({ status: 'fulfilled', value: { inserted: true } });
      const messages = attempts.slice(1).map((attempt) => {
        expect(attempt.status).toBe('rejected');
        const reason = (attempt as PromiseRejectedResult).reason as Error;
        expect(reason).toBeInstanceOf(StoreInputError);
        return reason.message;
      });
      expect(messages).toEqual([
        expect.stringMatching(/^answerStatus must be an HTTP status/),
        expect.stringMatching(/^outcome must be one of 'accepted', 'rejected', 'flagged', 'stored', got "maybe"/),
        'dedupeKey must not be empty',
        expect.stringMatching(/^reason contains a NUL character/),
        'receivedAt must be a valid Date, got an Invalid Date',
        expect.stringMatching(/^rawBody must be the exact bytes received/),
        expect.stringMatching(/^payload cannot be written as JSON/),
        expect.stringMatching(/^payload is omitted but rawBody is empty/),
        expect.stringMatching(/^drift\[0\]\.kind must be a string/),
        expect.stringMatching(/^headers\["x-count"\] must be a string/),
      ]);
    });

    it('lists newest first, filtered, and pages with before', async () => {
      const marker = `PAGING_${randomUUID().slice(0, 8)}`;
      // Numbers that cross a digit boundary: newest first is numeric order, not text order (998 after 1001).
      await opened.db.query(
        `SELECT setval('webhook_events_seq', (SELECT greatest(coalesce(max(seq), 0), 997) FROM webhook_events))`,
      );
      const appended = [];
      for (let index = 0; index < 5; index++) {
        appended.push(
          await store.append(
            newEvent({
              eventType: marker,
              outcome: index % 2 === 0 ? 'stored' : 'flagged',
              source: index === 4 ? 'cash' : 'core',
            }),
          ),
        );
      }
      const seqs = appended.map((result) => result.seq).reverse();
      expect((await store.list({ eventType: marker })).map((event) => event.seq)).toEqual(seqs);
      const firstPage = await store.list({ eventType: marker, limit: 2 });
      const secondPage = await store.list({ eventType: marker, limit: 2, before: firstPage.at(-1)!.seq });
      expect([...firstPage, ...secondPage].map((event) => event.seq)).toEqual(seqs.slice(0, 4));
      expect(
        (await store.list({ eventType: marker, outcome: 'stored', source: 'core' })).map((event) => event.seq),
      ).toEqual([seqs[2], seqs[4]]);
      expect(await store.list({ eventType: marker, source: 'cash' })).toHaveLength(1);
      expect((await store.list()).length).toBeLessThanOrEqual(50);
      await expect(store.list({ limit: 0 })).rejects.toThrow(/limit must be a whole number from 1 to 1000/);
      await expect(store.list({ before: 'abc' })).rejects.toThrow(StoreInputError);
    });

    it('answers undefined for an unknown seq or key, and refuses a seq that is not a number', async () => {
      expect(await store.get('999999999')).toBeUndefined();
      expect(await store.getByDedupeKey('core:never-seen')).toBeUndefined();
      await expect(store.get('12; DROP TABLE webhook_events')).rejects.toThrow(/seq must be an event seq/);
    });

    it('keeps the history of replays without changing the event', async () => {
      const { seq } = await store.append(newEvent({ outcome: 'accepted', answerStatus: 201 }));
      const first = await store.recordReplay({
        seq,
        drift: [],
        outcome: 'rejected',
        reason: 'account now BLOCKED',
        answerStatus: 422,
        refundReason: 'CUENTA_BLOQUEADA',
      });
      const at = new Date('2026-12-01T00:00:00Z');
      const second = await store.recordReplay({
        seq,
        replayedAt: at,
        drift: [{ path: 'body.x', kind: 'format', expected: 'date', seen: 'text' }],
        outcome: 'accepted',
        reason: null,
        answerStatus: 201,
        refundReason: null,
      });
      expect(first.replayedAt).toBeInstanceOf(Date);
      expect(second.replayedAt).toEqual(at);
      expect(await store.replays(seq)).toEqual(
        [first, second].sort((a, b) => a.replayedAt.getTime() - b.replayedAt.getTime()),
      );
      expect((await store.get(seq))!.outcome).toBe('accepted');
      expect(await store.replays('999999999')).toEqual([]);
      await expect(
        store.recordReplay({
          seq: '999999999',
          drift: [],
          outcome: 'stored',
          reason: null,
          answerStatus: 200,
          refundReason: null,
        }),
      ).rejects.toThrow(/no stored event has seq 999999999/);
    });
  });
}
