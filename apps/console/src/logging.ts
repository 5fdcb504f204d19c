// Structured logs (pino), one JSON line each, on stdout: start-up, each request fastify answers
// (method, path, status, time; never a cookie or a form), logins by outcome, and every error.
// Nothing secret is handed to the logger; the redaction paths are the second line of defence
// should someone log a config object or a request's headers later.
import { createAppLogger } from '@paykit/service';
import type { DestinationStream, Logger } from 'pino';
import type { ConsoleConfig } from './config.ts';

export const REDACT_PATHS = [
  'databaseUrl',
  'password',
  'metricsToken',
  'authorization',
  'cookie',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'config.databaseUrl',
  'config.console.password',
  'config.metricsToken',
];

export function createLogger(config: Pick<ConsoleConfig, 'logLevel'>, destination?: DestinationStream): Logger {
  return createAppLogger({ name: 'console', level: config.logLevel, redact: REDACT_PATHS, destination });
}
