// Outbound transactions: penny validation and money_out, each with a derived Idempotency-Key, and
// the deprecated internal_transaction (same body, no key: never repeated once sent). Each request
// is handed to onTransactionIntent before it is sent (write-ahead: a transfer whose answer is lost
// is still known), and every transaction they return to onTransactionCreated, so the worker and
// the CLI record what left; strict mode's DriftError never hides a transaction that was created.
import {
  ApiError,
  bodyHashIdempotencyKey,
  ConflictError,
  DriftError,
  idempotencyKey,
  invoke,
  RequestValidationError,
  type RequestOptions,
} from '@paykit/runtime';
import { toCentavos } from '@paykit/domain';
import { createInternalTransaction, createMoneyOut, createPennyValidation } from './generated/sdk.gen.ts';
import type {
  CoreTransaction,
  MoneyOutRequest,
  MoneyOutTransaction,
  PennyValidationRequest,
} from './generated/types.gen.ts';
import {
  zCreateInternalTransactionResponse,
  zCreateMoneyOutResponse,
  zCreatePennyValidationResponse,
  zPennyValidationRequest,
} from './generated/zod.gen.ts';
import { bearerAuth, withToken, type ClientDeps } from './auth.ts';
import {
  IdempotencyConflictError,
  TransactionDriftError,
  TransactionIntentError,
  TransactionRecordingError,
  type IdempotencyConflictCase,
} from './errors.ts';
import type { CreatedTransaction, TransactionIntent } from './options.ts';

/** Penny validation's body; `client_id` defaults to the client's own. */
export type PennyValidationInput = Omit<PennyValidationRequest, 'client_id'> & { client_id?: string };

export interface PennyValidationOptions extends RequestOptions {
  /** A UUID to send as Idempotency-Key instead of the one derived from the request (same request → same key). */
  idempotencyKey?: string;
}

/**
 * The body of money_out and internal_transaction, generated from the spec (the documented nested
 * body: the money in `transaction_request`); `client_id` defaults to the client's own.
 */
export type MoneyOutInput = Omit<MoneyOutRequest, 'client_id'> & { client_id?: string };

export interface MoneyOutOptions extends RequestOptions {
  /**
   * A UUID to send as Idempotency-Key instead of the one derived from the request. Use the same
   * key for every attempt of one transfer, and a new one for a different transfer.
   */
  idempotencyKey?: string;
}

type KeyedOperation = 'createPennyValidation' | 'createMoneyOut';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let internalTransactionWarned = false;

/**
 * Which conflict a 409 is. Only the platform's own words say it (the core error body's message
 * and details; the ApiError's message also carries a generic hint naming both cases, so it is not read).
 */
function conflictCase(error: ConflictError): IdempotencyConflictCase {
  const body = error.body as { message?: unknown } | null | undefined;
  const words = [
    typeof body === 'string' ? body : typeof body?.message === 'string' ? body.message : '',
    ...(error.details ?? []).map((d) => `${d.reason} ${String(d.metadata?.error_detail ?? '')}`),
  ].join(' ');
  if (/operation_in_progress|in progress|in-progress|still running|still processing/i.test(words)) return 'in-progress';
  if (/payload|different|another|mismatch/i.test(words)) return 'different-payload';
  return 'unknown';
}

function conflictError(
  operation: KeyedOperation,
  error: ConflictError,
  key: string,
  derivedKey: boolean,
): IdempotencyConflictError {
  const which = conflictCase(error);
  const what =
    which === 'different-payload'
      ? `Idempotency-Key ${key} was already used with a different payload. ${derivedKey ? 'The key was derived from this request, so the platform reads the earlier one as different where the key does not: pass an explicit idempotencyKey for this request.' : 'Send a new idempotencyKey for a different request, or omit it to derive one from the payload.'}`
      : which === 'in-progress'
        ? `the original request with Idempotency-Key ${key} is still in progress. Retry later with the same key: the platform then returns the original transaction.`
        : `Idempotency-Key ${key} conflicts with an earlier request (another payload, or one still in progress): retry later with the same key if this is the same request, or send a new key if it is a different one.`;
  return new IdempotencyConflictError(`core ${operation}: HTTP 409: ${what} (request ${error.requestId})`, error, {
    case: which,
    idempotencyKey: key,
    derivedKey,
  });
}

