// Reading the write-ahead intents: one by its id (`paykit transfers resolve`), and the unresolved
// ones, sent and perhaps moved but without an answer in the books, for the console and the CLI.
import type { Queryable } from '@paykit/store';
import { COLUMNS, fromRow, IDEMPOTENCY_WINDOW_MS, type IntentRow, type OutboundIntent } from '../record/intents.ts';

export async function getIntent(db: Queryable, id: string): Promise<OutboundIntent | undefined> {
  const { rows } = await db.query<IntentRow>(`SELECT ${COLUMNS} FROM ledger_outbound_intents WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

export interface UnresolvedIntent extends OutboundIntent {
  /** Seconds since the intent was written, on `now`. */
  ageSeconds: number;
  /** Whether a replay with the same key is still answered by the platform (inside its 24 h window). */
  replayable: boolean;
  /** When the platform stops answering the key with its first answer. */
  replayableUntil: Date;
}

/** Intents without a transaction and without a refusal: sent, perhaps moved, not in the books. Oldest first. */
export async function listUnresolvedIntents(
  db: Queryable,
  options: { now?: Date; limit?: number } = {},
): Promise<UnresolvedIntent[]> {
  const now = options.now ?? new Date();
  const limit = Math.max(1, Math.min(options.limit ?? 1000, 10_000));
  const { rows } = await db.query<IntentRow>(
    `SELECT ${COLUMNS} FROM ledger_outbound_intents WHERE transaction_id IS NULL AND failed_at IS NULL
      ORDER BY created_at, id LIMIT ${limit}`,
  );
  return rows.map((row) => {
    const intent = fromRow(row);
    const until = new Date(intent.createdAt.getTime() + IDEMPOTENCY_WINDOW_MS);
    return {
      ...intent,
      ageSeconds: Math.max(0, Math.floor((now.getTime() - intent.createdAt.getTime()) / 1000)),
      replayable: intent.idempotencyKey !== null && now < until,
      replayableUntil: until,
    };
  });
}

/** Count and sum of the unresolved intents, for the console's cards: their balance in suspense (out:unconfirmed), from the journal. */
export async function unresolvedIntentTotals(db: Queryable): Promise<{ count: number; amount: string }> {
  const { rows } = await db.query<{ count: string; amount: string }>(
    `SELECT count(*)::text AS count, coalesce(sum(amount), 0)::numeric(18,2)::text AS amount
       FROM (SELECT j.item, sum(j.amount) AS amount FROM ledger_journal j WHERE j.account = 'out:unconfirmed'
             GROUP BY j.item HAVING sum(j.amount) <> 0) open`,
  );
  return { count: Number(rows[0]?.count ?? 0), amount: rows[0]?.amount ?? '0.00' };
}
