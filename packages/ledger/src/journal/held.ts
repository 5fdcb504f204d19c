// Held money: a credit the gateway answered 202 (stored for review) or flagged sits in the
// journal's in:held account — here, but neither money in nor able to pay a receivable — until an
// operator releases it. A release needs the gateway to have re-decided the event under its current
// policy (an admin replay, kept in webhook_event_replays) and accepted it; the ledger keeps who
// released it, when and why (ledger_held_releases), and books it as received.
import { StoreInputError, type Database, type Queryable } from '@paykit/store';
import { lockItems, retryRaces } from '../item-locks.ts';
import { decimal } from '../read/decimal.ts';
import { postItems, rematchAccounts } from './post.ts';

export interface HeldCredit {
  transactionId: string;
  /** The stored event (webhook_events.seq) that brought it. */
  seq: string;
  account: string;
  amount: string;
  payerAccount: string | null;
  payerName: string | null;
  /** What the gateway decided at receipt (stored: answered 202; flagged: refused INT_CREDIT) and why. */
  outcome: string;
  reason: string | null;
  transactionAt: Date;
  /** The gateway's newest re-decision (admin replay), if any. */
  redecision: { outcome: string; reason: string | null; at: Date } | null;
}

export interface HeldRelease {
  transactionId: string;
  seq: string;
  amount: string;
  releasedBy: string;
  releasedAt: Date;
  note: string | null;
}

interface HeldRow {
  transaction_id: string;
  seq: string;
  account: string;
  amount: string;
  payer_account: string | null;
  payer_name: string | null;
  outcome: string;
  reason: string | null;
  transaction_at: Date;
  redecided: string | null;
  redecided_reason: string | null;
  redecided_at: Date | null;
  held: boolean;
}

// Still held: neither accepted (nor released) nor rejected, and not returned to its payer since.
export const HELD = `(ledger_credit_standing(c.transaction_id, c.gateway_outcome) = 'held'
  AND NOT EXISTS (SELECT 1 FROM ledger_refunds f WHERE f.original_transaction_id = c.transaction_id))`;

const HELD_SELECT = `SELECT ${HELD} AS held, c.transaction_id, c.event_seq::text AS seq, c.beneficiary_account AS account, c.amount::text AS amount, c.payer_account,
         c.payer_name, c.gateway_outcome AS outcome, e.reason, c.transaction_at, x.outcome AS redecided, x.reason AS redecided_reason,
         x.replayed_at AS redecided_at
  FROM ledger_credits c
  -- LEFT: a credit of an archived month has no stored event any more (its reason is in the archive).
  LEFT JOIN webhook_events e ON e.seq = c.event_seq
  LEFT JOIN LATERAL (SELECT r.outcome, r.reason, r.replayed_at FROM webhook_event_replays r WHERE r.seq = c.event_seq ORDER BY r.replayed_at DESC, r.id DESC LIMIT 1) x ON true`;

const toHeld = (row: HeldRow): HeldCredit => ({
  transactionId: row.transaction_id,
  seq: row.seq,
  account: row.account,
  amount: decimal(row.amount),
  payerAccount: row.payer_account,
  payerName: row.payer_name,
  outcome: row.outcome,
  reason: row.reason,
  transactionAt: row.transaction_at,
  redecision:
    row.redecided === null ? null : { outcome: row.redecided, reason: row.redecided_reason, at: row.redecided_at! },
});

/** Every credit still held, the oldest first (at most `limit`, default 500). */
export async function listHeld(db: Queryable, options: { limit?: number } = {}): Promise<HeldCredit[]> {
  const limit = options.limit ?? 500;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new StoreInputError('limit must be 1 to 10,000');
  const { rows } = await db.query<HeldRow>(
    `${HELD_SELECT}
     WHERE ${HELD}
     ORDER BY c.transaction_at, c.transaction_id LIMIT $1`,
    [limit],
  );
  return rows.map(toHeld);
}

/** A credit by its transaction id or its event's seq, and whether it is still held; undefined when the ledger has none. */
export async function findCredit(db: Queryable, credit: string): Promise<(HeldCredit & { held: boolean }) | undefined> {
  const { rows } = await db.query<HeldRow>(
    `${HELD_SELECT} WHERE c.transaction_id = $1 OR ($1 ~ '^[0-9]{1,18}$' AND c.event_seq = $1::bigint) ORDER BY c.transaction_id <> $1 LIMIT 1`,
    [credit],
  );
  return rows[0] === undefined ? undefined : { ...toHeld(rows[0]), held: rows[0].held };
}

