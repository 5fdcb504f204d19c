// Recording what we sent: every transaction money_out, internal_transaction and penny validation
// return, keyed by transaction id (a replayed penny validation records nothing new). The recorder
// that writes each request down first and calls this is in recorder.ts. Status
// updates and CEP results that arrived before the record (orphans) are merged at once, under the
// transfer's key locks (../item-locks.ts): a worker applying one of them at the same moment either
// sees this record or is seen by it.
import { StoreInputError, type Database, type Queryable } from '@paykit/store';
import { postItems } from '../journal/post.ts';
import { lockItems, retryRaces } from '../item-locks.ts';
import type { ItemKey } from '../item-locks.ts';
import { optionalText, requiredText } from './text.ts';
import { mergeStatus } from '../apply/merge-status.ts';
import { refreshOwnership } from '../apply/refresh-ownership.ts';

export type OutboundOperation = 'money_out' | 'internal_transaction' | 'penny_validation';

export interface OutboundRecord {
  transactionId: string;
  trackingKey: string | null;
  operation: OutboundOperation;
  /** SPEI_DEBIT or INT_DEBIT, as the API returned it. */
  subCategory: string | null;
  /** Decimal string with two decimals. */
  amount: string;
  sourceAccount: string | null;
  destinationAccount: string | null;
  /** Penny validation: the holder we expect to own the destination account (defaults to the destination instrument's). */
  expectedHolder: string | null;
  expectedRfc: string | null;
  /** The status the API returned. */
  status: string;
  createdAt: Date;
  /** The API's answer, kept as evidence. */
  response: unknown;
}

/** What @paykit/core-client's onTransactionCreated hands over (structurally: the ledger does not depend on the client). */
export interface CreatedTransactionLike {
  operation: 'createPennyValidation' | 'createMoneyOut' | 'createInternalTransaction';
  transaction: unknown;
}

const OPERATIONS: Record<CreatedTransactionLike['operation'], OutboundOperation> = {
  createPennyValidation: 'penny_validation',
  createMoneyOut: 'money_out',
  createInternalTransaction: 'internal_transaction',
};
const AMOUNT = /^\d{1,16}\.\d{2}$/;
const STATUSES = new Set(['INITIALIZED', 'IN_PROGRESS', 'LIQUIDATED', 'CANCELLED', 'REFUNDED', 'REJECTED', 'DECLINED']);

/** Reads a transaction as the API returned it; StoreInputError names the field that is missing. */
export function outboundFromApi(created: CreatedTransactionLike): OutboundRecord {
  const operation = OPERATIONS[created.operation];
  if (operation === undefined)
    throw new StoreInputError(`operation must be createPennyValidation, createMoneyOut or createInternalTransaction`);
  const tx = asObject(created.transaction, 'transaction');
  const destination = asObject(tx.destinationInstrument ?? {}, 'transaction.destinationInstrument');
  const destinationDetail = asObject(
    destination.instrumentDetail ?? {},
    'transaction.destinationInstrument.instrumentDetail',
  );
  const sourceDetail = asObject(
    asObject(tx.sourceInstrument ?? {}, 'transaction.sourceInstrument').instrumentDetail ?? {},
    'transaction.sourceInstrument.instrumentDetail',
  );
  const audit = asObject(tx.audit ?? {}, 'transaction.audit');
  const createdAt = typeof audit.createdAt === 'string' ? new Date(audit.createdAt) : new Date();
  return {
    transactionId: requiredText(tx.id, 'transaction.id', 'transaction'),
    trackingKey: optionalText(tx.trackingId),
    operation,
    subCategory: optionalText(tx.subCategory),
    amount: requiredText(tx.amount, 'transaction.amount', 'transaction'),
    sourceAccount: optionalText(sourceDetail.clabeNumber),
    destinationAccount: optionalText(destinationDetail.clabeNumber),
    expectedHolder: operation === 'penny_validation' ? optionalText(destinationDetail.holderName) : null,
    expectedRfc: operation === 'penny_validation' ? optionalText(destination.rfc) : null,
    status: optionalText(tx.transactionStatus) ?? 'INITIALIZED',
    createdAt: Number.isNaN(createdAt.getTime()) ? new Date() : createdAt,
    response: tx,
  };
}

/** Inserts the record (once per transaction id), then merges the status updates and CEP results already received for it. Returns false when it was already recorded. */
export async function recordOutbound(db: Database, record: OutboundRecord): Promise<boolean> {
  check(record);
  return retryRaces(() => db.transaction((tx) => recordOutboundIn(tx, record)));
}

/** recordOutbound inside a transaction the caller runs (and retries on a race). */
export async function recordOutboundIn(tx: Queryable, record: OutboundRecord): Promise<boolean> {
  check(record);
  const { rowCount } = await tx.query(
    `INSERT INTO ledger_outbound (transaction_id, tracking_key, operation, sub_category, amount, source_account, destination_account,
                                expected_holder, expected_rfc, created_at, status, status_rank, response)
   VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8, $9, $10::timestamptz, $11, ledger_status_rank($11), $12::jsonb)
   ON CONFLICT (transaction_id) DO NOTHING`,
    [
      record.transactionId,
      record.trackingKey,
      record.operation,
      record.subCategory,
      record.amount,
      record.sourceAccount,
      record.destinationAccount,
      record.expectedHolder,
      record.expectedRfc,
      record.createdAt.toISOString(),
      record.status,
      JSON.stringify(record.response ?? {}),
    ],
  );
  if (rowCount === 0) return false;
  await adoptOrphans(tx, record);
  return true;
}

/** Status updates (by id, or by tracking key for those without one) and CEP results received before the transaction was recorded. */
async function adoptOrphans(tx: Queryable, record: OutboundRecord): Promise<void> {
  const keys: ItemKey[] = [`tx:${record.transactionId}`];
  if (record.trackingKey !== null) keys.push(`tk:${record.trackingKey}`);
  await lockItems(tx, keys);
  await mergeStatus(tx, { transactionIds: [record.transactionId] });
  await refreshOwnership(tx, [record.transactionId]);
  await postItems(tx, [`tx:${record.transactionId}`], 'record');
}

function check(record: OutboundRecord): void {
  requiredText(record.transactionId, 'transactionId', 'transaction');
  if (typeof record.amount !== 'string' || !AMOUNT.test(record.amount))
    throw new StoreInputError('amount must be a decimal string with two decimals, such as "150.00"');
  if (!STATUSES.has(record.status))
    throw new StoreInputError(`status must be a transaction status (${[...STATUSES].join(', ')})`);
  if (!(record.createdAt instanceof Date) || Number.isNaN(record.createdAt.getTime()))
    throw new StoreInputError('createdAt must be a valid Date');
}

function asObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoreInputError(`${field} must be an object (the transaction as the API returned it)`);
  return value as Record<string, unknown>;
}
