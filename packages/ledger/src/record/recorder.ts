// The recorder a core client is created with. Before a request that moves money is sent, it
// writes the intent (what, from where, to where, the Idempotency-Key, who); if that write fails,
// the client sends nothing. After the answer, it attaches the transaction to the intent and
// records the transfer. Both writes are retried while the database is unreachable (bounded), so a
// restart or failover of PostgreSQL does not leave transfers moved and unrecorded; and if the
// second write still fails, the intent stays, listed as unresolved, until an answer to the same
// key or an exact fact from the platform attaches it.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { StoreInputError, type Database } from '@paykit/store';
import { attachAnswer, failIntent, writeIntent, type AttachedAnswer, type IntentRequest } from './intents.ts';
import { outboundFromApi, type CreatedTransactionLike, type OutboundOperation } from './outbound.ts';
import { retryUnavailable, type RetryPolicy } from './retry.ts';

/** What @paykit/core-client's onTransactionIntent hands over (structurally: the ledger does not depend on the client). */
export interface TransactionIntentLike {
  operation: CreatedTransactionLike['operation'];
  clientId: string;
  idempotencyKey?: string;
  body: unknown;
}

/** What @paykit/core-client's onTransactionFailed hands over. */
export interface FailedTransactionLike {
  operation: CreatedTransactionLike['operation'];
  intentId: string | undefined;
  nothingMoved: boolean;
  error: unknown;
}

export interface TransactionRecorderOptions {
  expectedHolder?: (created: CreatedTransactionLike) => { name: string | null; rfc: string | null } | undefined;
  /** Who sends: kept with each intent (default: the OS user and host, `user@host`). */
  actor?: string;
  /** The clock of created_at and of the platform's window (default: the system clock). */
  now?: () => Date;
  /** How the writes are retried while the database is unreachable. */
  retry?: RetryPolicy;
  /** Told after each answer is recorded: which intent, whether it was a replay. */
  onRecorded?: (recorded: AttachedAnswer & { transactionId: string }) => void;
}

/** The three hooks of createCoreClient: spread them in (`createCoreClient({ ...recorder })`). */
export interface TransactionRecorderHooks {
  onTransactionIntent(intent: TransactionIntentLike): Promise<string>;
  onTransactionCreated(created: CreatedTransactionLike & { idempotencyKey?: string; intentId?: string }): Promise<void>;
  onTransactionFailed(failed: FailedTransactionLike): Promise<void>;
}

/** The recorder: a function usable as `onTransactionCreated` alone, carrying the three hooks to spread into createCoreClient. */
export type TransactionRecorder = TransactionRecorderHooks['onTransactionCreated'] & TransactionRecorderHooks;

const OPERATIONS: Record<CreatedTransactionLike['operation'], OutboundOperation> = {
  createPennyValidation: 'penny_validation',
  createMoneyOut: 'money_out',
  createInternalTransaction: 'internal_transaction',
};

/** `user@host` of this process, or the process title where the OS has no user for it. */
export function defaultActor(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    user = process.env.USER ?? process.title;
  }
  return `${user}@${os.hostname()}`;
}

/**
 * Every transfer written down before it is sent and attached to its transaction after:
 * `createCoreClient({ ...createTransactionRecorder(db, { actor: 'payouts-service' }) })`. Passed as
 * `onTransactionCreated` alone, it records answers only (no write-ahead).
 */
export function createTransactionRecorder(db: Database, options: TransactionRecorderOptions = {}): TransactionRecorder {
  const now = options.now ?? (() => new Date());
  const actor = options.actor ?? defaultActor();
  const onTransactionIntent = async (intent: TransactionIntentLike): Promise<string> => {
    const request = intentRequest(intent);
    // One id for every try: a retry after a commit whose answer was lost finds its own row.
    const id = randomUUID();
    const at = now();
    const written = await retryUnavailable(() => writeIntent(db, request, { actor, now: at, id }), options.retry);
    return written.intent.id;
  };
  const onTransactionCreated = async (
    created: CreatedTransactionLike & { idempotencyKey?: string; intentId?: string },
  ): Promise<void> => {
    const record = outboundFromApi(created);
    const holder = options.expectedHolder?.(created);
    if (holder) {
      record.expectedHolder = holder.name;
      record.expectedRfc = holder.rfc;
    }
    const attemptAt = now();
    const attached = await retryUnavailable(
      () => attachAnswer(db, { intentId: created.intentId, idempotencyKey: created.idempotencyKey, record, attemptAt }),
      options.retry,
    );
    options.onRecorded?.({ ...attached, transactionId: record.transactionId });
  };
  const onTransactionFailed = async (failed: FailedTransactionLike): Promise<void> => {
    if (!failed.nothingMoved || failed.intentId === undefined) return;
    const reason = failed.error instanceof Error ? failed.error.message : String(failed.error);
    const intentId = failed.intentId;
    await retryUnavailable(() => failIntent(db, intentId, reason, now()), options.retry);
  };
  return Object.assign(onTransactionCreated, { onTransactionIntent, onTransactionCreated, onTransactionFailed });
}

/** The intent of a request as the client hands it over: its amount, parties and reference read from the body. */
export function intentRequest(intent: TransactionIntentLike): IntentRequest {
  const operation = OPERATIONS[intent.operation];
  if (operation === undefined)
    throw new StoreInputError('operation must be createPennyValidation, createMoneyOut or createInternalTransaction');
  const body = object(intent.body, 'body');
  // Penny validation's body has no amount: it always sends 0.01 MXN.
  const money = operation === 'penny_validation' ? body : object(body.transaction_request, 'body.transaction_request');
  const amount = operation === 'penny_validation' ? '0.01' : money.amount;
  return {
    operation,
    clientId: text(intent.clientId) ?? '',
    idempotencyKey: operation === 'internal_transaction' ? null : (text(intent.idempotencyKey) ?? null),
    amount: typeof amount === 'string' ? amount : '',
    sourceInstrument: text(body.source_instrument_id) ?? '',
    destinationInstrument: text(body.destination_instrument_id) ?? '',
    externalReference: text(money.external_reference) ?? null,
    description: text(money.description) ?? null,
    request: intent.body,
  };
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new StoreInputError(`${field} must be an object (the request as it will be sent)`);
  return value as Record<string, unknown>;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
