// The batch statement below the group commit, on a real database: a row the database refuses
// (after passing prepareEvent) fails alone, never its neighbours.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreInputError, StoreUnavailableError } from '../src/index.ts';
import { commitEvents } from '../src/event-batch.ts';
import { prepareEvent } from '../src/event-input.ts';
import type { PreparedEvent } from '../src/event-input.ts';
import { testDatabases } from '../src/testing.ts';
import type { OpenedTestDatabase } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

const unavailable = (error: unknown): Error => new StoreUnavailableError('test database unavailable', { cause: error });

for (const kind of testDatabases()) {
  describe(`commitEvents on ${kind.name}`, () => {
    let opened: OpenedTestDatabase;
    beforeAll(async () => {
      opened = await kind.open();
    });
    afterAll(() => opened.drop());

    it('isolates a row the database refuses and stores the others', async () => {
      const good = [prepareEvent(newEvent()), prepareEvent(newEvent())];
      // Shapes prepareEvent never lets through, standing in for whatever the database might refuse.
      const badTime: PreparedEvent = { ...prepareEvent(newEvent()), receivedAtIso: 'yesterday-ish' };
      const badJson: PreparedEvent = { ...prepareEvent(newEvent()), payloadJson: '{"open":', payloadAt: null };
      const results = await commitEvents(opened.db, [good[0]!, badTime, good[1]!, badJson, good[0]!], unavailable);

      expect(results[0]).toMatchObject({ inserted: true, deliveries: 1 });
      expect(results[2]).toMatchObject({ inserted: true, deliveries: 1 });
      expect(results[4]).toMatchObject({ inserted: false, deliveries: 2 });
      for (const bad of [results[1], results[3]]) {
        expect(bad).toBeInstanceOf(StoreInputError);
        expect((bad as Error).message).toMatch(/^the event could not be stored as given: /);
      }
      const keys = await opened.db.query<{ dedupe_key: string }>(
        'SELECT dedupe_key FROM webhook_events WHERE dedupe_key = ANY($1::text[])',
        [[good[0]!.dedupeKey, good[1]!.dedupeKey, badTime.dedupeKey, badJson.dedupeKey]],
      );
      expect(keys.rows.map((row) => row.dedupe_key).sort()).toEqual([good[0]!.dedupeKey, good[1]!.dedupeKey].sort());
    });

    it('fails a batch of one bad row with StoreInputError', async () => {
      const bad: PreparedEvent = { ...prepareEvent(newEvent()), payloadJson: '[', payloadAt: null };
      const [result] = await commitEvents(opened.db, [bad, bad], unavailable);
      expect(result).toBeInstanceOf(StoreInputError);
    });

    it('refuses payloads nested deeper than jsonb takes, and keys longer than the unique index takes, before the database sees them', () => {
      const deep = JSON.parse('['.repeat(1001) + ']'.repeat(1001)) as unknown;
      expect(() => prepareEvent(newEvent({ payload: deep, rawBody: new Uint8Array() }))).toThrow(
        /payload nests arrays and objects more than 1000 levels deep/,
      );
      const fine = JSON.parse('['.repeat(1000) + ']'.repeat(1000)) as unknown;
      expect(() => prepareEvent(newEvent({ payload: { text: '[[[[[[' }, rawBody: new Uint8Array() }))).not.toThrow();
      expect(() => prepareEvent(newEvent({ payload: fine, rawBody: new Uint8Array() }))).not.toThrow();
      expect(() => prepareEvent(newEvent({ dedupeKey: `core:report:${'ñ'.repeat(600)}` }))).toThrow(
        /dedupeKey is 1212 bytes long/,
      );
      expect(() => prepareEvent(newEvent({ receivedAt: new Date(8.64e15) }))).toThrow(
        /years 1 to 9999, got the year 275760/,
      );
    });
  });
}
