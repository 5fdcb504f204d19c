// Outbound transactions: penny validation (with a derived Idempotency-Key), money_out and the
// deprecated internal_transaction (same body). Every transaction they return is handed to
// onTransactionCreated, so the worker and the CLI record what left.
import { ConflictError, idempotencyKey, invoke, toCentavos, type RequestOptions } from '@paykit/runtime';
import { createInternalTransaction, createMoneyOut, createPennyValidation } from './generated/sdk.gen.ts';
import type { CoreTransaction, MoneyOutTransaction, PennyValidationRequest } from './generated/types.gen.ts';
import {
  zCreateInternalTransactionResponse,
  zCreateMoneyOutResponse,
  zCreatePennyValidationResponse,
  zPennyValidationRequest,
} from './generated/zod.gen.ts';
import { bearerAuth, withToken, type ClientDeps } from './auth.ts';
import { IdempotencyConflictError, TransactionRecordingError, type IdempotencyConflictCase } from './errors.ts';
import type { CreatedTransaction } from './options.ts';

/** Penny validation's body; `client_id` defaults to the client's own. */
export type PennyValidationInput = Omit<PennyValidationRequest, 'client_id'> & { client_id?: string };

export interface PennyValidationOptions extends RequestOptions {
  /** A UUID to send as Idempotency-Key instead of the one derived from the request (same request → same key). */
  idempotencyKey?: string;
}

/**
 * The body of money_out and internal_transaction. The reference does not show it ("same body
 * structure" for both); these are the fields the sandbox reads, and the platform may read others:
 * extra fields are sent as given.
 */
export interface MoneyOutInput {
  /** Owner of the transaction; defaults to the client's own id. */
  client_id?: string;
  source_instrument_id: string;
  /** Decides the route: a platform account's instrument → INT_DEBIT (internal), anything else → SPEI_DEBIT. */
  destination_instrument_id: string;
  /** A decimal string with two decimals ("150.00"), never a number. */
  amount: string;
  currency?: 'MXN';
  /** Payment concept. */
  description?: string;
  /** Numeric, at most 7 digits. */
  external_reference?: string;
  /** Returned as `clientReference`. */
  client_reference?: string;
  [field: string]: unknown;
}

let internalTransactionWarned = false;

/**
 * Which conflict a 409 is. Only the platform's own words say it (the core error body's message
 * and details; the ApiError's message also carries a generic hint naming both cases, so it is not read).
 */
function conflictCase(error: ConflictError): IdempotencyConflictCase {
  const body = error.body as { message?: unknown } | null | undefined;
  const words = [
    typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : '',
    ...(error.details ?? []).map((d) => String(d.metadata?.error_detail ?? '')),
  ].join(' ');
  if (/in progress|in-progress|still running|still processing/i.test(words)) return 'in-progress';
  if (/payload|different|another|mismatch/i.test(words)) return 'different-payload';
  return 'unknown';
}

function conflictError(error: ConflictError, key: string, derivedKey: boolean): IdempotencyConflictError {
  const which = conflictCase(error);
  const what =
    which === 'different-payload'
      ? `Idempotency-Key ${key} was already used with a different payload. ${derivedKey ? 'The key was derived from this request, so the platform reads the earlier one as different where the key does not: pass an explicit idempotencyKey for this request.' : 'Send a new idempotencyKey for a different request, or omit it to derive one from the payload.'}`
      : which === 'in-progress'
        ? `the original request with Idempotency-Key ${key} is still in progress. Retry later with the same key: the platform then returns the original transaction.`
        : `Idempotency-Key ${key} conflicts with an earlier request (another payload, or one still in progress): retry later with the same key if this is the same request, or send a new key if it is a different one.`;
  return new IdempotencyConflictError(`core createPennyValidation: HTTP 409: ${what} (request ${error.requestId})`, error, { case: which, idempotencyKey: key, derivedKey });
}

async function record(deps: ClientDeps, created: CreatedTransaction): Promise<void> {
  const hook = deps.options.onTransactionCreated;
  if (!hook) return;
  try {
    await hook(created);
  } catch (error) {
    const id = (created.transaction as { id?: unknown } | null)?.id;
    throw new TransactionRecordingError(
      `core ${created.operation}: the platform created transaction ${typeof id === 'string' ? id : '(id not returned)'}, but onTransactionCreated failed: record it from error.transaction; do not repeat the request (the money has moved).`,
      { operation: created.operation, transaction: created.transaction },
      error instanceof Error ? { cause: error } : undefined,
    );
  }
}

