// The worker's configuration, read from environment variables at start-up: every bad value is
// named with what to set instead, all at once. DATABASE_URL (it may hold a password) and
// METRICS_TOKEN are never repeated.
import { DEFAULT_BATCH_SIZE } from '@paykit/ledger';
import {
  ConfigError,
  type AppIdentity,
  type DatabaseConfig,
  databaseConfig,
  databaseEnv,
  durationMs,
  bindAddress,
  httpUrl,
  type LogLevel,
  logLevel,
  oneOf,
  port,
  problemsOf,
  secretToken,
  wholeNumber,
} from '@paykit/service';
import * as z from 'zod';

/** The database settings (past its statement deadline the connection is dropped and the round retried), and the rest. */
export interface WorkerConfig extends DatabaseConfig {
  port: number;
  host: string;
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
  logLevel: LogLevel;
}

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

export { ConfigError };

export const WORKER: AppIdentity = { name: 'reconciliation worker', readme: 'apps/reconciliation-worker/README.md' };

const Env = z.object({
  WORKER_PORT: port('WORKER_PORT', 4030),
  WORKER_HOST: bindAddress('WORKER_HOST'),
  // A batch's statements take well under a second; one that gets no answer for 15 s is on a dead connection.
  ...databaseEnv({ queryTimeoutMs: 15_000 }),
  // 5,000 applies faster than 1,000 (fewer round trips per event) and holds a batch about a quarter of a second.
  WORKER_BATCH_SIZE: wholeNumber('WORKER_BATCH_SIZE', DEFAULT_BATCH_SIZE, 1, 50_000),
  WORKER_POLL_MS: durationMs('WORKER_POLL_MS', 500, 10, 600_000),
  WORKER_STALE_AFTER_SECONDS: wholeNumber('WORKER_STALE_AFTER_SECONDS', 86_400, 0, 31_536_000),
  WORKER_LEASE_SECONDS: wholeNumber('WORKER_LEASE_SECONDS', 60, 1, 3600),
  WORKER_APPLY: oneOf(['on', 'off'], 'on', 'WORKER_APPLY must be "on" or "off"'),
  // The core client the report files are fetched with. Secrets: never repeated in a message.
  WORKER_CORE_ENVIRONMENT: oneOf(
    ['sandbox', 'staging', 'production'],
    'sandbox',
    'WORKER_CORE_ENVIRONMENT must be sandbox, staging or production',
  ),
  WORKER_CORE_BASE_URL: httpUrl(
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
  WORKER_REPORT_POLL_MS: durationMs('WORKER_REPORT_POLL_MS', 60_000, 100, 86_400_000),
  WORKER_REPORT_TIMEOUT_MS: durationMs('WORKER_REPORT_TIMEOUT_MS', 30_000, 100, 600_000),
  WORKER_REPORT_MAX_BYTES: wholeNumber('WORKER_REPORT_MAX_BYTES', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  WORKER_REPORT_RETRY_MAX_SECONDS: wholeNumber('WORKER_REPORT_RETRY_MAX_SECONDS', 3600, 1, 86_400),
  // Unset: the store keeps every month. At least the dedupe window: an archived event's key goes with it.
  WORKER_RETENTION_DAYS: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || /^[1-9][0-9]{0,4}$/.test(value), {
      message: 'WORKER_RETENTION_DAYS must be a whole number of days (e.g. 90), or unset to keep every month',
    }),
  WORKER_ARCHIVE_DIR: z.string().min(1, 'WORKER_ARCHIVE_DIR must be a folder for the archive files').optional(),
  WORKER_DEDUPE_WINDOW_DAYS: wholeNumber('WORKER_DEDUPE_WINDOW_DAYS', 30, 1, 3650),
  WORKER_RETENTION_EVERY_MS: durationMs('WORKER_RETENTION_EVERY_MS', 3_600_000, 1000, 86_400_000),
  WORKER_LOG_LEVEL: logLevel('WORKER_LOG_LEVEL'),
  METRICS_TOKEN: secretToken('METRICS_TOKEN'),
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
  if (!parsed.success) throw new ConfigError(WORKER, problemsOf(parsed.error));
  const e = parsed.data;
  const { reports, problems } = reportConfig(e);
  const retentionDays = set(e.WORKER_RETENTION_DAYS) ? Number(e.WORKER_RETENTION_DAYS) : undefined;
  if (retentionDays !== undefined && retentionDays < e.WORKER_DEDUPE_WINDOW_DAYS)
    problems.push(
      `WORKER_RETENTION_DAYS (${retentionDays}) must be at least WORKER_DEDUPE_WINDOW_DAYS (${e.WORKER_DEDUPE_WINDOW_DAYS}): a month is archived only once a redelivery of its events is no longer expected`,
    );
  if (problems.length > 0) throw new ConfigError(WORKER, problems);
  return {
    port: e.WORKER_PORT,
    host: e.WORKER_HOST,
    ...databaseConfig(e),
    batchSize: e.WORKER_BATCH_SIZE,
    pollMs: e.WORKER_POLL_MS,
    staleAfterSeconds: e.WORKER_STALE_AFTER_SECONDS,
    leaseSeconds: e.WORKER_LEASE_SECONDS,
    apply: e.WORKER_APPLY === 'on',
    reports,
    metricsToken: e.METRICS_TOKEN,
    retention: {
      days: retentionDays,
      archiveDir: e.WORKER_ARCHIVE_DIR ?? `${e.PAYKIT_DATA_DIR}/archive`,
      dedupeWindowDays: e.WORKER_DEDUPE_WINDOW_DAYS,
      everyMs: e.WORKER_RETENTION_EVERY_MS,
    },
    logLevel: e.WORKER_LOG_LEVEL,
  };
}
