// An intent left without an answer, attached by a fact the platform sent. A STATUS_UPDATE or a
// report line names a transaction but nothing the request carried (no key, no reference), so it
// can never say which intent it belongs to. A REFUND that reverses one of our transfers names the
// original transaction with its amount and its reference (`numeric_reference`, the request's
// external_reference): it links when the reference and the amount match exactly one open intent,
// that intent matches exactly one such transaction, and the transaction is one the ledger has not
// recorded or attached. Anything less is a guess, and the intent stays unresolved.
//
// Only refunds dated after the oldest open intent are read: with no open intent (the usual case)
// nothing is read at all.
//
// Attaching records the transfer from the intent (amount, operation; the parties and the status
// come from the facts), so its status updates stop being orphans and the reversal finds its original.
import type { Database } from '@paykit/store';
import { postItems } from '../journal/post.ts';
import { lockItems, retryRaces } from '../item-locks.ts';
import { recordOutboundIn } from './outbound.ts';

/** A transfer happens after its request is written: a fact dated earlier than this before the intent is not its transaction. */
export const CLOCK_SKEW = "interval '10 minutes'";

interface Link {
  id: string;
  operation: 'money_out' | 'internal_transaction' | 'penny_validation';
  amount: string;
  created_at: Date | string;
  transaction_id: string;
  tracking_key: string | null;
  event_seq: string;
}

/** Attaches every open intent an exact fact names; returns how many were attached. */
export async function attachIntentsFromEvents(db: Database, options: { now?: Date } = {}): Promise<number> {
  const open = await db.query(
    `SELECT 1 FROM ledger_outbound_intents WHERE transaction_id IS NULL AND failed_at IS NULL LIMIT 1`,
  );
  if (open.rows.length === 0) return 0;
  const now = options.now ?? new Date();
  const { rows } = await db.query<Link>(
    `WITH facts AS (
       SELECT DISTINCT ON (r.original_transaction_id) r.original_transaction_id AS transaction_id, r.original_tracking_key AS tracking_key,
              coalesce(r.original_amount_stated, r.amount) AS amount, r.transaction_at, r.event_seq,
              ltrim(ledger_id(webhook_event_payload(e.raw_body, e.payload)->'body'->'numeric_reference'), '0') AS reference
         FROM ledger_refunds r JOIN webhook_events e ON e.seq = r.event_seq
        WHERE r.transaction_at >= (SELECT min(created_at) FROM ledger_outbound_intents WHERE transaction_id IS NULL AND failed_at IS NULL) - ${CLOCK_SKEW}
          AND NOT EXISTS (SELECT 1 FROM ledger_outbound o WHERE o.transaction_id = r.original_transaction_id)
          AND NOT EXISTS (SELECT 1 FROM ledger_outbound_intents i WHERE i.transaction_id = r.original_transaction_id)
          -- A refund of a credit we received names that credit, never a transfer of ours.
          AND NOT EXISTS (SELECT 1 FROM ledger_credits c WHERE c.transaction_id = r.original_transaction_id)
        ORDER BY r.original_transaction_id, r.event_seq
     ),
     pairs AS (
       SELECT i.id, i.operation, i.amount::text AS amount, i.created_at, f.transaction_id, f.tracking_key, f.event_seq::text AS event_seq
         FROM ledger_outbound_intents i
         JOIN facts f ON f.amount = i.amount AND f.reference <> '' AND f.reference = ltrim(i.external_reference, '0')
                     AND f.transaction_at >= i.created_at - ${CLOCK_SKEW}
        WHERE i.transaction_id IS NULL AND i.failed_at IS NULL AND i.external_reference IS NOT NULL
     )
     SELECT p.* FROM pairs p
      WHERE (SELECT count(*) FROM pairs q WHERE q.id = p.id) = 1
        AND (SELECT count(*) FROM pairs q WHERE q.transaction_id = p.transaction_id) = 1`,
  );
  let attached = 0;
  for (const link of rows) {
    const done = await retryRaces(() =>
      db.transaction(async (tx) => {
        await lockItems(tx, [`tx:${link.transaction_id}`]);
        // Another writer may have recorded or attached it since the read above.
        const { rowCount } = await tx.query(
          `UPDATE ledger_outbound_intents SET transaction_id = $2, attached_at = $3::timestamptz, attached_by = 'event',
                  attach_evidence = jsonb_build_object('event_seq', $4::bigint, 'link', 'REFUND original_transaction_id, numeric_reference and amount')
            WHERE id = $1 AND transaction_id IS NULL AND failed_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM ledger_outbound_intents j WHERE j.transaction_id = $2)`,
          [link.id, link.transaction_id, now.toISOString(), link.event_seq],
        );
        if (rowCount === 0) return false;
        await postItems(tx, [`int:${link.id}`], 'record');
        await recordOutboundIn(tx, {
          transactionId: link.transaction_id,
          trackingKey: link.tracking_key,
          operation: link.operation,
          subCategory: null,
          amount: link.amount,
          sourceAccount: null,
          destinationAccount: null,
          expectedHolder: null,
          expectedRfc: null,
          status: 'INITIALIZED',
          createdAt: link.created_at instanceof Date ? link.created_at : new Date(link.created_at),
          response: { attachedFromIntent: link.id, eventSeq: link.event_seq },
        });
        return true;
      }),
    );
    if (done) attached++;
  }
  return attached;
}
