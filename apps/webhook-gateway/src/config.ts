// The gateway's configuration, read from environment variables and validated at start-up: every
// bad or missing value is named with what to set instead, all at once, and no secret value is
// ever repeated in a message.
import { CORE_EVENT_TYPES, type CoreEventType } from '@paykit/contracts';
import { isValidClabe, isValidRfc, toCentavos } from '@paykit/domain';
import {
  ConfigError,
  type AppIdentity,
  type DatabaseConfig,
  databaseConfig,
  databaseEnv,
  durationMs,
  type LogLevel,
  logLevel,
  MIN_TOKEN_LENGTH,
  oneOf,
  port,
  secretToken,
  wholeNumber,
} from '@paykit/service';
import * as z from 'zod';
import { logFileProblem } from './logging.ts';

/**
 * A credit to an account the store does not know: `hold` (default) stores it and answers 202, for a
 * person to decide; `reject` refuses it (422: the platform refunds an external credit); `accept`
 * accepts it (201).
 */
export type UnknownAccountPolicy = 'hold' | 'reject' | 'accept';

export interface CoreAuthConfig {
  /** Accepted bearer tokens (two during a rotation). Empty with noAuth: deliveries carry none. */
  tokens: string[];
  /** auth_type NO_AUTH: the platform sends no Authorization header for this type. */
  noAuth: boolean;
}

export interface PolicyConfig {
  unknownAccount: UnknownAccountPolicy;
  /** Payer CLABEs and RFCs whose credits are refused (upper case). */
  denyPayers: string[];
  /** Credit limit (centavos) for accounts without their own; null: none. */
  defaultCreditLimitCentavos: bigint | null;
}

/** The database settings (its statement deadline: past it the connection is dropped, 503), and the rest. */
export interface GatewayConfig extends DatabaseConfig {
  port: number;
  host: string;
  core: Record<CoreEventType, CoreAuthConfig>;
  cash: { secretTokens: string[]; toleranceSeconds: number };
  /**
   * Direct debit: the accepted values of the Authorization header (two during a rotation). The
   * platform's documentation says only that each delivery carries the Authorization value set in
   * its portal; it shows no signature of the body. Empty: the route takes no deliveries.
   */
  directDebit: { authorizationValues: string[] };
  bodyLimitBytes: number;
  /**
   * How long a client may take to send its request headers, and its whole request, before the
   * gateway answers 408 and closes the connection: bounds slow clients (slowloris), which would
   * otherwise hold a connection for as long as they trickle bytes.
   */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** The longest a delivery waits for its commit before the gateway answers 503 (the platform waits 5 s). */
  commitTimeoutMs: number;
  policy: PolicyConfig;
  adminToken: string | undefined;
  /** /metrics answers only `Authorization: Bearer <token>`; undefined: /metrics is open. */
  metricsToken: string | undefined;
  logLevel: LogLevel;
  logFile: string | undefined;
}

export { ConfigError };

export const GATEWAY: AppIdentity = { name: 'webhook gateway', readme: 'apps/webhook-gateway/README.md' };

const ENV_SUFFIX: Record<CoreEventType, string> = {
  MONEY_IN: 'MONEY_IN',
  STATUS_UPDATE: 'STATUS_UPDATE',
  CEP: 'CEP',
  REFUND: 'REFUND',
  REPORT: 'REPORT',
};

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

