// An event the worker parks: a MONEY_IN whose body has no amount (for the console's retry form).
import { reconcileOnce } from '@paykit/ledger';
import { createEventStore, type NewEvent } from '@paykit/store';
import { creditEvent, testDatabases, type OpenedTestDatabase } from '@paykit/store/testing';
import { ledgerMigrations } from '@paykit/ledger/migrations';

export function unreadableCredit(): NewEvent {
  return creditEvent({});
}

/** A fresh test database holding one parked event (an unreadable credit, applied once). */
export async function openWithParkedEvent(): Promise<OpenedTestDatabase> {
  const opened = await testDatabases([ledgerMigrations])[0]!.open();
  const store = createEventStore(opened.db);
  await store.append(unreadableCredit());
  await store.close();
  const result = await reconcileOnce(opened.db);
  if (result.parked !== 1) throw new Error(`expected the unreadable credit parked, got ${JSON.stringify(result)}`);
  return opened;
}
