// One of our apps as a child process, for tests that must run it the way production does (no app
// imports another app): @paykit/service/process's startAppProcess, with the environment a test
// gives and nothing else of the test's own (PATH aside, and NODE_COMPILE_CACHE when the test has
// it: where Node keeps the code it compiled, which changes nothing the app does). Everything the
// app writes can be passed on (onOutput), so the secret audit and the reliability suite see every
// log line.
import {
  startAppProcess as startApp,
  type AppProcess,
  type AppProcessOptions as ServiceOptions,
} from '@paykit/service/process';
import { compileCacheEnv } from './run-node.ts';

export type { AppProcess } from '@paykit/service/process';

export interface AppProcessOptions extends Omit<ServiceOptions, 'env'> {
  /** The whole environment (PATH and NODE_COMPILE_CACHE are added). */
  env?: Record<string, string>;
}

/** Starts the app; it may take `startTimeoutMs` to print `listening on` (default 60 s: opening PGlite and migrating took 23 s on a loaded two-core machine). */
export function startAppProcess(options: AppProcessOptions): Promise<AppProcess> {
  return startApp({ ...options, env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), ...options.env } });
}