// Shapes, and the single tokens by length; the webhook secrets are validated below. No secret is quoted.
const Env = z.object({
  GATEWAY_PORT: port('GATEWAY_PORT', 4020),
  GATEWAY_HOST: z.string().optional().default('127.0.0.1'),
  // Under the platform's 5 s: a statement that gets no answer for that long is on a dead connection.
  ...databaseEnv({ queryTimeoutMs: 5_000 }),
  GATEWAY_CASH_TOLERANCE_SECONDS: wholeNumber('GATEWAY_CASH_TOLERANCE_SECONDS', 300, 1, 86_400),
  GATEWAY_BODY_LIMIT_BYTES: wholeNumber('GATEWAY_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
  GATEWAY_COMMIT_TIMEOUT_MS: durationMs('GATEWAY_COMMIT_TIMEOUT_MS', 4_000, 100, 4_800),
  GATEWAY_HEADERS_TIMEOUT_MS: durationMs('GATEWAY_HEADERS_TIMEOUT_MS', 10_000, 500, 60_000),
  GATEWAY_REQUEST_TIMEOUT_MS: durationMs('GATEWAY_REQUEST_TIMEOUT_MS', 30_000, 500, 300_000),
  GATEWAY_UNKNOWN_ACCOUNT: oneOf(
    ['hold', 'reject', 'accept'],
    'hold',
    'GATEWAY_UNKNOWN_ACCOUNT must be "hold" (store the credit and hold it for review, the default), "reject" (refuse it: the platform refunds it) or "accept"',
  ),
  GATEWAY_LOG_LEVEL: logLevel('GATEWAY_LOG_LEVEL'),
  GATEWAY_LOG_FILE: z.string().optional(),
  GATEWAY_ADMIN_TOKEN: secretToken('GATEWAY_ADMIN_TOKEN'),
  METRICS_TOKEN: secretToken('METRICS_TOKEN'),
});

/** Reads the configuration from `env` (process.env by default); throws ConfigError naming every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const problems: string[] = [];
  const parsed = Env.safeParse(env);
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      problems.push(
        issue.path.length && !issue.message.includes(String(issue.path[0]))
          ? `${String(issue.path[0])}: ${issue.message}`
          : issue.message,
      );

  const core = {} as Record<CoreEventType, CoreAuthConfig>;
  const noAuth = new Set(list(env.GATEWAY_CORE_NO_AUTH).map((t) => t.toUpperCase()));
  for (const type of noAuth) {
    if (!(CORE_EVENT_TYPES as string[]).includes(type))
      problems.push(
        `GATEWAY_CORE_NO_AUTH names "${type.slice(0, 32)}", which is not a core event type (${CORE_EVENT_TYPES.join(', ')})`,
      );
  }
  for (const type of CORE_EVENT_TYPES) {
    const name = `GATEWAY_CORE_TOKENS_${ENV_SUFFIX[type]}`;
    const tokens = list(env[name]);
    if (tokens.length > 2)
      problems.push(`${name} holds ${tokens.length} tokens: give one, or two during a rotation (comma-separated)`);
    tokens.forEach((token, i) => {
      if (token.length < MIN_TOKEN_LENGTH)
        problems.push(
          `${name}: token ${i + 1} is ${token.length} characters; webhook tokens are random and at least ${MIN_TOKEN_LENGTH} bytes (paykit generates them when registering)`,
        );
    });
    if (tokens.length > 0 && noAuth.has(type))
      problems.push(
        `${type} is both in GATEWAY_CORE_NO_AUTH and has tokens in ${name}: choose one (the webhook's auth_type)`,
      );
    core[type] = { tokens, noAuth: noAuth.has(type) };
  }

  const cashSecrets = list(env.GATEWAY_CASH_SECRET_TOKENS);
  cashSecrets.forEach((secret, i) => {
    if (!/^[0-9a-fA-F]{64}$/.test(secret))
      problems.push(
        `GATEWAY_CASH_SECRET_TOKENS: secret ${i + 1} is not 64 hexadecimal characters (the secret_token returned when the cash webhook was created)`,
      );
  });
  const directDebitValues = list(env.GATEWAY_DIRECT_DEBIT_TOKENS);
  if (directDebitValues.length > 2)
    problems.push(
      `GATEWAY_DIRECT_DEBIT_TOKENS holds ${directDebitValues.length} values: give one, or two during a rotation (comma-separated)`,
    );
  directDebitValues.forEach((value, i) => {
    if (value.length < MIN_TOKEN_LENGTH)
      problems.push(
        `GATEWAY_DIRECT_DEBIT_TOKENS: value ${i + 1} is ${value.length} characters; the Authorization value set in the direct debit portal is a secret: make it random and at least ${MIN_TOKEN_LENGTH} characters`,
      );
  });
  const denyPayers = list(env.GATEWAY_DENY_PAYERS).map((p) => p.toUpperCase());
  for (const payer of denyPayers) {
    if (!isValidClabe(payer) && !isValidRfc(payer))
      problems.push(
        `GATEWAY_DENY_PAYERS: "${payer.slice(0, 24)}" is neither a valid CLABE (18 digits with its control digit) nor an RFC`,
      );
  }
  let defaultCreditLimitCentavos: bigint | null = null;
  const limit = env.GATEWAY_CREDIT_LIMIT?.trim();
  if (limit) {
    try {
      defaultCreditLimitCentavos = toCentavos(limit);
      if (defaultCreditLimitCentavos <= 0n) problems.push('GATEWAY_CREDIT_LIMIT must be above 0.00');
    } catch {
      problems.push(
        `GATEWAY_CREDIT_LIMIT must be an amount in pesos with two decimals, e.g. "50000.00" (got "${limit.slice(0, 24)}")`,
      );
    }
  }

  const configuredTypes = CORE_EVENT_TYPES.filter((type) => core[type].tokens.length > 0 || core[type].noAuth);
  if (configuredTypes.length === 0 && cashSecrets.length === 0 && directDebitValues.length === 0) {
    problems.push(
      'nothing to receive: set GATEWAY_CORE_TOKENS_<TYPE> (MONEY_IN, STATUS_UPDATE, CEP, REFUND, REPORT) to the token registered with each core webhook, ' +
        'GATEWAY_CORE_NO_AUTH for types registered with auth_type NO_AUTH, GATEWAY_CASH_SECRET_TOKENS, and/or GATEWAY_DIRECT_DEBIT_TOKENS',
    );
  }
  if (parsed.success && parsed.data.GATEWAY_HEADERS_TIMEOUT_MS > parsed.data.GATEWAY_REQUEST_TIMEOUT_MS) {
    // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
    problems.push(
      `GATEWAY_HEADERS_TIMEOUT_MS (${parsed.data.GATEWAY_HEADERS_TIMEOUT_MS}) must not exceed GATEWAY_REQUEST_TIMEOUT_MS (${parsed.data.GATEWAY_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  const logFile = parsed.success ? parsed.data.GATEWAY_LOG_FILE?.trim() : undefined;
  if (logFile) {
    const problem = logFileProblem(logFile);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(GATEWAY, problems);
  const e = parsed.data;
  return {
    port: e.GATEWAY_PORT,
    host: e.GATEWAY_HOST,
    ...databaseConfig(e),
    core,
    cash: { secretTokens: cashSecrets.map((s) => s.toLowerCase()), toleranceSeconds: e.GATEWAY_CASH_TOLERANCE_SECONDS },
    directDebit: { authorizationValues: directDebitValues },
    bodyLimitBytes: e.GATEWAY_BODY_LIMIT_BYTES,
    headersTimeoutMs: e.GATEWAY_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.GATEWAY_REQUEST_TIMEOUT_MS,
    commitTimeoutMs: e.GATEWAY_COMMIT_TIMEOUT_MS,
    policy: { unknownAccount: e.GATEWAY_UNKNOWN_ACCOUNT, denyPayers, defaultCreditLimitCentavos },
    adminToken: e.GATEWAY_ADMIN_TOKEN,
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.GATEWAY_LOG_LEVEL,
    logFile: e.GATEWAY_LOG_FILE?.trim() || undefined,
  };
}
