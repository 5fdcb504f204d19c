// The webhook gateway's durable intake of MONEY_IN deliveries on real PostgreSQL, against two
// baselines in the same run: a minimal node:http handler with one INSERT per request (the floor)
// and the typical Express + body-parser receiver. Load comes from a second process.
//
// Every contender gets a fresh database and its own process, started alike and left running.
// After a warm-up, the contenders take turns in rounds (the order rotates) so that load from
// elsewhere on this shared machine hits all of them alike: first the peak (closed loop,
// BENCH_CONNECTIONS connections), then a fixed rate of ½ the GATEWAY's peak for every contender
// (the same absolute rate, so latencies compare). Every load starts after a CHECKPOINT, and its
// loader warms up for a second before it measures. Then each is stopped and audited: every
// delivery answered 2xx must be in its database. Exit 1 if a target is missed or anything failed.
// Targets: gateway ≥ 2× Express and ≥ 1× minimal in throughput, p99 < 50 ms at the paced rate.
//
//   pnpm bench intake                                   all three (the gateway must exist)
//   BENCH_CONTENDERS=minimal,express pnpm bench intake  the baselines alone
//   DATABASE_URL (admin connection, default postgres://postgres@127.0.0.1:5432/postgres),
//   BENCH_SECONDS (10 per phase and contender), BENCH_ROUNDS (3), BENCH_CONNECTIONS (64)
import { randomBytes } from 'node:crypto';
import { recordResult } from '@paykit/bench';
import { BenchConfigError, readBenchConfig, type BenchConfig } from './intake/config.ts';
import { CONTENDERS } from './intake/contenders.ts';
import { describeDatabaseUrl } from './intake/databases.ts';
import { installInterruptHandler } from './intake/interrupt.ts';
import { urlPassword } from './intake/mask.ts';
import { BENCH_ACCOUNT } from './intake/money-in.ts';
import { combineSlices } from './intake/phase-figures.ts';
import { formatReport, judge, TARGETS, type ContenderRun } from './intake/report.ts';
import { runRounds, type Contest } from './intake/rounds.ts';
import { openSession, type ContenderSession } from './intake/session.ts';

function configOrExit(): BenchConfig {
  try {
    return readBenchConfig();
  } catch (error) {
    if (!(error instanceof BenchConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

const config = configOrExit();
installInterruptHandler();
// Like a token registered with the platform: random, 32 bytes. Never printed.
const token = randomBytes(32).toString('base64url');
const context = { config, token, account: BENCH_ACCOUNT, secrets: [token, urlPassword(config.adminUrl)] };
const slice = config.seconds / config.rounds;
console.log(
  `contenders: ${config.contenders.join(', ')}; ${describeDatabaseUrl(config.adminUrl)}; ${config.seconds} s per phase and contender in ${config.rounds} rounds; ${config.connections} connections`,
);

const contest: Contest = { live: [], crashed: [] };
const sessions: ContenderSession[] = [];
for (const name of config.contenders) {
  try {
    const session = await openSession(CONTENDERS[name], context);
    sessions.push(session);
    console.log(`${name}: ${session.contender.label}, ready at ${session.url}`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`${name}: ${message}`);
    contest.crashed.push(`${name} did not start: ${message.split('\n')[0]}`);
  }
}
contest.live = [...sessions];
if (sessions.length === 0) {
  console.error('FAILED: no contender started (see above)');
  process.exit(1);
}

await runRounds(contest, `warm-up (${config.warmupSeconds} s)`, 1, { mode: 'closed', seconds: config.warmupSeconds });
const peak = await runRounds(contest, `peak (${slice.toFixed(1)} s slices)`, config.rounds, {
  mode: 'closed',
  seconds: slice,
});
// The gateway's peak sets the one rate every contender is paced at; without it, the first contender's.
const reference = contest.live.find((s) => s.contender.name === 'gateway') ?? contest.live[0];
const referencePeak = reference ? combineSlices(peak.get(reference.contender.name) ?? []).okPerSecond : 0;
const pacedRate = Math.round(referencePeak / 2);
if (reference && reference.contender.name !== 'gateway')
  console.log(
    `  (no gateway in this run: ${reference.contender.name}'s peak sets the paced rate, and the targets are not judged)`,
  );
const paced =
  pacedRate > 0
    ? await runRounds(contest, `paced at ${pacedRate} req/s (${slice.toFixed(1)} s slices)`, config.rounds, {
        mode: 'paced',
        seconds: slice,
        rate: pacedRate,
      })
    : new Map();
if (pacedRate <= 0 && reference)
  contest.crashed.push(
    `${reference.contender.name} answered no delivery with 2xx at peak: there is no rate to pace at`,
  );

const runs: ContenderRun[] = [];
for (const session of sessions) {
  const name = session.contender.name;
  try {
    const audit = await session.finish();
    console.log(
      `${name}: audit: ${audit.answeredOk} answered 2xx, ${audit.storedRows} rows stored, ${audit.missing === 0 ? 'none missing' : `${audit.missing} MISSING (answered 2xx, not stored)`}`,
    );
    if (contest.live.includes(session))
      runs.push({
        name,
        label: session.contender.label,
        peak: combineSlices(peak.get(name) ?? []),
        paced: combineSlices(paced.get(name) ?? []),
        audit,
      });
    else if (audit.missing > 0)
      contest.crashed.push(`${name}: ${audit.missing} deliveries answered 2xx are not in its database`);
  } catch (error) {
    contest.crashed.push(`${name}: the audit failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const verdict = judge(runs, pacedRate, contest.crashed);
console.log(formatReport(runs, verdict, pacedRate, config.connections));

if (runs.some((run) => run.name === 'gateway')) {
  const figures = Object.fromEntries(
    runs.map((run) => {
      const phase = (f: ContenderRun['peak']) => ({
        okPerSecond: Math.round(f.okPerSecond),
        sliceOkPerSecond: f.sliceOkPerSecond.map(Math.round),
        p50Ms: f.latency.p50,
        p99Ms: f.latency.p99,
        maxMs: f.latency.max,
        statuses: f.statuses,
        errors: f.errors,
        timeouts: f.timeouts,
        ...(f.sendLagP99Ms === undefined ? {} : { loaderSendLagP99Ms: f.sendLagP99Ms }),
      });
      return [
        run.name,
        {
          label: run.label,
          peak: phase(run.peak),
          paced: phase(run.paced),
          audit: { answeredOk: run.audit.answeredOk, storedRows: run.audit.storedRows, missing: run.audit.missing },
        },
      ];
    }),
  );
  const file = await recordResult('gateway-intake', {
    secondsPerPhase: config.seconds,
    rounds: config.rounds,
    connections: config.connections,
    pacedRate,
    contenders: figures,
    targets: { goals: TARGETS, verdicts: verdict.targets },
    failures: verdict.failures,
    met: verdict.ok,
  });
  console.log(`recorded in ${file}`);
} else {
  console.log('not recorded: bench/results/gateway-intake.json holds runs with the gateway');
}
process.exitCode = verdict.ok ? 0 : 1;
