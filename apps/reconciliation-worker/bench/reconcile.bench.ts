// Reconciliation throughput on real PostgreSQL: synthetic stored events (a realistic mix of status
// updates, credits with receivables, CEPs and refunds — bench/reconcile/synthetic.ts) applied by
// reconcileOnce, the worker's applier, at 10k, 100k and 1M events, each size in a fresh database;
// and, in the same run, a naive applier (one transaction per event, row by row) on a 10k sample,
// three workers at once on the check size, and the check size again with no statistics and no
// autovacuum. The ledgers of one size must be identical whoever built them. Targets (report.ts
// TARGETS): ≥ 25,000 events/s at 1M, ≥ 50× the naive applier, cost per event at 1M within 1.2× of
// 10k, within 1.2× without statistics, three workers no slower than one. Each size also records
// the bytes a stored and applied event takes (reconcile/storage.ts), which docs/operations.md's
// capacity plan is computed from. Exit 1 when a target is missed, 2 on bad input.
//
//   pnpm bench reconcile
//   DATABASE_URL (admin connection that may CREATE DATABASE; default postgres://postgres@127.0.0.1:5432/postgres),
//   BENCH_SIZES (10000,100000,1000000), BENCH_NAIVE_EVENTS (10000), BENCH_CHECK_EVENTS (100000: the
//   size of the three-worker and the no-statistics runs; one of BENCH_SIZES), BENCH_BATCH_SIZE (the
//   worker's WORKER_BATCH_SIZE default, 5000)
import { recordResult } from '@paykit/bench';
import { reconcileOnce } from '@paykit/ledger';
import { loadConfig } from '../src/config.ts';
import {
  createBenchDatabase,
  DEFAULT_ADMIN_URL,
  dropOnSignal,
  describeDatabaseUrl,
  type BenchDatabase,
} from './reconcile/databases.ts';
import { fingerprintDifferences, ledgerFingerprint, type Fingerprint } from './reconcile/fingerprint.ts';
import { naiveApply } from './reconcile/naive.ts';
import { formatTable, judge, microsPerEvent, perSecond, type CheckRuns, type SizeRun } from './reconcile/report.ts';
import { measureStorage, type Storage } from './reconcile/storage.ts';
import { EVENTS_PER_BLOCK, loadSynthetic } from './reconcile/synthetic.ts';

function readConfig(): {
  adminUrl: string;
  sizes: number[];
  naiveEvents: number;
  checkEvents: number;
  batchSize: number;
} {
  const problems: string[] = [];
  const count = (name: string, fallback: string): number[] => {
    const raw = process.env[name] ?? fallback;
    const values = raw.split(',').map((part) => Number(part.trim()));
    if (
      values.length === 0 ||
      values.some((v) => !Number.isInteger(v) || v < EVENTS_PER_BLOCK || v % EVENTS_PER_BLOCK !== 0 || v > 10_000_000)
    ) {
      problems.push(
        `${name} must be comma-separated whole numbers of events, multiples of ${EVENTS_PER_BLOCK} up to 10,000,000 (got "${raw.slice(0, 80)}")`,
      );
    }
    return values;
  };
  const adminUrl = process.env.DATABASE_URL ?? DEFAULT_ADMIN_URL;
  if (!/^postgres(ql)?:\/\//.test(adminUrl))
    problems.push('DATABASE_URL must be a postgres:// URL of a server where the user may CREATE DATABASE');
  const sizes = count('BENCH_SIZES', '10000,100000,1000000').sort((a, b) => a - b);
  const [naiveEvents = 0] = count('BENCH_NAIVE_EVENTS', '10000');
  const [checkEvents = 0] = count('BENCH_CHECK_EVENTS', '100000');
  if (!sizes.includes(checkEvents))
    problems.push(
      `BENCH_CHECK_EVENTS (${checkEvents}) must be one of BENCH_SIZES (${sizes.join(',')}): its runs are compared with that size's`,
    );
  // What the worker runs with unless told otherwise (its defaults, not this process's WORKER_* variables).
  const batchSize = Number(process.env.BENCH_BATCH_SIZE ?? loadConfig({}).batchSize);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 50_000)
    problems.push(
      `BENCH_BATCH_SIZE must be a whole number from 1 to 50,000 (got "${String(process.env.BENCH_BATCH_SIZE).slice(0, 20)}")`,
    );
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    process.exit(2);
  }
  return { adminUrl, sizes, naiveEvents, checkEvents, batchSize };
}

