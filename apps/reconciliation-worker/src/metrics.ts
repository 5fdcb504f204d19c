// The worker's Prometheus metrics, read at each scrape on a registry of its own: what this process
// applied and parked, what waits, whether its last round failed, whether the books hold, and the conflicts the ledger holds
// by kind (the figure finance and ops alert on: a conflicting fact is money the platform says
// twice, differently). Labels carry kinds only: never an id, an account or an amount.
import { conflictCounts } from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { createAppRegistry } from '@paykit/service';
import { Gauge, type Registry } from 'prom-client';
import { withinProbeDeadline, type WorkerHealth } from './health.ts';

const CONFLICT_KINDS = ['credit', 'refund', 'second_refund', 'redelivery'] as const;

export function createWorkerMetrics(
  db: Database,
  health: () => Promise<WorkerHealth>,
  options: { defaultMetrics?: boolean } = {},
): Registry {
  const registry = createAppRegistry({ prefix: 'worker_process_', defaultMetrics: options.defaultMetrics });
  const registers = [registry];
  new Gauge({
    name: 'worker_ledger_conflicts',
    help: 'Conflicting facts the ledger holds, by kind (a second credit or refund with other content, a second refund, a redelivery with another body)',
    labelNames: ['kind'],
    registers,
    async collect() {
      // A scrape while the store hangs reports nothing for it rather than waiting.
      const counts = await withinProbeDeadline(conflictCounts(db), 'the ledger did not count its conflicts').catch(
        () => undefined,
      );
      if (counts) for (const kind of CONFLICT_KINDS) this.set({ kind }, counts[kind]);
    },
  });
  // One read of /healthz's facts per scrape, shared by the gauges below.
  let reading: Promise<WorkerHealth> | undefined;
  const read = () => (reading ??= health().finally(() => setImmediate(() => (reading = undefined))));
  const gauge = (name: string, help: string, value: (h: WorkerHealth) => number | null) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const v = value(await read());
        if (v !== null) this.set(v);
      },
    });
  gauge('worker_events_applied', 'Events this process applied since it started', (h) => h.applied);
  gauge(
    'worker_events_waiting',
    'Events stored and not yet applied nor parked (capped at 100,000; absent while the store does not answer)',
    (h) => h.waiting,
  );
  gauge(
    'worker_oldest_waiting_seconds',
    'Age of the oldest event stored and not yet applied nor parked, in seconds (0 when none waits; absent while the store does not answer)',
    (h) => (h.waiting === null ? null : (h.oldestWaitingSeconds ?? 0)),
  );
  gauge(
    'worker_events_below_floor_found',
    'Events the floor audit found below the claim floor neither applied nor parked since start (each then applied); should stay 0',
    (h) => h.floorAudit?.found ?? null,
  );
  gauge('worker_last_round_failed', '1 when the last round failed (the loop retries by itself)', (h) =>
    h.lastAttemptFailed ? 1 : 0,
  );
  gauge('worker_store_ok', '1 when the last round did not fail and the store answered', (h) => (h.ok ? 1 : 0));
  gauge(
    'worker_books_ok',
    "1 while the books hold (every posting balances, every item's entries are what its facts say), 0 once a check failed; absent before the first check",
    (h) => (h.books === null ? null : h.books.ok ? 1 : 0),
  );
  return registry;
}
