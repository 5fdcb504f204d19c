// The worker as a library for tests and `pnpm start`: configuration and the worker.
export { ConfigError, loadConfig } from './config.ts';
export type { WorkerConfig } from './config.ts';
export { startWorker } from './worker.ts';
export type { Worker } from './worker.ts';