const config = readConfig();
const open = new Set<BenchDatabase>();
dropOnSignal(open);

/** A fresh database with `events` synthetic events, handed to `fn`, dropped after. */
async function withLoaded<T>(
  label: string,
  events: number,
  fn: (bench: BenchDatabase, loadSeconds: number) => Promise<T>,
  { statistics = true }: { statistics?: boolean } = {},
): Promise<T> {
  const bench = await createBenchDatabase(config.adminUrl, label, { autovacuum: statistics });
  open.add(bench);
  try {
    const started = performance.now();
    await loadSynthetic(
      bench.db,
      events,
      (loaded) => {
        if (events >= 200_000 && loaded % 200_000 === 0)
          process.stdout.write(`  loaded ${loaded.toLocaleString('en-US')}\r`);
      },
      { analyze: statistics },
    );
    const loadSeconds = (performance.now() - started) / 1000;
    if (events >= 200_000) process.stdout.write('\n');
    return await fn(bench, loadSeconds);
  } finally {
    open.delete(bench);
    await bench.drop();
  }
}

const started = performance.now();
console.log(
  `${describeDatabaseUrl(config.adminUrl)}; sizes ${config.sizes.map((s) => s.toLocaleString('en-US')).join(', ')}; batch ${config.batchSize}; naive sample ${config.naiveEvents.toLocaleString('en-US')}; checks at ${config.checkEvents.toLocaleString('en-US')}`,
);

const runs: (SizeRun & { storage: Storage })[] = [];
const fingerprints = new Map<number, Fingerprint>();
const failures: string[] = [];
for (const events of config.sizes) {
  await withLoaded(String(events), events, async (bench, loadSeconds) => {
    const t0 = performance.now();
    const result = await reconcileOnce(bench.db, { batchSize: config.batchSize });
    const applySeconds = (performance.now() - t0) / 1000;
    if (result.applied !== events || result.parked !== 0)
      failures.push(
        `reconcileOnce at ${events}: applied ${result.applied}, parked ${result.parked} (expected ${events} and 0)`,
      );
    if (events === config.naiveEvents || events === config.checkEvents)
      fingerprints.set(events, await ledgerFingerprint(bench.db));
    const storage = await measureStorage(bench.db, events);
    runs.push({ events, loadSeconds, applySeconds, batches: result.batches, storage });
    console.log(
      `reconcileOnce ${events.toLocaleString('en-US')} events: loaded in ${loadSeconds.toFixed(1)} s, applied in ${applySeconds.toFixed(2)} s (${result.batches} batches): ${perSecond(events, applySeconds).toLocaleString('en-US')} events/s, ${microsPerEvent(events, applySeconds)} µs/event; ${storage.databaseBytesPerEvent} bytes/event on disk (stored events ${storage.eventBytesPerEvent}, journal ${storage.journalRowsPerEvent} rows × ${storage.journalBytesPerRow} bytes)`,
    );
  });
}

/** The same events as the single worker's run of that size must give the same ledger. */
async function sameLedger(who: string, events: number, db: BenchDatabase['db']): Promise<void> {
  const same = fingerprints.get(events);
  if (!same) return;
  const differences = fingerprintDifferences(await ledgerFingerprint(db), same);
  if (differences.length > 0)
    failures.push(`${who} and reconcileOnce built different ledgers from the same events: ${differences.join('; ')}`);
  else console.log(`${who} and reconcileOnce built identical ledgers from the same events`);
}

