// The gateway's Prometheus metrics, on a registry of its own (several gateways in one test
// process must not share counters). Labels carry event types, outcomes and statuses only: never
// an id, an account or anything a delivery sent.
import { CASH_EVENT_NAMES } from '@paykit/cash-client';
import { CORE_EVENT_TYPES } from '@paykit/contracts';
import type { ConnectionStats, EventSource } from '@paykit/store';
import { createAppRegistry } from '@paykit/service';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { DIRECT_DEBIT_EVENT_TYPES } from './direct-debit.ts';

/** The event types of each source's spec: the only values the `type` label takes. */
export const KNOWN_EVENT_TYPES: Readonly<Record<EventSource, ReadonlySet<string>>> = {
  core: new Set(CORE_EVENT_TYPES),
  cash: new Set(CASH_EVENT_NAMES),
  direct_debit: new Set(DIRECT_DEBIT_EVENT_TYPES),
};

/**
 * The `type` label of a delivery: its event type when the spec documents it, else `other`. Cash
 * and direct debit name their type in the body, so a signed delivery could otherwise create one
 * series per name it invents, and the scrape would grow without end.
 */
export function eventTypeLabel(source: EventSource, eventType: string): string {
  return KNOWN_EVENT_TYPES[source]?.has(eventType) ? eventType : 'other';
}

export interface GatewayMetrics {
  registry: Registry;
  /** Every stored delivery (first arrivals), by source, type and outcome. */
  events: Counter<'source' | 'type' | 'outcome'>;
  duplicates: Counter<'source' | 'type'>;
  /** Deliveries that differed from the spec (one per delivery, however many fields differ). */
  drift: Counter<'source' | 'type'>;
  /** MONEY_IN decisions, by decision and rule. */
  decisions: Counter<'decision' | 'rule'>;
  /** Account reads for MONEY_IN decisions: hit (memory), miss (looked up), changed (the commit found the account changed: decided again). */
  accountReads: Counter<'result'>;
  /** Requests turned away before storing, by route and status (401, 400, 413, 415, 422, 503). */
  refused: Counter<'route' | 'status'>;
  answerSeconds: Histogram<'route' | 'status'>;
  commitSeconds: Histogram<'ok'>;
  batchSize: Histogram;
}

export function createMetrics(
  options: { defaultMetrics?: boolean; connections?: () => ConnectionStats | undefined } = {},
): GatewayMetrics {
  const registry = createAppRegistry({ prefix: 'gateway_process_', defaultMetrics: options.defaultMetrics });
  const registers = [registry];
  const { connections } = options;
  if (connections) {
    // Read at each scrape: a connection stuck on a frozen network shows as busy, its age growing.
    new Gauge({
      name: 'gateway_store_connections',
      help: 'Store connections: open, busy (running a statement or a commit) and callers waiting for one',
      labelNames: ['state'],
      registers,
      collect() {
        const now = connections();
        if (now === undefined) return;
        for (const state of ['open', 'busy', 'waiting'] as const) this.set({ state }, now[state]);
      },
    });
    new Gauge({
      name: 'gateway_store_longest_busy_seconds',
      help: 'How long the longest-running busy store connection has been in use',
      registers,
      collect() {
        this.set((connections()?.longestBusyMs ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'gateway_store_statement_timeouts',
      help: 'Statements that got no answer within DATABASE_QUERY_TIMEOUT_MS since start (their connections were dropped)',
      registers,
      collect() {
        this.set(connections()?.timedOut ?? 0);
      },
    });
  }
  return {
    registry,
    events: new Counter({
      name: 'gateway_events_total',
      help: 'Deliveries stored, by source, event type and outcome',
      labelNames: ['source', 'type', 'outcome'],
      registers,
    }),
    duplicates: new Counter({
      name: 'gateway_duplicates_total',
      help: 'Repeated deliveries answered again and not stored twice',
      labelNames: ['source', 'type'],
      registers,
    }),
    drift: new Counter({
      name: 'gateway_drift_total',
      help: 'Deliveries that differ from the spec (stored with the differences)',
      labelNames: ['source', 'type'],
      registers,
    }),
    decisions: new Counter({
      name: 'gateway_money_in_decisions_total',
      help: 'MONEY_IN decisions by decision and rule',
      labelNames: ['decision', 'rule'],
      registers,
    }),
    accountReads: new Counter({
      name: 'gateway_account_reads_total',
      help: 'Account reads for MONEY_IN decisions: hit (kept in memory), miss (looked up in the store), changed (changed before the commit: decided again)',
      labelNames: ['result'],
      registers,
    }),
    refused: new Counter({
      name: 'gateway_refused_total',
      help: 'Requests answered with an error, by route and status',
      labelNames: ['route', 'status'],
      registers,
    }),
    answerSeconds: new Histogram({
      name: 'gateway_answer_seconds',
      help: 'Time from request to answer',
      labelNames: ['route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    commitSeconds: new Histogram({
      name: 'gateway_store_commit_seconds',
      help: 'Time of each group commit to the store',
      labelNames: ['ok'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    batchSize: new Histogram({
      name: 'gateway_store_batch_events',
      help: 'Events per group commit',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500],
      registers,
    }),
  };
}
