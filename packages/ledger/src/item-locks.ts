// Serialising the writers of one ledger item. Whoever records a fact about an item (the recorder
// of a transfer, a worker applying an event, a team registering a receivable) writes its row
// first, then takes the item's key lock, then reads the other facts and merges them, and holds
// the lock until it commits. Of two writers of one item, the second to get the lock therefore
// reads after the first committed and sees its row: under READ COMMITTED each statement takes a
// new snapshot, and a commit is visible before its locks are released. Without the lock, each
// could miss the other's uncommitted row and the item would stay as if the other fact never came.
//
// Keys: `tx:<transaction id>` (a transfer, a credit, the original of a refund), `tk:<tracking key>`
// (a transfer, for status updates that carry no id), `acct:<CLABE>` (receivables and credits
// of one beneficiary account) and `dd:<charge id>` (a direct debit charge and its results). Taken in ascending order of their hash, in one statement, so two
// writers locking overlapping sets cannot deadlock. Two keys with one hash share a lock: harmless,
// they only wait for each other.
import { sqlState, type Queryable } from '@paykit/store';

/** The first key of the two-key advisory locks: "payl" in ASCII, beside apply/claim.ts's "payk". */
const ITEM_LOCK_CLASS = 1_885_436_268;

export type ItemKey = `tx:${string}` | `tk:${string}` | `acct:${string}` | `dd:${string}`;

/** Locks the items' keys until the transaction ends (waits for any other holder). */
export async function lockItems(tx: Queryable, keys: Iterable<ItemKey>): Promise<void> {
  const unique = [...new Set(keys)];
  if (unique.length === 0) return;
  // The ordered subquery is scanned in order, so the locks are taken in hash order.
  await tx.query(
    `SELECT count(pg_advisory_xact_lock(${ITEM_LOCK_CLASS}, h)) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest($1::text[]) k ORDER BY 1) s`,
    [unique],
  );
}

/** Deadlock, serialization failure: two writers raced for rows outside their keys; the whole transaction is simply run again. */
const RACE = new Set(['40P01', '40001']);

/** Runs `attempt` (one whole transaction) again when it lost such a race, up to 5 times. */
export async function retryRaces<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (tries >= 5 || !RACE.has(sqlState(error) ?? '')) throw error;
    }
  }
}