/**
 * Sends 0.01 MXN to the destination instrument and starts its CEP lookup (register a CEP webhook
 * first). The Idempotency-Key is a UUID v5 of (client id, operation, body with its defaults), so a
 * retry of the same request — by the transport or by you — returns the same transaction.
 */
export async function pennyValidation(deps: ClientDeps, input: PennyValidationInput, options: PennyValidationOptions = {}): Promise<CoreTransaction> {
  const { options: client, sdk, ctx, tokens } = deps;
  const { idempotencyKey: givenKey, ...requestOptions } = options;
  const withClient = { ...input, client_id: input.client_id ?? client.clientId };
  // With the defaults filled in, "description omitted" and "description: 'Penny Validation'" are
  // the same request, as they are for the platform, and get the same key.
  const parsed = zPennyValidationRequest.safeParse(withClient);
  const body = (parsed.success ? parsed.data : withClient) as PennyValidationRequest;
  const key = givenKey ?? idempotencyKey({ clientId: client.clientId, operation: 'createPennyValidation', body }, client.idempotencyNamespace);
  let transaction: CoreTransaction;
  try {
    transaction = await withToken(deps, tokens, 'createPennyValidation', (token) =>
      invoke(
        ctx,
        'createPennyValidation',
        zCreatePennyValidationResponse,
        (extra) => createPennyValidation({ client: sdk, body, headers: { 'Idempotency-Key': key }, auth: bearerAuth(token), ...extra }),
        requestOptions,
      ),
    );
  } catch (error) {
    if (error instanceof ConflictError) throw conflictError(error, key, givenKey === undefined);
    throw error;
  }
  await record(deps, { operation: 'createPennyValidation', transaction, idempotencyKey: key });
  return transaction;
}

function transferBody(deps: ClientDeps, input: MoneyOutInput): MoneyOutInput {
  // Throws MoneyError ("amounts are decimal strings…") before anything is sent.
  toCentavos(input.amount);
  return { ...input, client_id: input.client_id ?? deps.options.clientId };
}

/**
 * The one endpoint for outbound transfers. The destination instrument decides the route: a
 * platform account → INT_DEBIT (internal, near-real-time, and a MONEY_IN INT_CREDIT for its owner
 * unless it is the same client and owner); anything else → SPEI_DEBIT. Not retried automatically
 * (the reference shows no Idempotency-Key for it).
 */
export async function moneyOut(deps: ClientDeps, input: MoneyOutInput, requestOptions?: RequestOptions): Promise<MoneyOutTransaction> {
  const { sdk, ctx, tokens } = deps;
  const body = transferBody(deps, input);
  const transaction = await withToken(deps, tokens, 'createMoneyOut', (token) =>
    invoke(ctx, 'createMoneyOut', zCreateMoneyOutResponse, (extra) => createMoneyOut({ client: sdk, body, auth: bearerAuth(token), ...extra }), requestOptions),
  );
  await record(deps, { operation: 'createMoneyOut', transaction });
  return transaction;
}

/**
 * @deprecated Since 2026-05-07: use `transactions.moneyOut` with the same body; it routes internal
 * transfers itself (INT_DEBIT). internal_transaction still works; its deadline is not announced.
 */
export async function internalTransaction(deps: ClientDeps, input: MoneyOutInput, requestOptions?: RequestOptions): Promise<unknown> {
  if (!internalTransactionWarned) {
    internalTransactionWarned = true;
    process.emitWarning('core internal_transaction is deprecated since 2026-05-07: call transactions.moneyOut with the same body; it routes internal transfers automatically (INT_DEBIT).', {
      type: 'DeprecationWarning',
      code: 'PAYKIT_CORE_INTERNAL_TRANSACTION',
    });
  }
  const { sdk, ctx, tokens } = deps;
  const body = transferBody(deps, input);
  const transaction = await withToken(deps, tokens, 'createInternalTransaction', (token) =>
    invoke(
      ctx,
      'createInternalTransaction',
      zCreateInternalTransactionResponse,
      (extra) => createInternalTransaction({ client: sdk, body, auth: bearerAuth(token), ...extra }),
      requestOptions,
    ),
  );
  await record(deps, { operation: 'createInternalTransaction', transaction });
  return transaction;
}
