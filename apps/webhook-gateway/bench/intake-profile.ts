// Where one contender's CPU goes under the intake benchmark's load: CPU per delivery in its own
// process and in its PostgreSQL backends (robust on a busy shared machine, unlike throughput),
// and, for a Node contender, a V8 CPU profile summarised by function and by area.
//
//   node --conditions=@paykit/source apps/webhook-gateway/bench/intake-profile.ts [gateway|minimal|express]
//   DATABASE_URL (admin connection), BENCH_SECONDS (10), BENCH_CONNECTIONS (64),
//   BENCH_RATE (paced at this rate instead of closed-loop), PROFILE_DIR (keep the .cpuprofile there;
//   default a temporary folder, removed), PROFILE=0 (no V8 profile: CPU figures only, no profiler overhead),
//   PROFILE_LOG_LEVEL (the gateway's GATEWAY_LOG_LEVEL; default warn, as in the benchmark)
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOneContenderOrExit } from './intake/config.ts';
import { CONTENDERS } from './intake/contenders.ts';
import { summarizeProfile, type Share } from './intake/cpu-profile.ts';
import { createBenchDatabase } from './intake/databases.ts';
import { installInterruptHandler, onInterrupt } from './intake/interrupt.ts';
import { runLoad } from './intake/load.ts';
import { okPerSecond, summarizeLatency } from './intake/load-result.ts';
import { urlPassword } from './intake/mask.ts';
import { BENCH_ACCOUNT } from './intake/money-in.ts';
import { backendPids, cpuSecondsOf, cpuTimesOf } from './intake/process-cpu.ts';
import { receiverEnv, startReceiver } from './intake/receiver-process.ts';
import { MONEY_IN_PATH } from './baselines/receiver-env.ts';

interface GatewayFigures {
  batches: number;
  averageBatch: number;
  averageMs: number;
  /** Garbage collections by kind: how many, and their total ms. */
  gc: Record<string, { count: number; ms: number }>;
  /** The event loop's delay since start-up, p99 and max ms. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

/** The gateway's own figures from /metrics: how many statements the load cost, and its pauses. */
async function gatewayFigures(url: string): Promise<GatewayFigures> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
  const batches = value(/^gateway_store_batch_events_count (\S+)$/m);
  const gc: GatewayFigures['gc'] = {};
  for (const [, kind, count] of text.matchAll(
    /^gateway_process_nodejs_gc_duration_seconds_count\{kind="(\w+)"\} (\S+)$/gm,
  )) {
    gc[kind!] = {
      count: Number(count),
      ms: 1000 * value(new RegExp(`^gateway_process_nodejs_gc_duration_seconds_sum\\{kind="${kind}"\\} (\\S+)$`, 'm')),
    };
  }
  return {
    batches,
    averageBatch: value(/^gateway_store_batch_events_sum (\S+)$/m) / batches,
    averageMs:
      (1000 * value(/^gateway_store_commit_seconds_sum\{ok="true"\} (\S+)$/m)) /
      value(/^gateway_store_commit_seconds_count\{ok="true"\} (\S+)$/m),
    gc,
    loopDelayP99Ms: 1000 * value(/^gateway_process_nodejs_eventloop_lag_p99_seconds (\S+)$/m),
    loopDelayMaxMs: 1000 * value(/^gateway_process_nodejs_eventloop_lag_max_seconds (\S+)$/m),
  };
}

const { name, config } = readOneContenderOrExit();
const rateText = process.env.BENCH_RATE;
const rate = rateText ? Number(rateText) : undefined;
if (rate !== undefined && !(Number.isInteger(rate) && rate > 0)) {
  console.error(
    `BENCH_RATE="${rateText}": give a whole number of requests per second above 0, or leave it unset for a closed loop.`,
  );
  process.exit(2);
}
const profiling = process.env.PROFILE !== '0';
installInterruptHandler();

const contender = CONTENDERS[name];
const token = randomBytes(32).toString('base64url');
const profileDir = process.env.PROFILE_DIR
  ? path.resolve(process.env.PROFILE_DIR)
  : mkdtempSync(path.join(os.tmpdir(), 'paykit-intake-profile-'));
