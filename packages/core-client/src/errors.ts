// The core client's own errors, on top of the runtime's (ApiError and its subclasses). None of them
// carries a secret: messages name ids (client, credential, token record, request), never the
// client_secret, API key, bearer token or webhook token.
import { ConflictError, PaykitError, type DriftReport, type Environment } from '@paykit/runtime';

/**
 * Why authentication failed:
 * - `api-key-refused`: credential retrieval or token creation answered 401 (the API key);
 * - `no-active-credential`: credential retrieval found no ACTIVE credential (404, or only INACTIVE/deleted ones);
 * - `credential-inactive`: the credential the client would use is not ACTIVE;
 * - `credential-environment`: the credentials belong to another environment than the client's;
 * - `token-refused`: token creation refused the client id / secret / credential (400);
 * - `token-inactive`: token creation returned a token that is not ACTIVE;
 * - `unauthorized-after-refresh`: a call answered 401, the client created a new token, and the retry answered 401 again.
 */
export type AuthenticationFailure =
  | 'api-key-refused'
  | 'no-active-credential'
  | 'credential-inactive'
  | 'credential-environment'
  | 'token-refused'
  | 'token-inactive'
  | 'unauthorized-after-refresh';

export interface AuthenticationErrorDetails {
  reason: AuthenticationFailure;
  environment: Environment;
  clientId: string;
  credentialId?: string;
  tokenId?: string;
  operation?: string;
  status?: number;
  requestId?: string;
}

/** The core flow could not authenticate; the message says which of environment, client, credential, API key and token to check. */
export class AuthenticationError extends PaykitError {
  readonly reason: AuthenticationFailure;
  readonly environment: Environment;
  readonly clientId: string;
  readonly credentialId: string | undefined;
  readonly tokenId: string | undefined;
  readonly operation: string | undefined;
  readonly status: number | undefined;
  readonly requestId: string | undefined;

  constructor(message: string, details: AuthenticationErrorDetails, options?: { cause?: Error }) {
    super(message, options);
    this.reason = details.reason;
    this.environment = details.environment;
    this.clientId = details.clientId;
    this.credentialId = details.credentialId;
    this.tokenId = details.tokenId;
    this.operation = details.operation;
    this.status = details.status;
    this.requestId = details.requestId;
  }

  override toJSON(): Record<string, unknown> {
    const { reason, environment, clientId, credentialId, tokenId, operation, status, requestId } = this;
    return { ...super.toJSON(), reason, environment, clientId, credentialId, tokenId, operation, status, requestId };
  }
}

/** Which of the two conflicts a 409 of penny validation or money_out is (`unknown` when the platform's message says neither). */
export type IdempotencyConflictCase = 'different-payload' | 'in-progress' | 'unknown';

/** Penny validation or money_out answered 409 for its Idempotency-Key. A ConflictError, with which case it is and the key. */
export class IdempotencyConflictError extends ConflictError {
  readonly case: IdempotencyConflictCase;
  readonly idempotencyKey: string;
  /** True when the client derived the key from the payload (no `idempotencyKey` option was given). */
  readonly derivedKey: boolean;

  constructor(
    message: string,
    conflict: ConflictError,
    details: { case: IdempotencyConflictCase; idempotencyKey: string; derivedKey: boolean },
  ) {
    super(message, {
      status: conflict.status,
      body: conflict.body,
      requestId: conflict.requestId,
      product: conflict.product,
      operation: conflict.operation,
      headers: conflict.headers,
    });
    this.case = details.case;
    this.idempotencyKey = details.idempotencyKey;
    this.derivedKey = details.derivedKey;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), case: this.case, idempotencyKey: this.idempotencyKey, derivedKey: this.derivedKey };
  }
}

/**
 * `onTransactionIntent` threw: the intent of a transfer could not be written down, so nothing was
 * sent and no money moved. Safe to repeat once the cause (usually the database) is fixed.
 */
export class TransactionIntentError extends PaykitError {
  readonly operation: string;
  /** Always true: the error exists to say so. */
  readonly nothingSent = true;

  constructor(message: string, details: { operation: string }, options?: { cause?: Error }) {
    super(message, options);
    this.operation = details.operation;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), operation: this.operation, nothingSent: true };
  }
}

/**
 * The platform created the transaction, but `onTransactionCreated` threw. The transaction is on
 * `transaction`: record it from there and do NOT repeat the transfer (it was made).
 */
export class TransactionRecordingError extends PaykitError {
  readonly operation: string;
  readonly transaction: unknown;
  /** What onTransactionIntent returned for the request, when it was called: the intent is written down. */
  readonly intentId: string | undefined;
  readonly idempotencyKey: string | undefined;

  constructor(
    message: string,
    details: {
      operation: string;
      transaction: unknown;
      intentId?: string | undefined;
      idempotencyKey?: string | undefined;
    },
    options?: { cause?: Error },
  ) {
    super(message, options);
    this.operation = details.operation;
    this.transaction = details.transaction;
    this.intentId = details.intentId;
    this.idempotencyKey = details.idempotencyKey;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      operation: this.operation,
      transaction: this.transaction,
      intentId: this.intentId,
      idempotencyKey: this.idempotencyKey,
    };
  }
}

/**
 * Strict mode: the platform created the transaction (money moved), but its answer differs from the
 * spec. The transaction is on `transaction` (and was passed to onTransactionCreated); the
 * differences are on `reports`. Do NOT repeat the request.
 */
export class TransactionDriftError extends PaykitError {
  readonly operation: string;
  readonly transaction: unknown;
  readonly reports: DriftReport[];
  /** Always true: the error exists to say so. */
  readonly moneyMoved = true;

  constructor(message: string, details: { operation: string; transaction: unknown; reports: DriftReport[] }) {
    super(message);
    this.operation = details.operation;
    this.transaction = details.transaction;
    this.reports = details.reports;
  }

  override toJSON(): Record<string, unknown> {
    return {
      ...super.toJSON(),
      operation: this.operation,
      transaction: this.transaction,
      reports: this.reports,
      moneyMoved: true,
    };
  }
}

/** A webhook event body that cannot be read at all (not JSON, or not a JSON object). */
export class CoreEventError extends PaykitError {
  constructor(message: string, options?: { cause?: Error }) {
    super(message, options);
  }
}
