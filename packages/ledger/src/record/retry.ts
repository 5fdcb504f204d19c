// The recorder's writes sit between a person (or a service) and money that moves: a dropped
// connection, a PostgreSQL restart or a failover must not turn a transfer into one the ledger never
// heard of. So each write is tried again, a bounded number of times with growing waits, when the
// failure is about reaching the database (never when the statement itself is at fault). Every
// write it wraps is idempotent: a retry after a commit whose answer was lost changes nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import { isUnavailable } from '@paykit/store';

export interface RetryPolicy {
  /** Tries in all, the first included (default 12). */
  attempts?: number;
  /** The first wait; each next one doubles (default 100 ms). */
  baseDelayMs?: number;
  /** The longest single wait (default 2,000 ms). */
  maxDelayMs?: number;
  /** No new try starts once this long has passed since the first (default 15,000 ms). */
  maxElapsedMs?: number;
}

const DEFAULTS: Required<RetryPolicy> = { attempts: 12, baseDelayMs: 100, maxDelayMs: 2_000, maxElapsedMs: 15_000 };

/** Runs `write` until it succeeds, fails for a reason other than an unreachable database, or the policy is spent. */
export async function retryUnavailable<T>(write: () => Promise<T>, policy: RetryPolicy = {}): Promise<T> {
  const { attempts, baseDelayMs, maxDelayMs, maxElapsedMs } = { ...DEFAULTS, ...policy };
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (error) {
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (tries - 1));
      if (tries >= attempts || !isUnavailable(error) || Date.now() - started + delay > maxElapsedMs) throw error;
      await sleep(delay);
    }
  }
}
