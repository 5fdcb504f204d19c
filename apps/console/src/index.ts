// The console as a library for tests and its entry: configuration and the server.
export { ConfigError, loadConfig } from './config.ts';
export type { ConsoleConfig } from './config.ts';
export { startConsole } from './server.ts';
export type { ConsoleOptions, ConsoleServer } from './server.ts';
export { createConsoleHealth } from './health.ts';
export { createConsoleMetrics } from './metrics.ts';
export { workerStatusFrom } from './worker-status.ts';