async function record(deps: ClientDeps, created: CreatedTransaction): Promise<void> {
  const hook = deps.options.onTransactionCreated;
  if (!hook) return;
  try {
    await hook(created);
  } catch (error) {
    const id = (created.transaction as { id?: unknown } | null)?.id;
    const key = 'idempotencyKey' in created ? created.idempotencyKey : undefined;
    // With a key, repeating the request is how the answer is fetched again: the platform replays it.
    const repeat =
      key === undefined
        ? 'do not repeat the request (the money has moved; internal_transaction has no Idempotency-Key)'
        : `the money has moved once: repeating the same request with Idempotency-Key ${key} within 24 h returns this transaction and moves nothing`;
    throw new TransactionRecordingError(
      `core ${created.operation}: the platform created transaction ${typeof id === 'string' ? id : '(id not returned)'}, but onTransactionCreated failed: record it from error.transaction; ${repeat}.`,
      {
        operation: created.operation,
        transaction: created.transaction,
        intentId: created.intentId,
        idempotencyKey: key,
      },
      error instanceof Error ? { cause: error } : undefined,
    );
  }
}

/** Hands the request to onTransactionIntent before anything is sent; when that fails, nothing is sent. */
async function announce(deps: ClientDeps, intent: TransactionIntent): Promise<string | undefined> {
  const hook = deps.options.onTransactionIntent;
  if (!hook) return undefined;
  try {
    const id = await hook(intent);
    return typeof id === 'string' ? id : undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TransactionIntentError(
      `core ${intent.operation}: nothing was sent and no money moved: the transfer could not be written down before sending (onTransactionIntent failed: ${reason}). Repeat it once that is fixed.`,
      { operation: intent.operation },
      error instanceof Error ? { cause: error } : undefined,
    );
  }
}

/**
 * Whether an error proves the platform created nothing: it answered a client error, or the
 * request never left. A 409 for a first request still in progress, a 5xx, a timeout or a lost
 * connection leave it unknown.
 */
function nothingMoved(error: unknown): boolean {
  if (error instanceof RequestValidationError) return true;
  if (error instanceof IdempotencyConflictError) return error.case === 'different-payload';
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 409;
}

/** Sends a request announced to onTransactionIntent, telling onTransactionFailed when it produced no transaction. */
async function sendAnnounced<T>(
  deps: ClientDeps,
  intent: TransactionIntent,
  send: (intentId: string | undefined) => Promise<T>,
): Promise<T> {
  const intentId = await announce(deps, intent);
  try {
    return await send(intentId);
  } catch (error) {
    const hook = deps.options.onTransactionFailed;
    // A created transaction is never reported as failed: it was handed to onTransactionCreated.
    if (hook && !(error instanceof TransactionRecordingError) && !(error instanceof TransactionDriftError)) {
      try {
        await hook({
          operation: intent.operation,
          intentId,
          idempotencyKey: 'idempotencyKey' in intent ? intent.idempotencyKey : undefined,
          nothingMoved: nothingMoved(error),
          error,
        });
      } catch {
        // The call's own error says what happened to the money; the hook's would hide it.
      }
    }
    throw error;
  }
}

/**
 * Calls a transaction-creating operation. In strict mode a DriftError means the platform answered
 * (so the money moved) in a shape the spec does not describe: the transaction is recorded and
 * thrown inside TransactionDriftError, never dropped.
 */
async function created<T>(
  deps: ClientDeps,
  operation: CreatedTransaction['operation'],
  idempotencyKey: string | undefined,
  intentId: string | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof DriftError)) throw error;
    const transaction = error.received;
    const entry = {
      operation,
      transaction,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      ...(intentId !== undefined ? { intentId } : {}),
    } as CreatedTransaction;
    await record(deps, entry);
    const id = (transaction as { id?: unknown } | null)?.id;
    throw new TransactionDriftError(
      `core ${operation}: money moved: the platform created transaction ${typeof id === 'string' ? id : '(id not returned)'}, but its answer differs from the spec (strict mode): ${error.message}. The transaction is on error.transaction (and was passed to onTransactionCreated); do not repeat the request.`,
      { operation, transaction, reports: error.reports },
    );
  }
}

