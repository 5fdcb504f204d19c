// One event store per describe block, on one kind of test database: opened before the block's
// first test, closed and its database dropped after the last.
import { afterAll, beforeAll } from 'vitest';
import { createEventStore } from '../../src/index.ts';
import type { EventStore } from '../../src/index.ts';
import type { OpenedTestDatabase, TestDatabaseKind } from '../../src/testing.ts';

export interface StoreSuite {
  opened: OpenedTestDatabase;
  store: EventStore;
}

/** Call inside a describe; its tests read `opened` and `store` from the result. */
export function eventStoreSuite(kind: TestDatabaseKind): StoreSuite {
  const suite = {} as StoreSuite;
  beforeAll(async () => {
    suite.opened = await kind.open();
    suite.store = createEventStore(suite.opened.db);
  });
  afterAll(async () => {
    await suite.store?.close();
    await suite.opened?.drop();
  });
  return suite;
}
