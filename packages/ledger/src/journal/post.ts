// Posting to the journal (sql/functions/: ledger_targets.sql and ledger_fact_targets.sql,
// ledger_post.sql, ledger_rematch.sql; the tables are migration 0015_journal's).
// Whoever writes a fact about an item (a worker applying events, the recorder of a transfer or a
// charge, a team registering a receivable, an operator releasing a held credit) posts the item
// afterwards, under the item's key lock (../item-locks.ts): the database appends one balanced posting
// with the difference between what the item's facts call for and what its journal holds. So the
// journal is append-only, every posting balances, and an item's entries net to the same amounts
// whatever order its facts came in and however many writers there were.
import type { Queryable } from '@paykit/store';

/** An item of the journal: a transfer or credit with its refunds, a direct debit charge, a receivable, a write-ahead intent. */
export type JournalItem = `tx:${string}` | `dd:${string}` | `rcv:${string}` | `int:${string}`;

/**
 * What made a posting: a worker's batch, a recorded transfer or charge, a registered receivable,
 * an operator's release, an intent written before a transfer is sent.
 */
export type PostingCause = 'apply' | 'record' | 'register' | 'release' | 'intent';

/**
 * Brings each item's journal to what its facts say; returns the number of entries written. Call
 * under the items' key locks (an intent's: its row's lock, which every writer of it takes).
 */
export async function postItems(tx: Queryable, items: Iterable<JournalItem>, cause: PostingCause): Promise<number> {
  const unique = [...new Set(items)];
  if (unique.length === 0) return 0;
  const { rows } = await tx.query<{ written: number }>('SELECT ledger_post($1::text[], $2) AS written', [
    unique,
    cause,
  ]);
  return Number(rows[0]?.written ?? 0);
}

/**
 * Matches every credit of the accounts to their receivables again (call under the accounts' key
 * locks) and returns the journal items of the receivables whose payments changed.
 */
export async function rematchAccounts(tx: Queryable, accounts: Iterable<string>): Promise<JournalItem[]> {
  const unique = [...new Set(accounts)];
  if (unique.length === 0) return [];
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM ledger_rematch($1::text[]) AS id', [unique]);
  return rows.map((row): JournalItem => `rcv:${row.id}`);
}