/**
 * A keyed operation: the token handled, strict mode's drift kept (created), a 409 made the typed
 * conflict naming the key and whether it was derived.
 */
async function sendKeyed<T>(
  deps: ClientDeps,
  operation: KeyedOperation,
  key: string,
  givenKey: string | undefined,
  intentId: string | undefined,
  call: (token: string, requestOptions: RequestOptions | undefined) => Promise<T>,
  requestOptions: RequestOptions,
): Promise<T> {
  try {
    return await created(deps, operation, key, intentId, () =>
      withToken(deps, deps.tokens, operation, call, requestOptions),
    );
  } catch (error) {
    if (error instanceof ConflictError) throw conflictError(operation, error, key, givenKey === undefined);
    throw error;
  }
}

/** A keyed operation announced first, its transaction recorded after: penny validation and money_out. */
async function keyedTransfer<T>(
  deps: ClientDeps,
  intent: Extract<TransactionIntent, { idempotencyKey: string }>,
  givenKey: string | undefined,
  call: (token: string, requestOptions: RequestOptions | undefined) => Promise<T>,
  requestOptions: RequestOptions,
): Promise<T> {
  const { operation, idempotencyKey } = intent;
  return sendAnnounced(deps, intent, async (intentId) => {
    const transaction = await sendKeyed(deps, operation, idempotencyKey, givenKey, intentId, call, requestOptions);
    await record(deps, { operation, transaction, idempotencyKey, intentId } as CreatedTransaction);
    return transaction;
  });
}

/**
 * Sends 0.01 MXN to the destination instrument and starts its CEP lookup (register a CEP webhook
 * first). The Idempotency-Key is a UUID v5 of (client id, operation, body with its defaults), so a
 * retry of the same request — by the transport or by you — returns the same transaction.
 */
export async function pennyValidation(
  deps: ClientDeps,
  input: PennyValidationInput,
  options: PennyValidationOptions = {},
): Promise<CoreTransaction> {
  const { options: client, sdk, ctx } = deps;
  const { idempotencyKey: givenKey, ...requestOptions } = options;
  const withClient = { ...input, client_id: input.client_id ?? client.clientId };
  // With the defaults filled in, "description omitted" and "description: 'Penny Validation'" are
  // the same request, as they are for the platform, and get the same key.
  const parsed = zPennyValidationRequest.safeParse(withClient);
  const body = (parsed.success ? parsed.data : withClient) as PennyValidationRequest;
  const key =
    givenKey ??
    idempotencyKey(
      { clientId: client.clientId, operation: 'createPennyValidation', body },
      client.idempotencyNamespace,
    );
  const intent = { operation: 'createPennyValidation' as const, clientId: body.client_id, idempotencyKey: key, body };
  const call = (token: string, callOptions: RequestOptions | undefined) =>
    invoke(
      ctx,
      'createPennyValidation',
      zCreatePennyValidationResponse,
      (extra) =>
        createPennyValidation({
          client: sdk,
          body,
          headers: { 'Idempotency-Key': key },
          auth: bearerAuth(token),
          ...extra,
        }),
      callOptions,
    );
  return keyedTransfer(deps, intent, givenKey, call, requestOptions);
}

function transferBody(deps: ClientDeps, input: MoneyOutInput, operation: string): MoneyOutRequest {
  const request = (input as { transaction_request?: unknown } | null)?.transaction_request;
  if (request === null || typeof request !== 'object') {
    const flat = input !== null && typeof input === 'object' && 'amount' in input;
    throw new RequestValidationError(
      `core ${operation}: the body needs transaction_request: { amount, currency, description, external_reference }${flat ? ' (this one is flat, with amount at the top level: move amount, currency, description and external_reference into transaction_request; `paykit migrate` rewrites such calls)' : ''}. Nothing was sent.`,
      [
        {
          path: ['transaction_request'],
          message: 'required: an object with amount, currency, description and external_reference',
        },
      ],
    );
  }
  // Throws MoneyError ("amounts are decimal strings…") before anything is sent.
  toCentavos((request as { amount?: unknown }).amount as string);
  return { ...input, client_id: input.client_id ?? deps.options.clientId };
}

