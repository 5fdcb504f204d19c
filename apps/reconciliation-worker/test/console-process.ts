// The finance console as a child process (no app imports another app): started from its main.ts
// with the environment its README documents, stopped with SIGTERM.
import path from 'node:path';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';

const MAIN = path.resolve(import.meta.dirname, '../../console/src/main.ts');

/** `startTimeoutMs`: how long it may take to listen (opening PGlite and migrating is slow on a loaded machine). */
export function startConsoleProcess(env: Record<string, string>, startTimeoutMs = 60_000): Promise<AppProcess> {
  return startAppProcess({
    name: 'The console',
    main: MAIN,
    env: { CONSOLE_PORT: '0', CONSOLE_LOG_LEVEL: 'silent', ...env },
    startTimeoutMs,
  });
}
