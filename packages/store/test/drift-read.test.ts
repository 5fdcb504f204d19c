// Drift read aggregated: the gateway's per-field notes of many events become one record per
// (source, event type, field, kind), counted once per event, with first and last seen and the
// latest note as the example (descriptions only: no value is stored or shown).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDrift, pathToPointer } from '../src/index.ts';
import type { DriftNote } from '../src/index.ts';
import { eventStoreSuite, testDatabases } from '../src/testing.ts';
import { newEvent } from './support/events.ts';

const extra = (path: string, seen = 'string (1 char)'): DriftNote => ({
  path,
  kind: 'extra-field',
  expected: 'absent: not in the schema',
  seen,
});
const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 18, minute));

for (const kind of testDatabases()) {
  describe(`drift records on ${kind.name}`, () => {
    const suite = eventStoreSuite(kind, { beforeAll, afterAll });

    it('makes one record of one unexpected field seen in many events, counted once per event', async () => {
      await suite.store.append(newEvent({ receivedAt: at(1), drift: [extra('body.new_field', 'string (3 chars)')] }));
      await suite.store.append(
        newEvent({
          receivedAt: at(5),
          drift: [
            extra('body.new_field', 'string (4 chars)'),
            {
              path: 'body.amount',
              kind: 'mismatch',
              expected: 'string matching ^\\d+\\.\\d{2}$',
              seen: 'string "d.d"',
            },
          ],
        }),
      );
      await suite.store.append(newEvent({ receivedAt: at(3), drift: [extra('body.new_field', 'string (5 chars)')] }));
      await suite.store.append(newEvent({ receivedAt: at(4), drift: [] }));
      const records = await listDrift(suite.opened.db, { eventType: 'MONEY_IN' });
      expect(records).toHaveLength(2);
      expect(records[0]).toMatchObject({
        source: 'core',
        eventType: 'MONEY_IN',
        pointer: '/body/new_field',
        path: 'body.new_field',
        kind: 'extra-field',
        count: 3,
      });
      expect(records[0]!.firstSeen.toISOString()).toBe(at(1).toISOString());
      expect(records[0]!.lastSeen.toISOString()).toBe(at(5).toISOString());
      // The latest stored event's note is the example.
      expect(records[0]!.example).toMatchObject({ expected: 'absent: not in the schema', seen: 'string (5 chars)' });
      expect(records[1]).toMatchObject({
        pointer: '/body/amount',
        kind: 'mismatch',
        count: 1,
        example: { seen: 'string "d.d"' },
      });
    });

    it('counts an event once when several items of one array differ in the same field', async () => {
      await suite.store.append(
        newEvent({
          source: 'cash',
          eventType: 'cash.items',
          dedupeKey: 'cash:items:1',
          idMsg: null,
          receivedAt: at(10),
          drift: [extra('items[0].odd'), extra('items[1].odd'), extra('items[13].odd')],
        }),
      );
      const records = await listDrift(suite.opened.db, { source: 'cash' });
      expect(records).toEqual([expect.objectContaining({ pointer: '/items/*/odd', path: 'items[].odd', count: 1 })]);
    });

    it('refuses a source it does not know, saying which it knows', async () => {
      await expect(listDrift(suite.opened.db, { source: 'wire' as 'core' })).rejects.toThrow(
        /source must be one of core, cash, direct_debit/,
      );
      await expect(listDrift(suite.opened.db, { limit: 0 })).rejects.toThrow(/limit must be a whole number/);
    });
  });
}

describe('pathToPointer', () => {
  it('turns the gateway paths into JSON Pointers', () => {
    expect(pathToPointer('(root)')).toBe('');
    expect(pathToPointer('data[].client_secret')).toBe('/data/*/client_secret');
    expect(pathToPointer('body[3].x')).toBe('/body/3/x');
    expect(pathToPointer('meta["a/b~c"].y')).toBe('/meta/a~1b~0c/y');
    expect(pathToPointer('event')).toBe('/event');
    expect(pathToPointer('a..b')).toBe('/a..b');
  });
});
