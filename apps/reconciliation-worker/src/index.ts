// The worker as a library for tests and `pnpm start`: configuration, the worker, its console.
export { ConfigError, loadConfig } from './config.ts';
export type { WorkerConfig } from './config.ts';
export { startWorker } from './worker.ts';
export type { Worker } from './worker.ts';
export { startConsole } from './console/server.ts';
export type { ConsoleOptions, ConsoleServer } from './console/server.ts';
