// The console's Prometheus metrics, on a registry of its own: whether its store answers, the logins
// held, and logins by outcome. The ledger's own figures (conflicts, events waiting) are the
// worker's to report: a console replica repeating them would count them once per replica.
import type { Database } from '@paykit/store';
import { createAppRegistry } from '@paykit/service';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ConsoleHealth } from './health.ts';

export interface ConsoleMetrics {
  registry: Registry;
  /** Counts a login attempt by its outcome. */
  login(outcome: 'success' | 'failure' | 'locked'): void;
}

export function createConsoleMetrics(
  db: Database,
  health: () => Promise<ConsoleHealth>,
  options: { defaultMetrics?: boolean; now?: () => Date } = {},
): ConsoleMetrics {
  const registry = createAppRegistry({ prefix: 'console_process_', defaultMetrics: options.defaultMetrics });
  const now = options.now ?? (() => new Date());
  const registers = [registry];
  new Gauge({
    name: 'console_store_ok',
    help: '1 when the database answered the scrape in time',
    registers,
    async collect() {
      this.set((await health()).ok ? 1 : 0);
    },
  });
  new Gauge({
    name: 'console_sessions',
    help: 'Console logins held (not expired, not logged out), across every replica',
    registers,
    async collect() {
      const result = await db
        .query<{ n: number }>('SELECT count(*)::int AS n FROM console_sessions WHERE expires_at > $1', [now()])
        .catch(() => undefined);
      if (result) this.set(result.rows[0]!.n);
    },
  });
  const logins = new Counter({
    name: 'console_logins_total',
    help: 'Login attempts on this replica by outcome (success, failure: a wrong password, locked: refused after too many)',
    labelNames: ['outcome'],
    registers,
  });
  for (const outcome of ['success', 'failure', 'locked']) logins.inc({ outcome }, 0);
  return { registry, login: (outcome) => logins.inc({ outcome }) };
}
