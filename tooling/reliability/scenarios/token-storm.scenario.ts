// Scenario 8, token storms: 1,000 concurrent core calls per process, from one process and then
// from several (each its own in-memory token cache), in three phases: a cold start, across the
// token's expiry (the clients' clock follows the sandbox's past the 24 h), and a forced 401 (the
// sandbox's clock passes the expiry while the clients' clock lags, so the platform refuses a
// token the clients believe valid). Each phase must cost exactly one token creation per process
// (the sandbox's own counter) and fail no call.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { record } from '@paykit/testing/secret-audit';
import { recordScenario, scaled } from '../src/index.ts';
import type { StormRequest, StormResult } from '../src/token-storm-child.ts';

const CHILD = path.resolve(import.meta.dirname, '../src/token-storm-child.ts');
const LIST_WEBHOOKS = 'GET /core/v1/clients/:clientId/webhooks';
const DAY_SECONDS = 24 * 3600;

/** Concurrent calls each process fires per phase, and the fleets (processes at once) to run. */
const CALLS_PER_PROCESS = scaled(1000, 1000);
const FLEETS = scaled([1, 2, 3], [1, 2]);
/** Latency the sandbox adds to every API answer: 401s keep arriving while the one replacement is under way. */
const API_LATENCY_MS = scaled(100, 25);

interface Phase {
  name: string;
  /** How far the sandbox clock moves before the storm. */
  advanceSeconds: number;
  /** Whether the clients' clock follows (false: it lags, and the sandbox refuses their token). */
  clientsFollow: boolean;
  /** Requests each call makes: 2 when the first is refused with 401 and retried with the new token. */
  requestsPerCall: number;
}

const PHASES: readonly Phase[] = [
  { name: 'cold start', advanceSeconds: 0, clientsFollow: true, requestsPerCall: 1 },
  { name: 'across the expiry', advanceSeconds: DAY_SECONDS + 1, clientsFollow: true, requestsPerCall: 1 },
  { name: 'forced 401', advanceSeconds: DAY_SECONDS + 60, clientsFollow: false, requestsPerCall: 2 },
];

interface StormProcess {
  storm(request: StormRequest): Promise<StormResult>;
  close(): Promise<void>;
}

