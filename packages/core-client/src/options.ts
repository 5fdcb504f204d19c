// What createCoreClient takes, and the checks made before the first request. Messages name the
// option and what is expected, never the value (apiKey and clientSecret are secrets).
import { type ClientOptions, ConfigurationError, IDEMPOTENCY_NAMESPACES, type Environment } from '@paykit/runtime';
import type {
  CoreTransaction,
  MoneyOutRequest,
  MoneyOutTransaction,
  PennyValidationRequest,
} from './generated/types.gen.ts';
import type { TokenStore } from './token-store.ts';

/**
 * A transaction the platform returned from money_out, internal_transaction or penny validation.
 * `intentId` is what onTransactionIntent returned for the request, so the answer can be attached
 * to the intent written before it was sent.
 */
export type CreatedTransaction =
  | { operation: 'createPennyValidation'; transaction: CoreTransaction; idempotencyKey: string; intentId?: string }
  | { operation: 'createMoneyOut'; transaction: MoneyOutTransaction; idempotencyKey: string; intentId?: string }
  /** internal_transaction answers its debit leg, as money_out does. */
  | { operation: 'createInternalTransaction'; transaction: MoneyOutTransaction; intentId?: string };

/**
 * A request that moves money, before it is sent: the body exactly as it will be sent and the
 * Idempotency-Key it carries (internal_transaction has none: the platform does not honour one).
 */
export type TransactionIntent =
  | { operation: 'createPennyValidation'; clientId: string; idempotencyKey: string; body: PennyValidationRequest }
  | { operation: 'createMoneyOut'; clientId: string; idempotencyKey: string; body: MoneyOutRequest }
  | { operation: 'createInternalTransaction'; clientId: string; body: MoneyOutRequest };

/**
 * A request announced by onTransactionIntent that produced no transaction. `nothingMoved` is true
 * only when the platform answered with an error that creates nothing (a 4xx other than a 409 for a
 * first request still in progress); a network error, a timeout or a 5xx leaves it unknown.
 */
export interface FailedTransaction {
  operation: TransactionIntent['operation'];
  intentId: string | undefined;
  idempotencyKey: string | undefined;
  nothingMoved: boolean;
  error: unknown;
}

export interface CoreClientOptions extends ClientOptions {
  /** The client id (UUID) issued at onboarding. */
  clientId: string;
  /** The x-api-key issued at onboarding for this environment. Secret. */
  apiKey: string;
  /**
   * The credential's client_secret. When omitted, the client retrieves the credentials with the
   * API key, checks that one is ACTIVE and of this environment, and uses it. Secret.
   */
  clientSecret?: string;
  /** Where tokens are cached (default: in memory). Share one store between processes to share one token. */
  tokenStore?: TokenStore;
  /** Create a new token this many seconds before `expires_at` (default 300). */
  refreshMarginSeconds?: number;
  /**
   * UUID namespace of derived Idempotency-Keys (penny validation, money_out). The platform's
   * namespace per environment is not published: set it when the platform gives you one (default
   * IDEMPOTENCY_NAMESPACES[environment]).
   */
  idempotencyNamespace?: string;
  /**
   * Called with every transaction that penny validation, money_out and internal_transaction
   * return (a replayed penny validation too: dedupe by transaction id). Awaited; if it throws,
   * the call throws TransactionRecordingError carrying the transaction.
   */
  onTransactionCreated?: (created: CreatedTransaction) => void | Promise<void>;
  /**
   * Called before penny validation, money_out and internal_transaction send anything, with the
   * request and its Idempotency-Key: write it down here (write-ahead), so a transfer whose answer is
   * lost can be found and resolved. Awaited; if it throws, nothing is sent and the call throws
   * TransactionIntentError. A string it returns is handed on as `intentId` to onTransactionCreated
   * and onTransactionFailed.
   */
  onTransactionIntent?: (intent: TransactionIntent) => string | void | Promise<string | void>;
  /** Called when a request announced by onTransactionIntent produced no transaction (awaited; what it throws is ignored: the call's own error is the one thrown). */
  onTransactionFailed?: (failed: FailedTransaction) => void | Promise<void>;
  /** The clock token expiry is checked against (default: the system clock). */
  now?: () => Date;
}

const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'staging', 'production'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TOKEN_LIFETIME_SECONDS = 24 * 3600;

export interface ResolvedCoreOptions extends CoreClientOptions {
  refreshMarginSeconds: number;
  idempotencyNamespace: string;
  now: () => Date;
}

/** Checks the options and fills the defaults; throws ConfigurationError naming the option at fault. */
export function resolveCoreOptions(options: CoreClientOptions): ResolvedCoreOptions {
  const problems: string[] = [];
  if (!ENVIRONMENTS.includes(options.environment))
    problems.push(`environment must be one of ${ENVIRONMENTS.join(', ')}`);
  if (typeof options.clientId !== 'string' || !UUID.test(options.clientId))
    problems.push('clientId must be the client id (a UUID) issued at onboarding');
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '')
    problems.push('apiKey must be the x-api-key issued at onboarding for this environment');
  if (
    options.clientSecret !== undefined &&
    (typeof options.clientSecret !== 'string' || options.clientSecret.trim() === '')
  ) {
    problems.push(
      'clientSecret, when given, must be the non-empty client_secret of an ACTIVE credential (or omit it to retrieve it with the API key)',
    );
  }
  const margin = options.refreshMarginSeconds ?? 300;
  if (!Number.isFinite(margin) || margin < 0 || margin >= TOKEN_LIFETIME_SECONDS) {
    problems.push(
      `refreshMarginSeconds must be a number of seconds from 0 to below ${TOKEN_LIFETIME_SECONDS} (tokens are valid 24 hours)`,
    );
  }
  if (options.idempotencyNamespace !== undefined && !UUID.test(options.idempotencyNamespace))
    problems.push('idempotencyNamespace must be a UUID');
  if (
    options.tokenStore !== undefined &&
    (typeof options.tokenStore.get !== 'function' || typeof options.tokenStore.set !== 'function')
  ) {
    problems.push('tokenStore must implement get(key), set(key, token) and delete(key)');
  }
  if (problems.length > 0) throw new ConfigurationError(`createCoreClient: ${problems.join('; ')}.`);
  return {
    ...options,
    refreshMarginSeconds: margin,
    idempotencyNamespace: options.idempotencyNamespace ?? IDEMPOTENCY_NAMESPACES[options.environment],
    now: options.now ?? (() => new Date()),
  };
}
