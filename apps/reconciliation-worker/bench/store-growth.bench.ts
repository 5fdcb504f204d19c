// Does the cost of the event store stay flat as it grows? Two fresh PostgreSQL databases measured in
// the same run: one empty, one holding a history of BENCH_HISTORY_EVENTS stored events (10 million
// by default: synthetic core events, bench/reconcile/synthetic.ts, received months before the
// fresh ones and applied long ago: below the worker's claim floor, each with its applied marker,
// without ledger rows of their own). On each, the same work:
//   intake   BENCH_APPENDS MONEY_IN appends through the event store's group commit (what the
//            gateway runs per delivery), BENCH_IN_FLIGHT at a time: p50 and p99 of each append;
//   apply    BENCH_FRESH_EVENTS new events (with what the ledger recorded before them) applied by
//            reconcileOnce, the worker's applier: µs per event;
//   reads    the console's first page of items (its default view: the last 14 days) and of drift,
//            one stored event by its seq, and the CLI's first page of events: the median of 15
//            reads each, once the tables are analysed (as autovacuum would have).
// Then the grown store's retention runs (@paykit/ledger's archiveEvents, as the worker's
// WORKER_RETENTION_DAYS does): its history's months are written to files and dropped, timed; and
// intake and reads are measured again on what the store keeps ("retained").
// Targets (TARGETS below, issue "Run it the way a team runs it in production"): with retention,
// the store's intake p99 and the grown store's apply cost within 1.2× of the empty store's, every
// read under 1 s. The grown store's intake before its retention ran is reported beside them. Exit
// 1 when a target is missed, 2 on bad input.
//
//   pnpm bench store-growth
//   DATABASE_URL (admin connection that may CREATE DATABASE; default postgres://postgres@127.0.0.1:5432/postgres),
//   BENCH_HISTORY_EVENTS (10000000), BENCH_FRESH_EVENTS (100000), BENCH_APPENDS (5000), BENCH_IN_FLIGHT (64)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recordResult } from '@paykit/bench';
import { archiveEvents, pageItems, reconcileOnce } from '@paykit/ledger';
import { createEventStore, pageDrift, type Database } from '@paykit/store';
import { creditEvent } from '@paykit/store/testing';
import {
  createBenchDatabase,
  DEFAULT_ADMIN_URL,
  dropOnSignal,
  describeDatabaseUrl,
  type BenchDatabase,
} from './reconcile/databases.ts';
import { EVENTS_PER_BLOCK, loadSynthetic, loadSyntheticEvents } from './reconcile/synthetic.ts';

export const TARGETS = {
  /** The grown store's intake p99 over the empty store's. */
  intakeP99Ratio: 1.2,
  /** The grown store's apply cost per event over the empty store's. */
  applyRatio: 1.2,
  /** The slowest read on the grown store, in ms. */
  readMs: 1000,
} as const;

/** The history's first block: far past the fresh events' blocks, so no id or key is shared. */
const HISTORY_FIRST_BLOCK = 10_000_000;
/** How far before its synthetic time the history was received: months before the fresh events (2026-11-21). */
const HISTORY_SHIFT = '10 months';
/** The retention's run: months that ended by RETAIN_FROM are archived, on the clock of RETAIN_NOW. */
const RETAIN_FROM = new Date('2026-11-01T00:00:00Z');
const RETAIN_NOW = new Date('2026-12-15T00:00:00Z');

function readConfig() {
  const problems: string[] = [];
  const whole = (name: string, fallback: number, min: number, max: number, multiple = 1): number => {
    const raw = process.env[name];
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(value) || value < min || value > max || value % multiple !== 0)
      problems.push(
        `${name} must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}${multiple > 1 ? `, a multiple of ${multiple}` : ''} (got "${String(raw).slice(0, 20)}")`,
      );
    return value;
  };
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
  if (!/^postgres(ql)?:\/\//.test(adminUrl))
    problems.push('DATABASE_URL must be a postgres:// URL of a server where the user may CREATE DATABASE');
  const config = {
    adminUrl,
    historyEvents: whole('BENCH_HISTORY_EVENTS', 10_000_000, EVENTS_PER_BLOCK, 50_000_000, EVENTS_PER_BLOCK),
    freshEvents: whole('BENCH_FRESH_EVENTS', 100_000, EVENTS_PER_BLOCK, 1_000_000, EVENTS_PER_BLOCK),
    appends: whole('BENCH_APPENDS', 5000, 100, 100_000),
    inFlight: whole('BENCH_IN_FLIGHT', 64, 1, 1000),
  };
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(2);
  }
  return config;
}

