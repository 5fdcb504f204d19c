// The logger hook. The transport builds every entry from redacted headers and bodies, and the
// clients scrub their own secrets by value, so a logger can write entries anywhere (stdout, a
// file, a log service) without leaking secrets or card numbers.
import type { ProductName } from './environments.ts';
import { scrubSecrets, scrubValue } from './redact.ts';

export interface LogEntry {
  event: 'request' | 'response' | 'retry' | 'error';
  product: ProductName;
  operation?: string;
  method: string;
  /** Query parameters with secret-looking names are redacted. */
  url: string;
  requestId: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  status?: number;
  durationMs?: number;
  /** `retry` entries: how long the transport waits before the next attempt. */
  delayMs?: number;
  headers: Record<string, string>;
  /** Redacted JSON (≤ 64 KiB), or `[body: N bytes]`. */
  body?: unknown;
  error?: string;
}

/** Only ever receives REDACTED headers and bodies. Exceptions thrown by a logger are ignored. */
export type Logger = (entry: LogEntry) => void;

/** A logger that writes one JSON line per entry to stderr (entries are already redacted). */
export function jsonLineLogger(write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  return (entry) => write(JSON.stringify(entry));
}

/**
 * A logger that scrubs the client's own secrets (its API key, client secret, tokens) from every
 * entry before `logger` sees it, wherever they appear: a server may echo one back in a message or
 * a body field whose name says nothing. `knownSecrets` is asked per entry (a token changes).
 */
export function scrubbingLogger(logger: Logger, knownSecrets: () => readonly (string | undefined)[]): Logger {
  return (entry) => {
    const secrets = knownSecrets().filter((s): s is string => typeof s === 'string' && s !== '');
    if (secrets.length === 0) return logger(entry);
    const scrubbed: LogEntry = {
      ...entry,
      url: scrubSecrets(entry.url, secrets),
      headers: scrubValue(entry.headers, secrets) as Record<string, string>,
    };
    if (entry.body !== undefined) scrubbed.body = scrubValue(entry.body, secrets);
    if (entry.error !== undefined) scrubbed.error = scrubSecrets(entry.error, secrets);
    logger(scrubbed);
  };
}
