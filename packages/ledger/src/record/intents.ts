// Write-ahead recording of outbound money. The request of a transfer is written down before it is
// sent (ledger_outbound_intents, migration 0013) with the Idempotency-Key it carries; the platform's
// transaction is attached when it answers, in the same transaction that records the transfer. An
// intent left without one is a transfer whose answer never reached the ledger: it may have moved
// money or not, and only two things tell which without guessing: an answer to the same key (a
// rerun, `paykit transfers resolve`, another process) or a fact the platform sent that names the
// intent exactly (attachIntentsFromEvents). Until then it is listed as unresolved (../read/intents.ts), and booked in
// suspense (out:unconfirmed, migration 0017): whoever writes, attaches or fails an intent posts it
// in the same transaction, holding its row.
import { randomUUID } from 'node:crypto';
import { readAmount } from '@paykit/contracts';
import { StoreInputError, type Database, type Queryable } from '@paykit/store';
import { postItems } from '../journal/post.ts';
import { retryRaces } from '../item-locks.ts';
import { recordOutboundIn, type OutboundOperation, type OutboundRecord } from './outbound.ts';

/** How long the platform answers a repeated Idempotency-Key with its first answer (money_out: 24 h from the first request). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/** The second key of the advisory locks of intents ("payi"), beside ../item-locks.ts's item locks. */
const INTENT_LOCK_CLASS = 1_885_436_265;

/** What is about to be sent. */
export interface IntentRequest {
  operation: OutboundOperation;
  clientId: string;
  /** Null for internal_transaction (the platform honours no key there). */
  idempotencyKey: string | null;
  /** Decimal string with two decimals. */
  amount: string;
  sourceInstrument: string;
  destinationInstrument: string;
  externalReference: string | null;
  description: string | null;
  /** The body exactly as sent. */
  request: unknown;
}

export interface OutboundIntent extends IntentRequest {
  id: string;
  actor: string;
  createdAt: Date;
  sentAt: Date;
  attempts: number;
  transactionId: string | null;
  attachedAt: Date | null;
  attachedBy: 'answer' | 'event' | null;
  failedAt: Date | null;
  failure: string | null;
}

/** An intent as its table holds it (COLUMNS). */
export interface IntentRow {
  id: string;
  operation: OutboundOperation;
  idempotency_key: string | null;
  client_id: string;
  amount: string;
  source_instrument: string;
  destination_instrument: string;
  external_reference: string | null;
  description: string | null;
  request: unknown;
  actor: string;
  created_at: Date | string;
  sent_at: Date | string;
  previous_sent_at: Date | string | null;
  attempts: number;
  transaction_id: string | null;
  attached_at: Date | string | null;
  attached_by: 'answer' | 'event' | null;
  failed_at: Date | string | null;
  failure: string | null;
}

export const COLUMNS = `id, operation, idempotency_key, client_id, amount::text AS amount, source_instrument, destination_instrument,
  external_reference, description, request, actor, created_at, sent_at, previous_sent_at, attempts, transaction_id, attached_at,
  attached_by, failed_at, failure`;

const date = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const dateOrNull = (value: Date | string | null): Date | null => (value === null ? null : date(value));

export function fromRow(row: IntentRow): OutboundIntent {
  return {
    id: row.id,
    operation: row.operation,
    clientId: row.client_id,
    idempotencyKey: row.idempotency_key,
    amount: row.amount,
    sourceInstrument: row.source_instrument,
    destinationInstrument: row.destination_instrument,
    externalReference: row.external_reference,
    description: row.description,
    request: typeof row.request === 'string' ? (JSON.parse(row.request) as unknown) : row.request,
    actor: row.actor,
    createdAt: date(row.created_at),
    sentAt: date(row.sent_at),
    attempts: Number(row.attempts),
    transactionId: row.transaction_id,
    attachedAt: dateOrNull(row.attached_at),
    attachedBy: row.attached_by,
    failedAt: dateOrNull(row.failed_at),
    failure: row.failure,
  };
}

