// What a ledger of `events` applied events takes on disk, for the capacity plan
// (docs/operations.md): the stored deliveries and their applied marks, the journal, the whole
// database; per event, and per journal row (each posting's legs are rows). Sizes are PostgreSQL's
// own (pg_total_relation_size: the table, its indexes and its TOAST; of each month partition of
// webhook_events, migration 0023), right after the apply.
import type { Queryable } from '@paykit/store';

export interface Storage {
  /** webhook_events (every partition), its dedupe keys and webhook_events_applied, bytes per stored event. */
  eventBytesPerEvent: number;
  /** ledger_journal, bytes per journal row. */
  journalBytesPerRow: number;
  /** Journal rows per event (a posting has two legs or more). */
  journalRowsPerEvent: number;
  /** The whole database over the events: everything a stored and applied event costs. */
  databaseBytesPerEvent: number;
}

export async function measureStorage(db: Queryable, events: number): Promise<Storage> {
  const { rows } = await db.query<{ events: string; journal: string; journal_rows: string; database: string }>(
    `SELECT ((SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('webhook_events'))
             + pg_total_relation_size('webhook_event_keys') + pg_total_relation_size('webhook_events_applied'))::text AS events,
            pg_total_relation_size('ledger_journal')::text AS journal,
            (SELECT count(*) FROM ledger_journal)::text AS journal_rows,
            pg_database_size(current_database())::text AS database`,
  );
  const row = rows[0]!;
  const journalRows = Number(row.journal_rows);
  return {
    eventBytesPerEvent: Math.round(Number(row.events) / events),
    journalBytesPerRow: journalRows === 0 ? 0 : Math.round(Number(row.journal) / journalRows),
    journalRowsPerEvent: Math.round((journalRows / events) * 100) / 100,
    databaseBytesPerEvent: Math.round(Number(row.database) / events),
  };
}
