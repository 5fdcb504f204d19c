// The console's configuration, read from environment variables at start-up: every bad value is
// named with what to set instead, all at once. DATABASE_URL (it may hold a password),
// CONSOLE_PASSWORD and METRICS_TOKEN are never repeated.
import {
  ConfigError,
  type AppIdentity,
  type DatabaseConfig,
  databaseConfig,
  databaseEnv,
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

export interface ConsoleConfig extends DatabaseConfig {
  port: number;
  host: string;
  /** Pending items older than this are stale. */
  staleAfterSeconds: number;
  /** The worker's address, to show its progress on the overview (its /healthz); undefined: not shown. */
  workerUrl: string | undefined;
  /** Which proxies' X-Forwarded-For and X-Forwarded-Proto are believed (fastify's trustProxy). */
  trustProxy: string | boolean;
  console: ConsoleAccessConfig;
  /** /metrics answers only `Authorization: Bearer <token>`; undefined: /metrics is open. */
  metricsToken: string | undefined;
  /** The lowest level logged (CONSOLE_LOG_LEVEL, default info). */
  logLevel: LogLevel;
}

/** Who may use the console (access/access.ts). */
export interface ConsoleAccessConfig {
  /** The operators' password; undefined: no login, and the console answers this machine's clients only. */
  password: string | undefined;
  /** How long a login lasts. */
  sessionMinutes: number;
  /** Failed logins the whole console accepts per minute before it refuses every login (access/login-guard.ts). */
  failuresPerMinute: number;
  /** `auto`: the cookies are Secure when the request arrived over https (X-Forwarded-Proto from a trusted proxy); `on`: always. */
  secureCookie: 'auto' | 'on';
  /**
   * Single sign-on behind an authenticating proxy: the header (lower-case) whose value names the
   * operator, believed only from a proxy in CONSOLE_TRUSTED_PROXIES; undefined: none.
   */
  identityHeader?: string | undefined;
}

/** Addresses only this machine can reach: the console may answer without a login there. */
export function isLoopbackHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host === '::1' ||
    host === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    /^::ffff:127(\.\d{1,3}){3}$/i.test(host)
  );
}

const MIN_PASSWORD_LENGTH = 12;

export { ConfigError };

export const CONSOLE: AppIdentity = { name: 'console', readme: 'apps/console/README.md' };

/** An address or CIDR range, as proxy-addr reads them (fastify's trustProxy). */
const PROXY = /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i;

const Env = z.object({
  CONSOLE_PORT: port('CONSOLE_PORT', 4031),
  CONSOLE_HOST: bindAddress('CONSOLE_HOST'),
  ...databaseEnv({ queryTimeoutMs: 15_000 }),
  CONSOLE_STALE_AFTER_SECONDS: wholeNumber('CONSOLE_STALE_AFTER_SECONDS', 86_400, 0, 31_536_000),
  CONSOLE_WORKER_URL: httpUrl(
    "CONSOLE_WORKER_URL must be the worker's http(s) address with no path, such as http://127.0.0.1:4030",
    /^https?:\/\/[^\s/]+\/?$/,
  ),
  CONSOLE_TRUSTED_PROXIES: z
    .string()
    .optional()
    .refine(
      (value) =>
        value === undefined ||
        value.trim() === '' ||
        value.trim().toLowerCase() === 'none' ||
        value
          .split(',')
          .map((part) => part.trim())
          .every((part) => PROXY.test(part)),
      'CONSOLE_TRUSTED_PROXIES must be a comma-separated list of proxy addresses or CIDR ranges (e.g. 10.0.0.0/8,loopback), or "none"',
    ),
  CONSOLE_IDENTITY_HEADER: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || value === '' || /^[A-Za-z0-9-]{1,64}$/.test(value),
      'CONSOLE_IDENTITY_HEADER must be a header name, letters, digits and dashes (e.g. X-Forwarded-User)',
    )
    .refine(
      (value) =>
        value === undefined ||
        !/^(cookie|authorization|host|origin|x-forwarded-for|x-forwarded-proto|x-forwarded-host|forwarded)$/i.test(
          value,
        ),
      'CONSOLE_IDENTITY_HEADER must be a header of its own that your proxy sets (e.g. X-Forwarded-User), not one browsers or proxies send for other reasons',
    ),
  // Secrets: their length is named in a problem, never their value.
  CONSOLE_PASSWORD: z
    .string()
    .optional()
    .refine(
      (value) => value === undefined || value === '' || value === value.trim(),
      'CONSOLE_PASSWORD starts or ends with whitespace: remove it (a stray newline from a .env file is the usual cause)',
    )
    .refine((value) => value === undefined || value === '' || value.length >= MIN_PASSWORD_LENGTH, {
      error: (issue) =>
        `CONSOLE_PASSWORD is ${String(issue.input).length} characters; use at least ${MIN_PASSWORD_LENGTH} (e.g. openssl rand -base64 18)`,
    }),
  CONSOLE_LOG_LEVEL: logLevel('CONSOLE_LOG_LEVEL'),
  CONSOLE_SESSION_MINUTES: wholeNumber('CONSOLE_SESSION_MINUTES', 480, 1, 10_080),
  CONSOLE_LOGIN_FAILURES_PER_MINUTE: wholeNumber('CONSOLE_LOGIN_FAILURES_PER_MINUTE', 60, 1, 100_000),
  CONSOLE_SECURE_COOKIE: oneOf(
    ['auto', 'on'],
    'auto',
    'CONSOLE_SECURE_COOKIE must be "auto" (Secure over https) or "on" (always Secure)',
  ),
  METRICS_TOKEN: secretToken('METRICS_TOKEN'),
});

