// The status of a transfer from every status update known for it, whichever arrived first: the
// one with the highest rank (a settlement over "in progress"; terminal outcomes share a rank), ties
// broken by content (status, then time) so the result does not depend on the order facts were
// applied in. A status update without an id counts for the transfer with its tracking key. The
// status the API returned stands until an update of at least its rank arrives.
// Called under the items' key locks (../item-locks.ts), after the facts were written.
import type { Queryable } from '@paykit/store';

export async function mergeStatus(
  tx: Queryable,
  scope: { transactionIds?: readonly string[]; trackingKeys?: readonly string[] },
): Promise<void> {
  const ids = scope.transactionIds ?? [];
  const keys = scope.trackingKeys ?? [];
  if (ids.length === 0 && keys.length === 0) return;
  await tx.query(
    `UPDATE ledger_outbound o
     SET status = b.status, status_rank = b.rank, status_reason = coalesce(b.reason_description, b.reason), status_at = b.updated_at, status_seq = b.event_seq
     FROM (
       SELECT DISTINCT ON (t.transaction_id) t.transaction_id AS target, h.status, ledger_status_rank(h.status) AS rank, h.reason, h.reason_description,
              h.updated_at, h.event_seq
       FROM (
         -- Each key looked up by its own index: an OR of the two reads the whole table.
         SELECT transaction_id, tracking_key FROM ledger_outbound WHERE transaction_id = ANY($1::text[])
         UNION
         SELECT transaction_id, tracking_key FROM ledger_outbound WHERE tracking_key = ANY($2::text[])
       ) t
       CROSS JOIN LATERAL (
         SELECT * FROM ledger_status_history h WHERE h.transaction_id = t.transaction_id
         UNION ALL
         SELECT * FROM ledger_status_history h WHERE h.transaction_id IS NULL AND h.tracking_key = t.tracking_key
       ) h
       ORDER BY t.transaction_id, ledger_status_rank(h.status) DESC, h.status, h.updated_at NULLS LAST, h.reason_description NULLS LAST, h.reason NULLS LAST, h.event_seq
     ) b
     WHERE o.transaction_id = b.target AND b.rank >= o.status_rank AND o.status_seq IS DISTINCT FROM b.event_seq`,
    [ids, keys],
  );
}
