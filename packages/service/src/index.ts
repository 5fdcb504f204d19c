// @paykit/service: how every paykit app starts and stops. Starting one as a child process (for
// `pnpm start` and the tests) is the `@paykit/service/process` entry.
export {
  ConfigError,
  databaseConfig,
  databaseEnv,
  durationMs,
  bindAddress,
  httpUrl,
  LOG_LEVELS,
  logLevel,
  MIN_TOKEN_LENGTH,
  oneOf,
  port,
  problemsOf,
  secretToken,
  storeOptions,
  wholeNumber,
} from './config.ts';
export type { AppIdentity, DatabaseConfig, LogLevel } from './config.ts';
export { createAppLogger } from './logger.ts';
export type { AppLoggerOptions } from './logger.ts';
export { createAppRegistry } from './metrics.ts';
export { runApp, STOP_TIMEOUT_MS } from './run-app.ts';
export type { AppDefinition, RunningApp } from './run-app.ts';