const checkEvents = config.checkEvents;
const checks: CheckRuns = {
  events: checkEvents,
  // Three workers, each with a pool of its own (as three processes), on one database at once.
  threeWorkersSeconds: await withLoaded(`three_${checkEvents}`, checkEvents, async (bench) => {
    const workers = [bench.db, await bench.open(), await bench.open()];
    const t0 = performance.now();
    const results = await Promise.all(workers.map((db) => reconcileOnce(db, { batchSize: config.batchSize })));
    const seconds = (performance.now() - t0) / 1000;
    const applied = results.reduce((sum, r) => sum + r.applied, 0);
    if (applied !== checkEvents)
      failures.push(
        `three workers applied ${applied} events of ${checkEvents} between them (each exactly once expected)`,
      );
    await sameLedger('three workers', checkEvents, bench.db);
    console.log(
      `three workers ${checkEvents.toLocaleString('en-US')} events: ${seconds.toFixed(2)} s (${results.map((r) => r.applied).join(' + ')}), ${perSecond(checkEvents, seconds).toLocaleString('en-US')} events/s`,
    );
    return seconds;
  }),
  // No ANALYZE after the load and autovacuum off: every query must have an index that serves it.
  noStatisticsSeconds: await withLoaded(
    `nostats_${checkEvents}`,
    checkEvents,
    async (bench) => {
      const t0 = performance.now();
      const result = await reconcileOnce(bench.db, { batchSize: config.batchSize });
      const seconds = (performance.now() - t0) / 1000;
      if (result.applied !== checkEvents)
        failures.push(`reconcileOnce without statistics applied ${result.applied} of ${checkEvents} events`);
      await sameLedger('reconcileOnce without statistics', checkEvents, bench.db);
      console.log(
        `no statistics ${checkEvents.toLocaleString('en-US')} events: ${seconds.toFixed(2)} s, ${perSecond(checkEvents, seconds).toLocaleString('en-US')} events/s`,
      );
      return seconds;
    },
    { statistics: false },
  ),
};

const naive = await withLoaded(`naive_${config.naiveEvents}`, config.naiveEvents, async (bench) => {
  const t0 = performance.now();
  const applied = await naiveApply(bench.db);
  const seconds = (performance.now() - t0) / 1000;
  if (applied !== config.naiveEvents)
    failures.push(`the naive applier applied ${applied} of ${config.naiveEvents} events`);
  await sameLedger('the naive applier', config.naiveEvents, bench.db);
  console.log(
    `naive ${config.naiveEvents.toLocaleString('en-US')} events: ${seconds.toFixed(2)} s, ${perSecond(config.naiveEvents, seconds).toLocaleString('en-US')} events/s`,
  );
  return { events: config.naiveEvents, seconds };
});

const verdicts = judge(runs, naive, checks);
console.log(`\n${formatTable(runs, naive, checks, verdicts)}`);
for (const failure of failures) console.log(`FAILED  ${failure}`);
const file = await recordResult('reconcile', {
  batchSize: config.batchSize,
  sizes: runs.map((r) => ({
    events: r.events,
    loadSeconds: Math.round(r.loadSeconds * 10) / 10,
    applySeconds: Math.round(r.applySeconds * 100) / 100,
    batches: r.batches,
    eventsPerSecond: perSecond(r.events, r.applySeconds),
    microsPerEvent: microsPerEvent(r.events, r.applySeconds),
    storage: r.storage,
  })),
  checks: {
    events: checks.events,
    threeWorkersSeconds: Math.round(checks.threeWorkersSeconds * 100) / 100,
    threeWorkersEventsPerSecond: perSecond(checks.events, checks.threeWorkersSeconds),
    noStatisticsSeconds: Math.round(checks.noStatisticsSeconds * 100) / 100,
    noStatisticsEventsPerSecond: perSecond(checks.events, checks.noStatisticsSeconds),
  },
  naive: {
    events: naive.events,
    seconds: Math.round(naive.seconds * 100) / 100,
    eventsPerSecond: perSecond(naive.events, naive.seconds),
  },
  targets: verdicts,
  failures,
  totalSeconds: Math.round((performance.now() - started) / 100) / 10,
});
console.log(`figures: ${file}; the whole run took ${((performance.now() - started) / 1000).toFixed(0)} s`);
process.exit(failures.length === 0 && verdicts.every((v) => v.met) ? 0 : 1);