const database = await createBenchDatabase(config.adminUrl, name);
const forgetDatabase = onInterrupt(() => database.drop());
try {
  await contender.prepare(database.url, BENCH_ACCOUNT);
  const receiver = await startReceiver({
    label: contender.label,
    entry: contender.entry,
    cwd: contender.cwd,
    env: receiverEnv(database.url, token, process.env.PROFILE_LOG_LEVEL ?? 'warn'),
    secrets: [token, urlPassword(config.adminUrl)],
    readyTimeoutMs: 30_000,
    nodeArgs: profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  const forgetReceiver = onInterrupt(() => receiver.stop());
  const plan = {
    url: `${receiver.url}${MONEY_IN_PATH}`,
    connections: config.connections,
    timeoutMs: 5_000,
    warmupSeconds: 1,
    account: BENCH_ACCOUNT,
  };
  await runLoad({ ...plan, mode: 'closed', seconds: config.warmupSeconds }, token);

  const pgBefore = new Map(
    (await backendPids(config.adminUrl, database.name)).map((pid) => [pid, cpuSecondsOf(pid) ?? 0]),
  );
  const ownBefore = cpuTimesOf(receiver.pid) ?? { user: 0, system: 0 };
  const result = await runLoad(
    rate === undefined
      ? { ...plan, mode: 'closed', seconds: config.seconds }
      : { ...plan, mode: 'paced', seconds: config.seconds, rate },
    token,
  );
  const ownAfter = cpuTimesOf(receiver.pid) ?? ownBefore;
  const figures = name === 'gateway' ? await gatewayFigures(receiver.url) : undefined;
  const ownUser = ownAfter.user - ownBefore.user;
  const ownSystem = ownAfter.system - ownBefore.system;
  const own = ownUser + ownSystem;
  // Backends the pool opened during the load started from nothing.
  const backendsAfter = await backendPids(config.adminUrl, database.name);
  const pg = backendsAfter.reduce((sum, pid) => sum + (cpuSecondsOf(pid) ?? 0) - (pgBefore.get(pid) ?? 0), 0);
  await receiver.stop();
  forgetReceiver();

  const ok = result.okIdMsgs.length;
  const latency = summarizeLatency(result.latencies);
  // The CPU figures cover the loader's warm-up too: per delivery of the whole load, per second of it.
  const delivered = ok + result.unmeasuredOkIdMsgs.length;
  const elapsed = result.seconds + plan.warmupSeconds;
  const perDelivery = (seconds: number) => `${((seconds * 1e6) / Math.max(1, delivered)).toFixed(1)} µs`;
  console.log(
    `${contender.label}: ${ok} answered 2xx in ${result.seconds.toFixed(1)} s (${Math.round(okPerSecond(result))}/s), statuses ${JSON.stringify(result.statuses)}, p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms`,
  );
  console.log(
    `CPU per delivery: ${name} process ${perDelivery(own)} (user ${perDelivery(ownUser)}, system ${perDelivery(ownSystem)}), its PostgreSQL backends ${perDelivery(pg)} (${backendsAfter.length} connections), loader ${perDelivery(result.loaderCpuSeconds ?? 0)}`,
  );
  console.log(
    `CPU in all: ${name} ${(own / elapsed).toFixed(2)} cores, PostgreSQL backends ${(pg / elapsed).toFixed(2)}, loader ${((result.loaderCpuSeconds ?? 0) / elapsed).toFixed(2)}`,
  );

  if (figures) {
    console.log(
      `group commit (whole run): ${figures.batches} batches of ${figures.averageBatch.toFixed(1)} events on average, ${figures.averageMs.toFixed(2)} ms each`,
    );
    const gc = Object.entries(figures.gc).map(([kind, { count, ms }]) => `${kind} ${count}× ${ms.toFixed(0)} ms`);
    console.log(
      `gateway pauses (whole run): GC ${gc.join(', ')}; event loop delay p99 ${figures.loopDelayP99Ms.toFixed(1)} ms, max ${figures.loopDelayMaxMs.toFixed(1)} ms`,
    );
  }

  const file = readdirSync(profileDir).find((entry) => entry.endsWith('.cpuprofile'));
  if (profiling && file) {
    const summary = summarizeProfile(path.join(profileDir, file));
    const table = (title: string, shares: Share[]) => {
      console.log(`\n${title}`);
      for (const share of shares) console.log(`${(share.share * 100).toFixed(1).padStart(6)}%  ${share.name}`);
    };
    console.log(
      `\nprofile: ${summary.busyMs.toFixed(0)} ms busy in the whole run (start-up and warm-up included)${process.env.PROFILE_DIR ? `, kept in ${path.join(profileDir, file)}` : ''}`,
    );
    table('self time by area', summary.areas);
    table('self time by function', summary.self);
    table('inclusive time by function', summary.inclusive);
  }
} finally {
  await database.drop();
  forgetDatabase();
  if (!process.env.PROFILE_DIR) rmSync(profileDir, { recursive: true, force: true });
}
