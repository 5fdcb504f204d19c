// Every app's structured logs (pino), one JSON line each. Nothing secret is handed to a logger;
// the app's redaction paths are the second line of defence should someone log a config object or
// a request's headers later, and every line's fields and message also go through the runtime's
// one redaction: a card number, security code or secret that reaches a log by any path is masked
// as the CLI and the clients mask it.
import { redactLogFields, scrubSecrets } from '@paykit/runtime';
import { pino, type DestinationStream, type LogFn, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export interface AppLoggerOptions {
  /** The `name` field of every line ("webhook-gateway"). */
  name: string;
  level: LogLevel;
  /** Fields replaced by "[redacted]" (pino's redact paths). */
  redact: string[];
  /** Where the lines go; default stdout. */
  destination?: DestinationStream | undefined;
}

export function createAppLogger(options: AppLoggerOptions): Logger {
  const pinoOptions = {
    name: options.name,
    level: options.level,
    redact: { paths: options.redact, censor: '[redacted]' },
    formatters: { log: redactLogFields },
    hooks: {
      logMethod(this: Logger, args: Parameters<LogFn>, method: LogFn) {
        const scrubbed = args.map((arg: unknown) => (typeof arg === 'string' ? scrubSecrets(arg) : arg));
        method.apply(this, scrubbed as Parameters<LogFn>);
      },
    },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
