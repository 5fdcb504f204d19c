// Outbound transactions: penny validation and money_out, each with a derived Idempotency-Key, and
// the deprecated internal_transaction (same body, no key: never repeated once sent). Every
// transaction they return is handed to onTransactionCreated, so the worker and the CLI record
// what left; strict mode's DriftError never hides a transaction that was created.
import {
  bodyHashIdempotencyKey,
  ConflictError,
  DriftError,
  idempotencyKey,
  invoke,
  RequestValidationError,
  toCentavos,
  type RequestOptions,
} from '@paykit/runtime';
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
  TransactionRecordingError,
  type IdempotencyConflictCase,
} from './errors.ts';
import type { CreatedTransaction } from './options.ts';

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
    throw new TransactionRecordingError(
      `core ${created.operation}: the platform created transaction ${typeof id === 'string' ? id : '(id not returned)'}, but onTransactionCreated failed: record it from error.transaction; do not repeat the request (the money has moved).`,
      { operation: created.operation, transaction: created.transaction },
      error instanceof Error ? { cause: error } : undefined,
    );
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
  call: (token: string, requestOptions: RequestOptions | undefined) => Promise<T>,
  requestOptions: RequestOptions,
): Promise<T> {
  try {
    return await created(deps, operation, key, () => withToken(deps, deps.tokens, operation, call, requestOptions));
  } catch (error) {
    if (error instanceof ConflictError) throw conflictError(operation, error, key, givenKey === undefined);
    throw error;
  }
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
  const transaction = await sendKeyed(
    deps,
    'createPennyValidation',
    key,
    givenKey,
    (token, callOptions) =>
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
      ),
    requestOptions,
  );
  await record(deps, { operation: 'createPennyValidation', transaction, idempotencyKey: key });
  return transaction;
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
  const transaction = await sendKeyed(
    deps,
    'createMoneyOut',
    key,
    givenKey,
    (token, callOptions) =>
      invoke(
        ctx,
        'createMoneyOut',
        zCreateMoneyOutResponse,
        (extra) =>
          createMoneyOut({ client: sdk, body, headers: { 'Idempotency-Key': key }, auth: bearerAuth(token), ...extra }),
        callOptions,
      ),
    requestOptions,
  );
  await record(deps, { operation: 'createMoneyOut', transaction, idempotencyKey: key });
  return transaction;
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
  const transaction = await created(deps, 'createInternalTransaction', undefined, () =>
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
  await record(deps, { operation: 'createInternalTransaction', transaction });
  return transaction;
}
