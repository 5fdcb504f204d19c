// The core client's per-call overhead against raw fetch on the same sandbox operation (target:
// within 15%). Both send GET /v1/clients/{id}/webhooks with the same bearer token to the same
// sandbox process. Calls are interleaved one by one (alternating which goes first), so load from
// elsewhere on this shared machine hits both alike; a process's figure is the median of its
// per-round ratios. The same measurement runs in several fresh processes, one after the other,
// and the figure is the median of theirs: how V8 compiles and lays out one process moves its
// ratio by several points, which one process alone would report as the client's.
import { spawn } from 'node:child_process';
import { recordResult } from '@paykit/bench';
import { startSandboxProcess } from '@paykit/testing/sandbox';
import { createCoreClient } from '@paykit/core-client';
import { readSeed } from '../test/helpers.ts';

const PROCESSES = 3;
const ROUNDS = 15;
const CALLS = 300;
const TARGET = 1.15;
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
  rawMs: number;
  clientMs: number;
  ratio: number;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round3 = (n: number) => Math.round(n * 1000) / 1000;

async function measure(setup: Setup): Promise<Measurement> {
  const sandboxNow = new Date(setup.nowIso);
  const core = createCoreClient({ environment: 'sandbox', baseUrl: setup.coreUrl, clientId: setup.clientId, apiKey: setup.apiKey, clientSecret: setup.clientSecret, now: () => sandboxNow });
  const token = (await core.tokens.current()).token;
  const url = `${setup.coreUrl}/v1/clients/${setup.clientId}/webhooks`;
  const raw = async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`raw fetch: HTTP ${response.status}`);
    await response.json();
  };
  const viaClient = async () => {
    await core.webhooks.list();
  };
  const timed = async (call: () => Promise<void>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };
  const round = async () => {
    let rawTotal = 0;
    let clientTotal = 0;
    for (let i = 0; i < CALLS; i++) {
      if (i % 2 === 0) {
        rawTotal += await timed(raw);
        clientTotal += await timed(viaClient);
      } else {
        clientTotal += await timed(viaClient);
        rawTotal += await timed(raw);
      }
    }
    return { raw: rawTotal / CALLS, client: clientTotal / CALLS };
  };
  await round(); // warm both paths (JIT, keep-alive connections)
  const rawMs: number[] = [];
  const clientMs: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { raw: rawMean, client: clientMean } = await round();
    rawMs.push(rawMean);
    clientMs.push(clientMean);
    ratios.push(clientMean / rawMean);
  }
  return { rawMs: median(rawMs), clientMs: median(clientMs), ratio: median(ratios) };
}

/** One measurement in a fresh process (this file, in child mode). */
function measureInChild(setup: Setup): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, import.meta.filename], { env: { ...process.env, [CHILD_ENV]: JSON.stringify(setup) }, stdio: ['ignore', 'pipe', 'inherit'] });
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
    const setup: Setup = { coreUrl: sandbox.urls.core, clientId: seed.clientId, apiKey: seed.stagingApiKey, clientSecret: seed.stagingSecret, nowIso: clock.body.now };
    const runs: Measurement[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const run = await measureInChild(setup);
      runs.push(run);
      console.log(`process ${i + 1}/${PROCESSES}: raw fetch ${round3(run.rawMs)} ms, core client ${round3(run.clientMs)} ms per call: ${((run.ratio - 1) * 100).toFixed(1)}%`);
    }
    const ratio = median(runs.map((run) => run.ratio));
    const rawMs = median(runs.map((run) => run.rawMs));
    const clientMs = median(runs.map((run) => run.clientMs));
    console.log(`raw fetch (baseline): median ${round3(rawMs)} ms per call`);
    console.log(`core client:          median ${round3(clientMs)} ms per call`);
    console.log(`overhead: ${((ratio - 1) * 100).toFixed(1)}% (${ratio.toFixed(3)}× raw fetch, median of ${PROCESSES} processes; target within ${Math.round((TARGET - 1) * 100)}%: ${ratio <= TARGET ? 'met' : 'MISSED'})`);
    const file = await recordResult('core-client-overhead', {
      processes: PROCESSES,
      roundsPerProcess: ROUNDS,
      callsPerRound: CALLS,
      rawMedianMs: round3(rawMs),
      clientMedianMs: round3(clientMs),
      ratio: round3(ratio),
      processRatios: runs.map((run) => round3(run.ratio)),
      target: TARGET,
      met: ratio <= TARGET,
    });
    console.log(`recorded in ${file}`);
    if (ratio > TARGET) process.exitCode = 1;
  } finally {
    await sandbox.close();
  }
}