function checkRequest(request: IntentRequest, actor: string): void {
  const amount = readAmount(request.amount);
  if (!amount.ok) throw new StoreInputError(amount.problem);
  for (const [field, value] of [
    ['clientId', request.clientId],
    ['sourceInstrument', request.sourceInstrument],
    ['destinationInstrument', request.destinationInstrument],
    ['actor', actor],
  ] as const) {
    if (typeof value !== 'string' || value === '')
      throw new StoreInputError(`${field} is required to record an intent`);
  }
  if (request.operation !== 'internal_transaction' && !request.idempotencyKey)
    throw new StoreInputError(`${request.operation} is sent with an Idempotency-Key: the intent must record it`);
}

/**
 * Writes the intent down (or, for a repeat of the same request with the same key inside the
 * platform's window, counts another attempt on the intent already written: a rerun of one command
 * is one transfer). `id` makes a retry after a lost commit find its own row instead of adding one.
 */
export async function writeIntent(
  db: Database,
  request: IntentRequest,
  options: { actor: string; now: Date; id?: string },
): Promise<{ intent: OutboundIntent; reused: boolean }> {
  checkRequest(request, options.actor);
  const id = options.id ?? randomUUID();
  const requestJson = JSON.stringify(request.request ?? {});
  return retryRaces(() =>
    db.transaction(async (tx) => {
      const own = await tx.query<IntentRow>(`SELECT ${COLUMNS} FROM ledger_outbound_intents WHERE id = $1`, [id]);
      if (own.rows[0]) return { intent: fromRow(own.rows[0]), reused: false };
      if (request.idempotencyKey !== null) {
        await tx.query(`SELECT pg_advisory_xact_lock(${INTENT_LOCK_CLASS}, hashtext($1))`, [request.idempotencyKey]);
        const same = await tx.query<IntentRow>(
          `UPDATE ledger_outbound_intents SET attempts = attempts + 1, previous_sent_at = sent_at, sent_at = $4::timestamptz
            WHERE id = (SELECT id FROM ledger_outbound_intents
                         WHERE idempotency_key = $1 AND request = $2::jsonb AND failed_at IS NULL
                           AND created_at > $3::timestamptz
                         ORDER BY created_at DESC LIMIT 1)
            RETURNING ${COLUMNS}`,
          [
            request.idempotencyKey,
            requestJson,
            new Date(options.now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
            options.now.toISOString(),
          ],
        );
        if (same.rows[0]) return { intent: fromRow(same.rows[0]), reused: true };
      }
      const inserted = await tx.query<IntentRow>(
        `INSERT INTO ledger_outbound_intents (id, operation, idempotency_key, client_id, amount, source_instrument, destination_instrument,
                                              external_reference, description, request, actor, created_at, sent_at)
         VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8, $9, $10::jsonb, $11, $12::timestamptz, $12::timestamptz)
         RETURNING ${COLUMNS}`,
        [
          id,
          request.operation,
          request.idempotencyKey,
          request.clientId,
          request.amount,
          request.sourceInstrument,
          request.destinationInstrument,
          request.externalReference,
          request.description,
          requestJson,
          options.actor,
          options.now.toISOString(),
        ],
      );
      await postItems(tx, [`int:${id}`], 'intent');
      return { intent: fromRow(inserted.rows[0]!), reused: false };
    }),
  );
}

export interface AttachedAnswer {
  /** The intent the answer was attached to (null when none was written for it). */
  intentId: string | null;
  /**
   * True when the platform answered with a transaction it had created for an earlier request: the
   * ledger knew it already, or the intent's earlier attempt reached the platform (the transaction
   * was created nearer that attempt than this one).
   */
  replayed: boolean;
  /** False when the transfer was recorded already. */
  recorded: boolean;
}

/**
 * Attaches the platform's answer to its intent and records the transfer, in one transaction.
 * `attemptAt` (taken once before any retry) tells this answer's own earlier try, whose commit may
 * have been lost, from an earlier request's.
 */
export async function attachAnswer(
  db: Database,
  answer: {
    intentId?: string | undefined;
    idempotencyKey?: string | undefined;
    record: OutboundRecord;
    attemptAt: Date;
  },
): Promise<AttachedAnswer> {
  const { record, attemptAt } = answer;
  return retryRaces(() =>
    db.transaction(async (tx) => {
      const intent = await findIntent(tx, answer, attemptAt);
      const known = await tx.query(`SELECT 1 FROM ledger_outbound WHERE transaction_id = $1`, [record.transactionId]);
      const ownEarlierTry =
        intent?.transaction_id === record.transactionId &&
        intent.attached_at !== null &&
        date(intent.attached_at).getTime() === attemptAt.getTime();
      let replayed = !ownEarlierTry && (known.rows.length > 0 || intent?.transaction_id === record.transactionId);
      if (!replayed && intent && intent.transaction_id === null && intent.previous_sent_at !== null) {
        // Whether the earlier attempt arrived shows only in when the platform created the transaction.
        const earlier = date(intent.previous_sent_at).getTime();
        const midpoint = earlier + (date(intent.sent_at).getTime() - earlier) / 2;
        replayed = record.createdAt.getTime() < midpoint;
      }
      if (intent && intent.transaction_id === null) {
        const attached = await tx.query<{ id: string }>(
          `UPDATE ledger_outbound_intents SET transaction_id = $2, attached_at = $3::timestamptz, attached_by = 'answer',
                  attach_evidence = jsonb_build_object('idempotency_key', idempotency_key)
            WHERE (id = $1 OR (idempotency_key = $4 AND request = (SELECT request FROM ledger_outbound_intents WHERE id = $1)
                               AND created_at > $5::timestamptz))
              AND transaction_id IS NULL AND failed_at IS NULL
            RETURNING id`,
          [
            intent.id,
            record.transactionId,
            attemptAt.toISOString(),
            intent.idempotency_key,
            new Date(attemptAt.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
          ],
        );
        await postItems(
          tx,
          attached.rows.map((row) => `int:${row.id}` as const),
          'record',
        );
      }
      const recorded = await recordOutboundIn(tx, record);
      return { intentId: intent?.id ?? null, replayed, recorded };
    }),
  );
}

/** The intent an answer belongs to: the one named, else the newest one with its key inside the window. */
async function findIntent(
  tx: Queryable,
  answer: { intentId?: string | undefined; idempotencyKey?: string | undefined },
  attemptAt: Date,
): Promise<IntentRow | undefined> {
  if (answer.intentId !== undefined) {
    const { rows } = await tx.query<IntentRow>(
      `SELECT ${COLUMNS} FROM ledger_outbound_intents WHERE id = $1 FOR UPDATE`,
      [answer.intentId],
    );
    if (rows[0]) return rows[0];
  }
  if (answer.idempotencyKey === undefined) return undefined;
  const { rows } = await tx.query<IntentRow>(
    `SELECT ${COLUMNS} FROM ledger_outbound_intents
      WHERE idempotency_key = $1 AND failed_at IS NULL AND created_at > $2::timestamptz
      ORDER BY created_at DESC LIMIT 1 FOR UPDATE`,
    [answer.idempotencyKey, new Date(attemptAt.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString()],
  );
  return rows[0];
}

/** The platform answered an error that creates nothing: the intent moved no money and is not unresolved. */
export async function failIntent(db: Database, intentId: string, failure: string, now: Date): Promise<void> {
  await retryRaces(() =>
    db.transaction(async (tx) => {
      const failed = await tx.query<{ id: string }>(
        `UPDATE ledger_outbound_intents SET failed_at = $3::timestamptz, failure = $2
          WHERE id = $1 AND transaction_id IS NULL AND failed_at IS NULL
          RETURNING id`,
        [intentId, failure.slice(0, 2000), now.toISOString()],
      );
      await postItems(
        tx,
        failed.rows.map((row) => `int:${row.id}` as const),
        'record',
      );
    }),
  );
}
