// The worker's configuration, read from environment variables at start-up: every bad value is
// named with what to set instead, all at once. DATABASE_URL (it may hold a password) and
// METRICS_TOKEN are never repeated.
import { DEFAULT_BATCH_SIZE } from '@paykit/ledger';
import * as z from 'zod';

export interface WorkerConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL: the client-side deadline of every statement and commit; past it the connection is dropped and the round retried. */
  databaseQueryTimeoutMs: number;
  /** PostgreSQL: how long opening a connection, or waiting for a free one, may take. */
  databaseConnectTimeoutMs: number;
  /** Events claimed per batch. */
  batchSize: number;
  /** How often an idle worker looks for new events. */
  pollMs: number;
  /** Pending items older than this are stale (`reconcile summary`). */
  staleAfterSeconds: number;
  /** How long a batch may hold its claimed events before PostgreSQL takes them back. */
  leaseSeconds: number;
  /** false: apply nothing, fetch no report file (another process applies events); the probes still answer. */
  apply: boolean;
  /** Fetching the files REPORT events announce; undefined without core credentials (nothing is fetched). */
  reports: ReportFetchConfig | undefined;
  /** /metrics answers only `Authorization: Bearer <token>`; undefined: /metrics is open. */
  metricsToken: string | undefined;
  /** The event store's upkeep: partitions made ahead, and months older than the retention archived (apps/reconciliation-worker/src/retention.ts). */
  retention: {
    /** Archive months that ended more than this many days ago; undefined: nothing is archived. */
    days: number | undefined;
    archiveDir: string;
    dedupeWindowDays: number;
    everyMs: number;
  };
  /** The lowest level logged (WORKER_LOG_LEVEL, default info). */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const MIN_TOKEN_LENGTH = 32;

export interface ReportFetchConfig {
  core: {
    environment: 'sandbox' | 'staging' | 'production';
    baseUrl: string | undefined;
    clientId: string;
    apiKey: string;
    clientSecret: string | undefined;
  };
  pollMs: number;
  timeoutMs: number;
  maxBytes: number;
  retryMaxMs: number;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `The reconciliation worker's configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee apps/reconciliation-worker/README.md for every variable.`,
    );
    this.problems = problems;
  }
}

