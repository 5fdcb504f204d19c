// Structured logs (pino). Nothing secret is ever handed to the logger in the first place (the
// gateway logs ids, types, outcomes and timings, never headers or bodies); the redaction paths are
// the second line of defence should someone log a request or a config object later.
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

export function createLogger(config: Pick<GatewayConfig, 'logLevel' | 'logFile'>, destination?: DestinationStream): Logger {
  const options = { name: 'webhook-gateway', level: config.logLevel, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (destination) return pino(options, destination);
  if (config.logFile) return pino(options, pino.destination({ dest: config.logFile, mkdir: true, sync: false }));
  return pino(options);
}
