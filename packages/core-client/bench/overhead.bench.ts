// The core client's per-call cost against undici.request making the same request to the same
// sandbox process (targets: at most 1.15× its CPU per call, and calls/s no more than 10% below
// it). Both send GET /v1/clients/{id}/webhooks with the same bearer token and parse the JSON
// answer; the baseline has its own keep-alive pool. Each round runs a batch of each, alternating
// which goes first, and reads this process's CPU time (user + system: the client's side only, the
// sandbox is another process) and the wall time of each batch; a process's figure is the median
// of its per-round ratios. The same measurement runs in several fresh processes, one after the
// other, and the figure is the median of theirs: how V8 compiles and lays out one process moves
// its ratio by several points, which one process alone would report as the client's.
import { spawn } from 'node:child_process';
import { recordResult } from '@paykit/bench';
import { startSandboxProcess } from '@paykit/testing/sandbox';
import { createCoreClient } from '@paykit/core-client';
import { Agent, request } from 'undici';
import { readSeed } from '../test/helpers.ts';

const PROCESSES = 3;
const ROUNDS = 15;
const CALLS = 200;
/** CPU per call, client ÷ undici.request: at most. */
const CPU_TARGET = 1.15;
/** Calls per second, client ÷ undici.request: at least. */
const RATE_TARGET = 0.9;
const CHILD_ENV = 'PAYKIT_OVERHEAD_SETUP';

/** What a measuring process needs to call the sandbox (passed in the environment, never on argv). */
interface Setup {
  coreUrl: string;
  clientId: string;
  apiKey: string;
  clientSecret: string;
  /** The sandbox's manual clock, which stands still: read once (the client asks on every call). */
  nowIso: string;
}

interface Measurement {
  /** µs of this process's CPU per call. */
  rawCpuUs: number;
  clientCpuUs: number;
  rawPerSecond: number;
  clientPerSecond: number;
  /** Client ÷ undici.request, CPU per call (median of rounds). */
  cpuRatio: number;
  /** Client ÷ undici.request, calls per second (median of rounds). */
  rateRatio: number;
}

interface Batch {
  cpuUs: number;
  perSecond: number;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const round1 = (n: number) => Math.round(n * 10) / 10;

async function measure(setup: Setup): Promise<Measurement> {
  const sandboxNow = new Date(setup.nowIso);
  const core = createCoreClient({
    environment: 'sandbox',
    baseUrl: setup.coreUrl,
    clientId: setup.clientId,
    apiKey: setup.apiKey,
    clientSecret: setup.clientSecret,
    now: () => sandboxNow,
  });
  const token = (await core.tokens.current()).token;
  const url = `${setup.coreUrl}/v1/clients/${setup.clientId}/webhooks`;
  const dispatcher = new Agent({ keepAliveTimeout: 4_000 });
  const headers = { authorization: `Bearer ${token}` };
  const raw = async () => {
    const answer = await request(url, { dispatcher, headers });
    if (answer.statusCode !== 200) throw new Error(`undici.request: HTTP ${answer.statusCode}`);
    await answer.body.json();
  };
  const viaClient = async () => {
    await core.webhooks.list();
  };
  const batch = async (call: () => Promise<void>): Promise<Batch> => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) await call();
    const elapsedMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / CALLS, perSecond: (CALLS * 1000) / elapsedMs };
  };
  const round = async (rawFirst: boolean) => {
    if (rawFirst) {
      const rawBatch = await batch(raw);
      return { raw: rawBatch, client: await batch(viaClient) };
    }
    const clientBatch = await batch(viaClient);
    return { raw: await batch(raw), client: clientBatch };
  };
  await round(true); // warm both paths (JIT, keep-alive connections)
  const rounds: { raw: Batch; client: Batch }[] = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await round(r % 2 === 0));
  await dispatcher.close();
  return {
    rawCpuUs: median(rounds.map((r) => r.raw.cpuUs)),
    clientCpuUs: median(rounds.map((r) => r.client.cpuUs)),
    rawPerSecond: median(rounds.map((r) => r.raw.perSecond)),
    clientPerSecond: median(rounds.map((r) => r.client.perSecond)),
    cpuRatio: median(rounds.map((r) => r.client.cpuUs / r.raw.cpuUs)),
    rateRatio: median(rounds.map((r) => r.client.perSecond / r.raw.perSecond)),
  };
}