interface StoreRun {
  events: number;
  intake: { p50Ms: number; p99Ms: number; appendsPerSecond: number };
  apply: { seconds: number; microsPerEvent: number; applied: number };
  reads: Record<string, number>;
  /** The grown store after its retention ran: what it took, and intake and reads on what is kept. */
  retained?: {
    archivedEvents: number;
    months: number;
    seconds: number;
    archiveBytes: number;
    intake: StoreRun['intake'];
    reads: Record<string, number>;
  };
}

const round = (n: number, places = 2) => Math.round(n * 10 ** places) / 10 ** places;
const quantile = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Appends through the group commit, `inFlight` at a time: each append's time from call to commit. */
async function measureIntake(db: Database, appends: number, inFlight: number): Promise<StoreRun['intake']> {
  const store = createEventStore(db);
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < appends) {
        next += 1;
        const event = creditEvent({ amount: '1500.00', numeric_reference: '1234567' });
        const t0 = performance.now();
        const result = await store.append(event);
        times.push(performance.now() - t0);
        if (!result.inserted) throw new Error(`append ${event.dedupeKey} was answered as a duplicate`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  times.sort((a, b) => a - b);
  return {
    p50Ms: round(quantile(times, 0.5)),
    p99Ms: round(quantile(times, 0.99)),
    appendsPerSecond: Math.round(appends / seconds),
  };
}

/** The median of 15 runs of `read` (after 2 unmeasured), in ms. */
async function medianMs(read: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 17; i++) {
    const t0 = performance.now();
    await read();
    if (i >= 2) samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return round(quantile(samples, 0.5));
}

async function measureReads(db: Database): Promise<Record<string, number>> {
  const store = createEventStore(db);
  const { rows } = await db.query<{ seq: string }>('SELECT min(seq)::text AS seq FROM webhook_events');
  const oldest = rows[0]?.seq ?? '1';
  const reads = {
    // The console's default view: the last 14 days, ending on the fresh events' day.
    consoleItemsFirstPage: await medianMs(() => pageItems(db, { from: '2026-11-08', to: '2026-11-21', limit: 50 })),
    consoleDriftFirstPage: await medianMs(() => pageDrift(db, { limit: 50 })),
    eventBySeq: await medianMs(() => store.get(oldest)),
    cliEventsFirstPage: await medianMs(() => store.list({ limit: 50 })),
  };
  await store.close();
  return reads;
}

async function measure(
  config: ReturnType<typeof readConfig>,
  bench: BenchDatabase,
  history: number,
): Promise<StoreRun> {
  if (history > 0) {
    const t0 = performance.now();
    // The months the history falls in have their partitions, as the worker would have made them then.
    for (const month of ['2026-04-01', '2026-05-01', '2026-06-01', '2026-07-01'])
      await bench.db.query('SELECT webhook_events_add_partition($1::timestamptz)', [month]);
    await loadSyntheticEvents(
      bench.db,
      HISTORY_FIRST_BLOCK,
      history,
      (loaded) => {
        if (loaded % 500_000 === 0) process.stdout.write(`  history ${loaded.toLocaleString('en-US')}\r`);
      },
      { shift: HISTORY_SHIFT },
    );
    // Applied long ago: each has its applied marker, and the worker's claim floor is past all of them.
    await bench.db.query('INSERT INTO webhook_events_applied (seq) SELECT seq FROM webhook_events');
    await bench.db.query('UPDATE webhook_events_progress SET floor_seq = (SELECT max(seq) FROM webhook_events)');
    await bench.db.query('VACUUM ANALYZE webhook_events, webhook_event_keys, webhook_events_applied');
    console.log(
      `\n  history of ${history.toLocaleString('en-US')} events loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  await loadSynthetic(bench.db, config.freshEvents);
  const t0 = performance.now();
  const result = await reconcileOnce(bench.db, {});
  const seconds = (performance.now() - t0) / 1000;
  if (result.applied !== config.freshEvents)
    throw new Error(`reconcileOnce applied ${result.applied} of ${config.freshEvents} fresh events`);
  // By the time an operator reads the console, autovacuum has analysed what the worker wrote.
  await bench.db.query('ANALYZE');
  const intake = await measureIntake(bench.db, config.appends, config.inFlight);
  const reads = await measureReads(bench.db);
  return {
    events: history,
    intake,
    apply: {
      seconds: round(seconds),
      microsPerEvent: round((seconds * 1e6) / config.freshEvents, 1),
      applied: result.applied,
    },
    reads,
    retained: history > 0 ? await retain(config, bench, history) : undefined,
  };
}

/** The retention's run on the grown store (its history's months archived and dropped), then intake and reads again. */
async function retain(
  config: ReturnType<typeof readConfig>,
  bench: BenchDatabase,
  history: number,
): Promise<NonNullable<StoreRun['retained']>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'paykit-bench-archive-'));
  try {
    const t0 = performance.now();
    const result = await archiveEvents(bench.db, { before: RETAIN_FROM, dir, now: RETAIN_NOW });
    const seconds = (performance.now() - t0) / 1000;
    const archivedEvents = result.archived.reduce((sum, month) => sum + month.events, 0);
    if (archivedEvents !== history || result.kept.length > 0)
      throw new Error(
        `the retention archived ${archivedEvents} of ${history} history events (kept: ${result.kept.map((m) => `${m.partition}: ${m.reason}`).join('; ')})`,
      );
    await bench.db.query('VACUUM ANALYZE webhook_event_keys, webhook_events_applied');
    console.log(
      `  retention: ${archivedEvents.toLocaleString('en-US')} events archived and dropped in ${seconds.toFixed(0)} s`,
    );
    return {
      archivedEvents,
      months: result.archived.length,
      seconds: round(seconds),
      archiveBytes: result.archived.reduce((sum, month) => sum + month.bytes, 0),
      intake: await measureIntake(bench.db, config.appends, config.inFlight),
      reads: await measureReads(bench.db),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const config = readConfig();
const open = new Set<BenchDatabase>();
dropOnSignal(open);

console.log(
  `${describeDatabaseUrl(config.adminUrl)}; history ${config.historyEvents.toLocaleString('en-US')} events; fresh ${config.freshEvents.toLocaleString('en-US')}; ${config.appends.toLocaleString('en-US')} appends, ${config.inFlight} in flight`,
);
const runs: StoreRun[] = [];
for (const [label, history] of [
  ['empty', 0],
  ['grown', config.historyEvents],
] as const) {
  const bench = await createBenchDatabase(config.adminUrl, `growth_${label}`);
  open.add(bench);
  try {
    const run = await measure(config, bench, history);
    runs.push(run);
    console.log(
      `${label} store (${history.toLocaleString('en-US')} stored events before): intake p50 ${run.intake.p50Ms} ms, p99 ${run.intake.p99Ms} ms, ${run.intake.appendsPerSecond.toLocaleString('en-US')} appends/s; apply ${run.apply.microsPerEvent} µs/event; reads ${Object.entries(
        run.reads,
      )
        .map(([name, ms]) => `${name} ${ms} ms`)
        .join(', ')}`,
    );
    if (run.retained)
      console.log(
        `retained store (its ${run.retained.archivedEvents.toLocaleString('en-US')} history events archived): intake p50 ${run.retained.intake.p50Ms} ms, p99 ${run.retained.intake.p99Ms} ms; reads ${Object.entries(
          run.retained.reads,
        )
          .map(([name, ms]) => `${name} ${ms} ms`)
          .join(', ')}`,
      );
  } finally {
    open.delete(bench);
    await bench.drop();
  }
}

const [empty, grown] = runs as [StoreRun, StoreRun];
const retained = grown.retained!;
const ratios = {
  intakeP99BeforeRetention: round(grown.intake.p99Ms / empty.intake.p99Ms),
  intakeP99: round(retained.intake.p99Ms / empty.intake.p99Ms),
  apply: round(grown.apply.microsPerEvent / empty.apply.microsPerEvent),
};
const slowestRead = Math.max(...Object.values(grown.reads), ...Object.values(retained.reads));
const missed = [
  ratios.intakeP99 > TARGETS.intakeP99Ratio
    ? `intake p99 on the grown store after its retention ran is ${ratios.intakeP99}× the empty store's (target ≤ ${TARGETS.intakeP99Ratio}×)`
    : '',
  ratios.apply > TARGETS.applyRatio
    ? `apply cost on the grown store is ${ratios.apply}× the empty store's (target ≤ ${TARGETS.applyRatio}×)`
    : '',
  ...Object.entries({ ...grown.reads })
    .filter(([, ms]) => ms > TARGETS.readMs)
    .map(([name, ms]) => `${name} on the grown store takes ${ms} ms (target < ${TARGETS.readMs} ms)`),
  ...Object.entries({ ...retained.reads })
    .filter(([, ms]) => ms > TARGETS.readMs)
    .map(([name, ms]) => `${name} on the retained store takes ${ms} ms (target < ${TARGETS.readMs} ms)`),
].filter(Boolean);
const file = await recordResult('store-growth', {
  config: { ...config, adminUrl: undefined },
  targets: TARGETS,
  runs,
  ratios,
  slowestReadMs: slowestRead,
  missed,
});
console.log(
  `\nratios: intake p99 ${ratios.intakeP99}× with retention (${ratios.intakeP99BeforeRetention}× before it ran), apply ${ratios.apply}×; slowest read ${slowestRead} ms`,
);
console.log(missed.length === 0 ? 'every target met' : `missed:\n- ${missed.join('\n- ')}`);
console.log(`written ${file}`);
process.exit(missed.length === 0 ? 0 : 1);
