// Structured logs (pino). Nothing secret is ever handed to the logger in the first place (the
// gateway logs ids, types, outcomes and timings, never headers or bodies); the redaction paths are
// the second line of defence should someone log a request or a config object later.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { createAppLogger } from '@paykit/service';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { GatewayConfig } from './config.ts';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-webhook-signature"]',
  'headers.authorization',
  'headers["x-webhook-signature"]',
  'authorization',
  'token',
  'tokens',
  'secretTokens',
  'adminToken',
  'metricsToken',
  'databaseUrl',
  'config.core',
  'config.cash',
  'config.adminToken',
  'config.metricsToken',
  'config.databaseUrl',
];

export function createLogger(
  config: Pick<GatewayConfig, 'logLevel' | 'logFile'>,
  destination?: DestinationStream,
): Logger {
  return createAppLogger({
    name: 'webhook-gateway',
    level: config.logLevel,
    redact: REDACT_PATHS,
    destination:
      destination ??
      (config.logFile ? pino.destination({ dest: config.logFile, mkdir: true, sync: false }) : undefined),
  });
}

/**
 * Why GATEWAY_LOG_FILE cannot take the logs, or undefined when it can: checked at start, since the
 * logger opens the file in the background and would otherwise drop every line without a word.
 */
export function logFileProblem(file: string): string | undefined {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    closeSync(openSync(file, 'a'));
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return `GATEWAY_LOG_FILE ${file} cannot be written (${code}): point it at a file in a directory the gateway's user can write, or unset it to log to stdout`;
  }
}