/** One measurement in a fresh process (this file, in child mode). */
function measureInChild(setup: Setup): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename], {
      env: { ...process.env, [CHILD_ENV]: JSON.stringify(setup) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`a measuring process exited with ${code}`));
      try {
        resolve(JSON.parse(stdout) as Measurement);
      } catch {
        reject(new Error(`a measuring process printed no result (${stdout.length} characters)`));
      }
    });
  });
}

const childSetup = process.env[CHILD_ENV];
if (childSetup !== undefined) {
  process.stdout.write(`${JSON.stringify(await measure(JSON.parse(childSetup) as Setup))}\n`);
} else {
  const sandbox = await startSandboxProcess({ manualClock: true });
  try {
    const seed = await readSeed(sandbox);
    const clock = await sandbox.control.getClock();
    if (clock.status !== 200) throw new Error('cannot read the sandbox clock');
    const setup: Setup = {
      coreUrl: sandbox.urls.core,
      clientId: seed.clientId,
      apiKey: seed.stagingApiKey,
      clientSecret: seed.stagingSecret,
      nowIso: clock.body.now,
    };
    const runs: Measurement[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const run = await measureInChild(setup);
      runs.push(run);
      console.log(
        `process ${i + 1}/${PROCESSES}: undici.request ${round1(run.rawCpuUs)} µs CPU, ${Math.round(run.rawPerSecond)} calls/s; core client ${round1(run.clientCpuUs)} µs CPU, ${Math.round(run.clientPerSecond)} calls/s (CPU ${run.cpuRatio.toFixed(3)}×, calls/s ${run.rateRatio.toFixed(3)}×)`,
      );
    }
    const of = (pick: (run: Measurement) => number) => median(runs.map(pick));
    const cpuRatio = of((run) => run.cpuRatio);
    const rateRatio = of((run) => run.rateRatio);
    const met = cpuRatio <= CPU_TARGET && rateRatio >= RATE_TARGET;
    console.log(
      `undici.request (baseline): median ${round1(of((run) => run.rawCpuUs))} µs CPU per call, ${Math.round(of((run) => run.rawPerSecond))} calls/s`,
    );
    console.log(
      `core client:               median ${round1(of((run) => run.clientCpuUs))} µs CPU per call, ${Math.round(of((run) => run.clientPerSecond))} calls/s`,
    );
    console.log(
      `CPU per call ${cpuRatio.toFixed(3)}× undici.request (target ≤ ${CPU_TARGET}: ${cpuRatio <= CPU_TARGET ? 'met' : 'MISSED'}); calls/s ${rateRatio.toFixed(3)}× (target ≥ ${RATE_TARGET}: ${rateRatio >= RATE_TARGET ? 'met' : 'MISSED'}); median of ${PROCESSES} processes`,
    );
    const file = await recordResult('core-client-overhead', {
      baseline: 'undici.request',
      processes: PROCESSES,
      roundsPerProcess: ROUNDS,
      callsPerBatch: CALLS,
      rawCpuUsPerCall: round1(of((run) => run.rawCpuUs)),
      clientCpuUsPerCall: round1(of((run) => run.clientCpuUs)),
      rawCallsPerSecond: Math.round(of((run) => run.rawPerSecond)),
      clientCallsPerSecond: Math.round(of((run) => run.clientPerSecond)),
      cpuRatio: round3(cpuRatio),
      rateRatio: round3(rateRatio),
      processCpuRatios: runs.map((run) => round3(run.cpuRatio)),
      processRateRatios: runs.map((run) => round3(run.rateRatio)),
      cpuTarget: CPU_TARGET,
      rateTarget: RATE_TARGET,
      met,
    });
    console.log(`recorded in ${file}`);
    if (!met) process.exitCode = 1;
  } finally {
    await sandbox.close();
  }
}
