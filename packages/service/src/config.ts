// What every app's configuration is read with: ConfigError, which names every bad or missing
// variable at once (runApp prints it and exits 2), and zod readers for the variables the apps
// share in kind (ports, whole numbers, durations, URLs, choices, secrets) or in name (the database
// settings, METRICS_TOKEN). A reader names the variable in its message and never repeats a
// secret's value.
import path from 'node:path';
import * as z from 'zod';

/** How an app's messages name it, and where its variables are described. */
export interface AppIdentity {
  /** "webhook gateway": The webhook gateway's configuration is not valid, The webhook gateway could not start. */
  name: string;
  /** The README that describes every variable (apps/webhook-gateway/README.md). */
  readme: string;
}

/** A configuration that cannot run: `problems` names each bad value with what to set instead. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: string[];
  constructor(app: AppIdentity, problems: string[]) {
    super(
      `The ${app.name}'s configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee ${app.readme} for every variable.`,
    );
    this.problems = problems;
  }
}

/** The messages of a failed zod parse, one per problem. */
export const problemsOf = (error: z.ZodError): string[] => error.issues.map((issue) => issue.message);

/** A whole number from `min` to `max`; unset or empty: `fallback`. */
export const wholeNumber = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      const n = Number(value.trim());
      if (!/^\d+$/.test(value.trim()) || n < min || n > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a whole number from ${min} to ${max}, got "${value.slice(0, 20)}"`,
        });
        return z.NEVER;
      }
      return n;
    });

/** A port to listen on (0: any free port); unset: `fallback`. */
export const port = (name: string, fallback: number) => wholeNumber(name, fallback, 0, 65_535);

/** A duration in milliseconds, from `min` to `max`; unset: `fallback`. */
export const durationMs = (name: string, fallback: number, min: number, max: number) =>
  wholeNumber(name, fallback, min, max);

/** One of `values`; unset: `fallback`. `message` says what each means. */
export const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
  message: string,
) => z.enum(values, { message }).optional().default(fallback);

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The lowest level logged (default info). */
export const logLevel = (name: string) => oneOf(LOG_LEVELS, 'info', `${name} must be one of ${LOG_LEVELS.join(', ')}`);

/** An http(s) URL matching `pattern`, or unset/empty (undefined); `message` shows one. */
export const httpUrl = (message: string, pattern: RegExp = /^https?:\/\/[^\s]+$/) =>
  z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || pattern.test(value), message)
    .transform((value) => (value === undefined || value === '' ? undefined : value));

export const MIN_TOKEN_LENGTH = 32;

/**
 * A random token of at least MIN_TOKEN_LENGTH characters, trimmed; unset or blank: undefined. A
 * secret: a problem names its length, never its value.
 */
export const secretToken = (name: string) =>
  z
    .string()
    .optional()
    .refine((value) => value === undefined || value.trim() === '' || value.trim().length >= MIN_TOKEN_LENGTH, {
      error: (issue) =>
        `${name} is ${String(issue.input).trim().length} characters; use a random token of at least ${MIN_TOKEN_LENGTH} (e.g. openssl rand -hex 32)`,
    })
    .transform((value) => value?.trim() || undefined);

/**
 * The database settings every app with a store reads (DATABASE_URL, PAYKIT_DATA_DIR and the two
 * deadlines), as zod fields to spread into its environment's object. DATABASE_URL is checked for
 * its scheme only, without repeating it (it may hold a password); @paykit/store's openDatabase
 * parses the rest, naming what is wrong the same way.
 */
export const databaseEnv = (defaults: { queryTimeoutMs: number }) => ({
  DATABASE_URL: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || value.trim() === '' || /^postgres(ql)?:\/\//.test(value.trim()),
      'DATABASE_URL must start with postgres:// (or be unset for PGlite)',
    )
    .transform((value) => value?.trim() || undefined),
  PAYKIT_DATA_DIR: z.string().optional().default('.data'),
  DATABASE_QUERY_TIMEOUT_MS: durationMs('DATABASE_QUERY_TIMEOUT_MS', defaults.queryTimeoutMs, 100, 600_000),
  DATABASE_CONNECT_TIMEOUT_MS: durationMs('DATABASE_CONNECT_TIMEOUT_MS', 2_000, 100, 60_000),
});

/** The database settings as read by databaseEnv, in an app's configuration. */
export interface DatabaseConfig {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL: the client-side deadline of every statement and commit. */
  databaseQueryTimeoutMs: number;
  /** PostgreSQL: how long opening a connection, or waiting for a free one, may take. */
  databaseConnectTimeoutMs: number;
}

/** databaseEnv's fields as the configuration's. */
export const databaseConfig = (e: {
  DATABASE_URL: string | undefined;
  PAYKIT_DATA_DIR: string;
  DATABASE_QUERY_TIMEOUT_MS: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
}): DatabaseConfig => ({
  databaseUrl: e.DATABASE_URL,
  dataDir: e.PAYKIT_DATA_DIR,
  databaseQueryTimeoutMs: e.DATABASE_QUERY_TIMEOUT_MS,
  databaseConnectTimeoutMs: e.DATABASE_CONNECT_TIMEOUT_MS,
});

/** An address to bind; unset: 127.0.0.1 (this machine only). */
export const bindAddress = (name: string) =>
  z.string().min(1, `${name} must be an address to bind, such as 127.0.0.1`).default('127.0.0.1');

/** The settings @paykit/store's openDatabase takes: PGlite's folder is `<PAYKIT_DATA_DIR>/pglite`. */
export const storeOptions = (config: DatabaseConfig) => ({
  databaseUrl: config.databaseUrl,
  dataDir: path.join(config.dataDir, 'pglite'),
  queryTimeoutMs: config.databaseQueryTimeoutMs,
  connectTimeoutMs: config.databaseConnectTimeoutMs,
});
