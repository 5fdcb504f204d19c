// The webhook gateway as a child process (no app imports another app): started from its main.ts
// with the environment its README documents, stopped with SIGTERM (which commits what is in flight).
import path from 'node:path';
import { startAppProcess, type AppProcess } from '@paykit/testing/app-process';

const MAIN = path.resolve(import.meta.dirname, '../../webhook-gateway/src/main.ts');

export type GatewayProcess = AppProcess;

/** `startTimeoutMs`: how long it may take to listen (default 60 s: opening PGlite and migrating took 23 s on a loaded two-core machine). */
export function startGatewayProcess(env: Record<string, string>, startTimeoutMs?: number): Promise<GatewayProcess> {
  return startAppProcess({
    name: 'The gateway',
    main: MAIN,
    env: { GATEWAY_PORT: '0', GATEWAY_LOG_LEVEL: 'silent', ...env },
    startTimeoutMs,
  });
}