/**
 * Releases a held credit (by its transaction id or its event's seq): the gateway's newest
 * re-decision of its event must accept it. Books it as money in and matches its account again.
 * `within` runs in the release's transaction once it is booked, for a record that must commit with
 * it or not at all (the console's audit row); a release whose `within` throws is not made.
 */
export async function releaseHeld(
  db: Database,
  input: {
    credit: string;
    by: string;
    note?: string | null;
    within?: (tx: Queryable, release: HeldRelease) => Promise<void>;
  },
): Promise<HeldRelease> {
  const by = typeof input.by === 'string' ? input.by.trim() : '';
  if (by === '' || by.length > 200) throw new StoreInputError('by (who releases it) must be 1 to 200 characters');
  if (typeof input.credit !== 'string' || input.credit.trim() === '')
    throw new StoreInputError('credit must be a transaction id or an event seq');
  const credit = input.credit.trim();
  return retryRaces(() =>
    db.transaction(async (tx) => {
      const found = await findCredit(tx, credit);
      if (found === undefined)
        throw new StoreInputError(
          `no credit ${credit} in the ledger: give a MONEY_IN transaction id or its event seq (paykit held list)`,
        );
      await lockItems(tx, [`tx:${found.transactionId}`, `acct:${found.account}`]);
      // Read after the lock: a release or a refund applied meanwhile is seen here.
      const standing = await tx.query<{ standing: string; refund: string | null }>(
        `SELECT ledger_credit_standing(c.transaction_id, c.gateway_outcome) AS standing,
                (SELECT f.transaction_id FROM ledger_standing_refund(c.transaction_id) f) AS refund
         FROM ledger_credits c WHERE c.transaction_id = $1`,
        [found.transactionId],
      );
      if (standing.rows[0]?.standing !== 'held')
        throw new StoreInputError(
          `credit ${found.transactionId} is not held (it is ${standing.rows[0]?.standing ?? 'unknown'}): nothing to release`,
        );
      // The platform returned it to its payer while it was held: it never was money in, and
      // releasing it would book it as received and refunded.
      if (standing.rows[0].refund !== null)
        throw new StoreInputError(
          `credit ${found.transactionId} was returned to its payer while held (refund ${standing.rows[0].refund}): nothing to release`,
        );
      // Read before the lock; the standing and refund above are read after it.
      const redecision = found.redecision;
      if (redecision?.outcome !== 'accepted')
        throw new StoreInputError(
          redecision === null
            ? `credit ${found.transactionId} (event ${found.seq}) has not been re-decided: replay event ${found.seq} through the gateway first (paykit held release does it), once the reason it was held for is resolved`
            : `the gateway's newest decision for event ${found.seq} is ${redecision.outcome}: ${redecision.reason ?? 'no reason given'}; resolve that, then re-decide it`,
        );
      const { rows } = await tx.query<{ released_at: Date }>(
        `INSERT INTO ledger_held_releases (credit_id, decision, released_by, note) VALUES ($1, 'accepted', $2, $3) RETURNING released_at`,
        [found.transactionId, by, input.note ?? null],
      );
      const receivables = await rematchAccounts(tx, [found.account]);
      await postItems(tx, [`tx:${found.transactionId}`, ...receivables], 'release');
      const release: HeldRelease = {
        transactionId: found.transactionId,
        seq: found.seq,
        amount: found.amount,
        releasedBy: by,
        releasedAt: rows[0]!.released_at,
        note: input.note ?? null,
      };
      await input.within?.(tx, release);
      return release;
    }),
  );
}

/** Every release, newest first: who released what, and when. */
export async function listReleases(db: Queryable, options: { limit?: number } = {}): Promise<HeldRelease[]> {
  const { rows } = await db.query<{
    credit_id: string;
    seq: string;
    amount: string;
    released_by: string;
    released_at: Date;
    note: string | null;
  }>(
    `SELECT h.credit_id, c.event_seq::text AS seq, c.amount::text AS amount, h.released_by, h.released_at, h.note
     FROM ledger_held_releases h JOIN ledger_credits c ON c.transaction_id = h.credit_id
     ORDER BY h.released_at DESC, h.credit_id LIMIT $1`,
    [options.limit ?? 500],
  );
  return rows.map((row) => ({
    transactionId: row.credit_id,
    seq: row.seq,
    amount: decimal(row.amount),
    releasedBy: row.released_by,
    releasedAt: row.released_at,
    note: row.note,
  }));
}