const whole = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return fallback;
      const n = Number(value);
      if (!/^\d+$/.test(value) || n < min || n > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from ${min} to ${max}, got "${value.slice(0, 20)}"`,
        });
        return z.NEVER;
      }
      return n;
    });

const Env = z.object({
  WORKER_PORT: whole('WORKER_PORT', 4030, 0, 65_535),
  WORKER_HOST: z.string().min(1, 'WORKER_HOST must be an address to bind, such as 127.0.0.1').default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || value === '' || /^postgres(ql)?:\/\//.test(value),
      'DATABASE_URL must start with postgres:// (or be unset for PGlite)',
    ),
  PAYKIT_DATA_DIR: z.string().default('.data'),
  // A batch's statements take well under a second; one that gets no answer for 15 s is on a dead connection.
  DATABASE_QUERY_TIMEOUT_MS: whole('DATABASE_QUERY_TIMEOUT_MS', 15_000, 100, 600_000),
  DATABASE_CONNECT_TIMEOUT_MS: whole('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
  // 5,000 applies faster than 1,000 (fewer round trips per event) and holds a batch about a quarter of a second.
  WORKER_BATCH_SIZE: whole('WORKER_BATCH_SIZE', DEFAULT_BATCH_SIZE, 1, 50_000),
  WORKER_POLL_MS: whole('WORKER_POLL_MS', 500, 10, 600_000),
  WORKER_STALE_AFTER_SECONDS: whole('WORKER_STALE_AFTER_SECONDS', 86_400, 0, 31_536_000),
  WORKER_LEASE_SECONDS: whole('WORKER_LEASE_SECONDS', 60, 1, 3600),
  WORKER_APPLY: z.enum(['on', 'off'], { message: 'WORKER_APPLY must be "on" or "off"' }).default('on'),
  // The core client the report files are fetched with. Secrets: never repeated in a message.
  WORKER_CORE_ENVIRONMENT: z
    .enum(['sandbox', 'staging', 'production'], {
      message: 'WORKER_CORE_ENVIRONMENT must be sandbox, staging or production',
    })
    .default('sandbox'),
  WORKER_CORE_BASE_URL: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || value === '' || /^https?:\/\/[^\s]+$/.test(value),
      "WORKER_CORE_BASE_URL must be the core service's http(s) address, such as https://core.example.com",
    ),
  WORKER_CORE_CLIENT_ID: z
    .string()
    .optional()
    .refine(
      (value) =>
        value === undefined ||
        value === '' ||
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
      'WORKER_CORE_CLIENT_ID must be the client id (a UUID) issued at onboarding',
    ),
  WORKER_CORE_API_KEY: z.string().optional(),
  WORKER_CORE_CLIENT_SECRET: z.string().optional(),
  // Daily files arrive once a day: a minute is prompt enough, and few calls.
  WORKER_REPORT_POLL_MS: whole('WORKER_REPORT_POLL_MS', 60_000, 100, 86_400_000),
  WORKER_REPORT_TIMEOUT_MS: whole('WORKER_REPORT_TIMEOUT_MS', 30_000, 100, 600_000),
  WORKER_REPORT_MAX_BYTES: whole('WORKER_REPORT_MAX_BYTES', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  WORKER_REPORT_RETRY_MAX_SECONDS: whole('WORKER_REPORT_RETRY_MAX_SECONDS', 3600, 1, 86_400),
  // Unset: the store keeps every month. At least the dedupe window: an archived event's key goes with it.
  WORKER_RETENTION_DAYS: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || /^[1-9][0-9]{0,4}$/.test(value), {
      message: 'WORKER_RETENTION_DAYS must be a whole number of days (e.g. 90), or unset to keep every month',
    }),
  WORKER_ARCHIVE_DIR: z.string().min(1, 'WORKER_ARCHIVE_DIR must be a folder for the archive files').optional(),
  WORKER_DEDUPE_WINDOW_DAYS: whole('WORKER_DEDUPE_WINDOW_DAYS', 30, 1, 3650),
  WORKER_RETENTION_EVERY_MS: whole('WORKER_RETENTION_EVERY_MS', 3_600_000, 1000, 86_400_000),
  WORKER_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'WORKER_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  // A secret: its length is named in a problem, never its value.
  METRICS_TOKEN: z
    .string()
    .optional()
    .refine((value) => value === undefined || value.trim() === '' || value.trim().length >= MIN_TOKEN_LENGTH, {
      error: (issue) =>
        `METRICS_TOKEN is ${String(issue.input).trim().length} characters; use a random token of at least ${MIN_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`,
    }),
});

const set = (value: string | undefined): value is string => value !== undefined && value !== '';

function reportConfig(e: z.output<typeof Env>): { reports: ReportFetchConfig | undefined; problems: string[] } {
  const problems: string[] = [];
  const id = set(e.WORKER_CORE_CLIENT_ID);
  const key = set(e.WORKER_CORE_API_KEY);
  if (!id && !key) {
    if (set(e.WORKER_CORE_CLIENT_SECRET) || set(e.WORKER_CORE_BASE_URL))
      problems.push(
        'WORKER_CORE_CLIENT_ID and WORKER_CORE_API_KEY must be set to fetch report files (or unset the other WORKER_CORE_ variables)',
      );
    return { reports: undefined, problems };
  }
  if (!id)
    problems.push('WORKER_CORE_CLIENT_ID must be set with WORKER_CORE_API_KEY (the client id issued at onboarding)');
  if (!key)
    problems.push('WORKER_CORE_API_KEY must be set with WORKER_CORE_CLIENT_ID (the x-api-key issued at onboarding)');
  if (e.WORKER_CORE_ENVIRONMENT !== 'sandbox' && !set(e.WORKER_CORE_BASE_URL))
    problems.push(
      `WORKER_CORE_BASE_URL must be set for WORKER_CORE_ENVIRONMENT=${e.WORKER_CORE_ENVIRONMENT} (the platform's address is issued at onboarding)`,
    );
  if (problems.length > 0) return { reports: undefined, problems };
  return {
    problems,
    reports: {
      core: {
        environment: e.WORKER_CORE_ENVIRONMENT,
        baseUrl: set(e.WORKER_CORE_BASE_URL) ? e.WORKER_CORE_BASE_URL : undefined,
        clientId: e.WORKER_CORE_CLIENT_ID!,
        apiKey: e.WORKER_CORE_API_KEY!,
        clientSecret: set(e.WORKER_CORE_CLIENT_SECRET) ? e.WORKER_CORE_CLIENT_SECRET : undefined,
      },
      pollMs: e.WORKER_REPORT_POLL_MS,
      timeoutMs: e.WORKER_REPORT_TIMEOUT_MS,
      maxBytes: e.WORKER_REPORT_MAX_BYTES,
      retryMaxMs: e.WORKER_REPORT_RETRY_MAX_SECONDS * 1000,
    },
  };
}

export function loadConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((issue) => issue.message));
  const e = parsed.data;
  const { reports, problems } = reportConfig(e);
  const retentionDays = set(e.WORKER_RETENTION_DAYS) ? Number(e.WORKER_RETENTION_DAYS) : undefined;
  if (retentionDays !== undefined && retentionDays < e.WORKER_DEDUPE_WINDOW_DAYS)
    problems.push(
      `WORKER_RETENTION_DAYS (${retentionDays}) must be at least WORKER_DEDUPE_WINDOW_DAYS (${e.WORKER_DEDUPE_WINDOW_DAYS}): a month is archived only once a redelivery of its events is no longer expected`,
    );
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: e.WORKER_PORT,
    host: e.WORKER_HOST,
    databaseUrl: e.DATABASE_URL === '' ? undefined : e.DATABASE_URL,
    dataDir: e.PAYKIT_DATA_DIR,
    databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
    databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
    batchSize: e.WORKER_BATCH_SIZE,
    pollMs: e.WORKER_POLL_MS,
    staleAfterSeconds: e.WORKER_STALE_AFTER_SECONDS,
    leaseSeconds: e.WORKER_LEASE_SECONDS,
    apply: e.WORKER_APPLY === 'on',
    reports,
    metricsToken: e.METRICS_TOKEN?.trim() || undefined,
    retention: {
      days: retentionDays,
      archiveDir: e.WORKER_ARCHIVE_DIR ?? `${e.PAYKIT_DATA_DIR}/archive`,
      dedupeWindowDays: e.WORKER_DEDUPE_WINDOW_DAYS,
      everyMs: e.WORKER_RETENTION_EVERY_MS,
    },
    logLevel: e.WORKER_LOG_LEVEL,
  };
}
