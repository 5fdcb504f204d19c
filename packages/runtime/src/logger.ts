// The logger hook. The transport builds every entry from redacted headers and bodies, so a
// logger can write entries anywhere (stdout, a file, a log service) without leaking secrets.
import type { ProductName } from './environments.ts';

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