/** A token-storm-child.ts process over IPC; everything it writes goes to the secret audit. */
async function startStormProcess(name: string, env: Record<string, string>): Promise<StormProcess> {
  const child = spawn(process.execPath, ['--conditions=@paykit/source', CHILD], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      record(`${name} output`, chunk.toString());
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const died = (what: string) =>
    exited.then((code) => Promise.reject(new Error(`${name} exited (${code}) ${what}; its output:\n${output}`)));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  const ready = new Promise<void>((resolve) => child.once('message', () => resolve()));
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${name} did not start within 20 s; its output:\n${output}`)), 20_000).unref(),
  );
  try {
    await Promise.race([ready, died('before it was ready'), timeout]);
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    storm: (request) =>
      Promise.race([
        new Promise<StormResult>((resolve) => {
          child.once('message', (result) => resolve(result as StormResult));
          child.send(request);
        }),
        died('during a storm'),
      ]),
    async close() {
      // Disconnecting lets it exit by itself; a process that does not is killed.
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

let sandbox: SandboxProcess;
let clientEnv: Record<string, string>;
const processes: StormProcess[] = [];

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--log'], onOutput: (text) => record('sandbox output', text) });
  const seed = await sandbox.control.getSeed();
  if (seed.status !== 200) throw new Error(`GET /_sandbox/seed answered ${seed.status}: is the sandbox healthy?`);
  const client = seed.body.core.clients[0]!;
  const faults = await sandbox.control.setFaults({
    body: {
      api: { latencyMs: API_LATENCY_MS, errorRate: 0 },
      deliveries: { duplicates: { min: 1, max: 1 }, reorder: false, delayMs: 0, concurrency: 1 },
    },
  });
  if (faults.status !== 200) throw new Error(`PUT /_sandbox/faults answered ${faults.status}`);
  // No client secret: each process retrieves the credential with the API key, as a fresh deployment does.
  clientEnv = {
    STORM_CORE_URL: sandbox.urls.core,
    STORM_CLIENT_ID: client.clientId,
    STORM_API_KEY: client.apiKeys.staging,
  };
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.close()));
  await sandbox?.close();
});

async function counters(): Promise<{ creations: number; lists: number }> {
  const answer = await sandbox.control.getCounters();
  if (answer.status !== 200) throw new Error(`GET /_sandbox/counters answered ${answer.status}`);
  return { creations: answer.body.tokenCreations, lists: answer.body.requests[LIST_WEBHOOKS] ?? 0 };
}

async function sandboxNow(advanceSeconds: number): Promise<string> {
  const answer =
    advanceSeconds > 0
      ? await sandbox.control.advanceClock({ body: { seconds: advanceSeconds } })
      : await sandbox.control.getClock();
  if (answer.status !== 200) throw new Error(`the sandbox clock answered ${answer.status}`);
  return answer.body.now;
}

interface PhaseFigures {
  fleet: number;
  phase: Phase;
  calls: number;
  ok: number;
  failed: number;
  fiveXx: number;
  failures: string[];
  creations: number;
  requests: number;
  longestMs: number;
}

/** Starts `fleet` processes and runs the three phases on them, each storm from all at once. */
async function runFleet(fleet: number): Promise<PhaseFigures[]> {
  let clientsNow = await sandboxNow(0);
  const mine = await Promise.all(
    Array.from({ length: fleet }, (_, i) =>
      startStormProcess(`storm process ${i + 1}/${fleet}`, { ...clientEnv, STORM_NOW: clientsNow }),
    ),
  );
  processes.push(...mine);
  const figures: PhaseFigures[] = [];
  for (const phase of PHASES) {
    const now = await sandboxNow(phase.advanceSeconds);
    if (phase.clientsFollow) clientsNow = now;
    const before = await counters();
    const results = await Promise.all(mine.map((p) => p.storm({ calls: CALLS_PER_PROCESS, now: clientsNow })));
    const after = await counters();
    const failures = results.flatMap((r) => r.failures);
    for (const failure of failures) record('token-storm failure', failure);
    figures.push({
      fleet,
      phase,
      calls: fleet * CALLS_PER_PROCESS,
      ok: results.reduce((n, r) => n + r.ok, 0),
      failed: results.reduce((n, r) => n + r.failed, 0),
      fiveXx: results.reduce((n, r) => n + r.fiveXx, 0),
      failures,
      creations: after.creations - before.creations,
      requests: after.lists - before.lists,
      longestMs: Math.max(...results.map((r) => r.longestMs)),
    });
  }
  await Promise.all(mine.map((p) => p.close()));
  processes.splice(0, processes.length);
  return figures;
}

describe('token storms', () => {
  it(`${CALLS_PER_PROCESS} concurrent calls per process, ${FLEETS.join(' then ')} process(es): one token creation per process per phase, no failed call`, async () => {
    const started = performance.now();
    const figures: PhaseFigures[] = [];
    for (const fleet of FLEETS) figures.push(...(await runFleet(fleet)));

    const sent = figures.reduce((n, f) => n + f.calls, 0);
    const failed = figures.reduce((n, f) => n + f.failed, 0);
    recordScenario({
      scenario: 'token-storm',
      sent,
      acknowledged: figures.reduce((n, f) => n + f.ok, 0),
      stored: 0,
      applied: null,
      lost: failed,
      duplicated: 0,
      badInputs: 0,
      fiveXx: figures.reduce((n, f) => n + f.fiveXx, 0),
      fiveXxAllowed: false,
      longestAnswerMs: Math.max(...figures.map((f) => f.longestMs)),
      notes: [
        `${CALLS_PER_PROCESS} concurrent webhook lists per process, every sandbox answer delayed ${API_LATENCY_MS} ms; token creations counted by the sandbox (GET /_sandbox/counters)`,
        ...figures.map(
          (f) =>
            `${f.fleet} process(es), ${f.phase.name}: ${f.calls} calls, ${f.ok} ok, ${f.creations} token creation(s) (expected ${f.fleet}), ` +
            `${f.requests} list requests (expected ${f.calls * f.phase.requestsPerCall}), longest call ${Math.round(f.longestMs)} ms`,
        ),
        'the forced 401: the sandbox clock passes the token’s expiry while the clients’ clock lags (the sandbox has no control to revoke a token)',
      ],
      durationMs: performance.now() - started,
    });

    for (const f of figures) {
      const where = `${f.fleet} process(es), ${f.phase.name}`;
      expect(f.failures, `${where}: failed calls`).toEqual([]);
      expect(f.ok, `${where}: successful calls`).toBe(f.calls);
      expect(f.creations, `${where}: token creations (one per process)`).toBe(f.fleet);
      expect(f.requests, `${where}: list requests that reached the sandbox`).toBe(f.calls * f.phase.requestsPerCall);
    }
  });
});