const set = (value: string | undefined): value is string => value !== undefined && value !== '';

/** fastify's trustProxy from CONSOLE_TRUSTED_PROXIES: unset, a proxy on this machine (loopback); "none", no proxy. */
function trustProxyOf(value: string | undefined): string | boolean {
  const text = value?.trim() ?? '';
  if (text === '') return 'loopback';
  if (text.toLowerCase() === 'none') return false;
  return text
    .split(',')
    .map((part) => part.trim())
    .join(',');
}

/** What decides whether the console asks for a login: any of the three. */
export interface LoginSources {
  password?: string | undefined;
  /** An operator is active (console_operators, read at start-up). */
  operators?: boolean | undefined;
  identityHeader?: string | undefined;
}

/** Whether the console asks every client for a login; without one it answers this machine only. */
export function asksForLogin(login: LoginSources): boolean {
  return login.password !== undefined || login.operators === true || login.identityHeader !== undefined;
}

/**
 * The problem with binding `host` when the console asks for no login, or none: anything but a
 * loopback address would open it beyond this machine.
 */
export function bindProblems(host: string, login: LoginSources): string[] {
  if (asksForLogin(login) || isLoopbackHost(host)) return [];
  return [
    `CONSOLE_HOST=${host.slice(0, 64)} would open the console beyond this machine with no login: add an operator (paykit operators add <name> --role operator) or set CONSOLE_PASSWORD (at least ${MIN_PASSWORD_LENGTH} characters) to require one, or bind CONSOLE_HOST=127.0.0.1`,
  ];
}

export function loadConfig(env: Record<string, string | undefined> = process.env): ConsoleConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new ConfigError(CONSOLE, problemsOf(parsed.error));
  const e = parsed.data;
  const identityHeader = set(e.CONSOLE_IDENTITY_HEADER) ? e.CONSOLE_IDENTITY_HEADER.toLowerCase() : undefined;
  const trustProxy = trustProxyOf(e.CONSOLE_TRUSTED_PROXIES);
  if (identityHeader !== undefined && trustProxy === false)
    throw new ConfigError(CONSOLE, [
      'CONSOLE_IDENTITY_HEADER needs the authenticating proxy listed in CONSOLE_TRUSTED_PROXIES (it is "none"): the header is believed from those addresses only',
    ]);
  const password = set(e.CONSOLE_PASSWORD) ? e.CONSOLE_PASSWORD : undefined;
  return {
    port: e.CONSOLE_PORT,
    host: e.CONSOLE_HOST,
    ...databaseConfig(e),
    staleAfterSeconds: e.CONSOLE_STALE_AFTER_SECONDS,
    workerUrl: e.CONSOLE_WORKER_URL,
    trustProxy,
    console: {
      password,
      sessionMinutes: e.CONSOLE_SESSION_MINUTES,
      failuresPerMinute: e.CONSOLE_LOGIN_FAILURES_PER_MINUTE,
      secureCookie: e.CONSOLE_SECURE_COOKIE,
      identityHeader,
    },
    metricsToken: e.METRICS_TOKEN,
    logLevel: e.CONSOLE_LOG_LEVEL,
  };
}