/**
 * The one endpoint for outbound transfers. The destination instrument decides the route: a
 * platform account → INT_DEBIT (internal, near-real-time, and a MONEY_IN INT_CREDIT for its owner
 * unless it is the same client and owner); anything else → SPEI_DEBIT. Sent with an
 * Idempotency-Key (derived from client id, operation and body unless given), so an attempt whose
 * answer was lost is repeated with the same key and the platform moves the money once. 409 →
 * IdempotencyConflictError.
 */
export async function moneyOut(
  deps: ClientDeps,
  input: MoneyOutInput,
  options: MoneyOutOptions = {},
): Promise<MoneyOutTransaction> {
  const { sdk, ctx, options: client } = deps;
  const { idempotencyKey: givenKey, ...requestOptions } = options;
  const body = transferBody(deps, input, 'createMoneyOut');
  if (givenKey !== undefined && !UUID.test(givenKey)) {
    throw new RequestValidationError(
      'core createMoneyOut: idempotencyKey must be a UUID (the platform answers 400 to anything else); omit it to derive one from the request. Nothing was sent.',
      [{ path: ['idempotencyKey'], message: 'must be a UUID' }],
    );
  }
  const key =
    givenKey ??
    bodyHashIdempotencyKey({ clientId: body.client_id, method: 'money_out', body }, client.idempotencyNamespace);
  const intent = { operation: 'createMoneyOut' as const, clientId: body.client_id, idempotencyKey: key, body };
  const call = (token: string, callOptions: RequestOptions | undefined) =>
    invoke(
      ctx,
      'createMoneyOut',
      zCreateMoneyOutResponse,
      (extra) =>
        createMoneyOut({ client: sdk, body, headers: { 'Idempotency-Key': key }, auth: bearerAuth(token), ...extra }),
      callOptions,
    );
  return keyedTransfer(deps, intent, givenKey, call, requestOptions);
}

/**
 * @deprecated Since 2026-05-07: use `transactions.moneyOut` with the same body; it routes internal
 * transfers itself (INT_DEBIT) and is deduplicated by its Idempotency-Key. internal_transaction is
 * not documented to honour a key, so it is never repeated once it may have reached the platform.
 */
export async function internalTransaction(
  deps: ClientDeps,
  input: MoneyOutInput,
  requestOptions?: RequestOptions,
): Promise<MoneyOutTransaction> {
  if (!internalTransactionWarned) {
    internalTransactionWarned = true;
    process.emitWarning(
      'core internal_transaction is deprecated since 2026-05-07: call transactions.moneyOut with the same body; it routes internal transfers automatically (INT_DEBIT).',
      {
        type: 'DeprecationWarning',
        code: 'PAYKIT_CORE_INTERNAL_TRANSACTION',
      },
    );
  }
  const { sdk, ctx, tokens } = deps;
  const body = transferBody(deps, input, 'createInternalTransaction');
  const intent = { operation: 'createInternalTransaction' as const, clientId: body.client_id, body };
  return sendAnnounced(deps, intent, async (intentId) => {
    const transaction = await created(deps, 'createInternalTransaction', undefined, intentId, () =>
      withToken(
        deps,
        tokens,
        'createInternalTransaction',
        (token, callOptions) =>
          invoke(
            ctx,
            'createInternalTransaction',
            zCreateInternalTransactionResponse,
            (extra) => createInternalTransaction({ client: sdk, body, auth: bearerAuth(token), ...extra }),
            callOptions,
          ),
        requestOptions,
      ),
    );
    await record(deps, { operation: 'createInternalTransaction', transaction, intentId });
    return transaction;
  });
}
