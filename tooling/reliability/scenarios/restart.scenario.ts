// Restart. `pnpm start --once --persist` several times on one store (a PGlite folder, or a fresh
// PostgreSQL database with DATABASE_URL): each start is a new sandbox process, and every event
// its scenario causes must be stored, not dropped as a duplicate of an earlier run's (the
// sandbox's ids, cash operation ids and report names never repeat across processes). Each run's
// checks read only what the store gained during it, so a run that lost its events fails.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { createScenarioStore, type ScenarioStore } from '../src/store.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const RUNS = scaled(3, 2);

interface Run {
  code: number | null;
  /** "the store gained N event(s) during this run" */
  gained: number;
  expected: string;
  passed: boolean;
  seconds: number;
}

/** One `pnpm start --once --persist --port 0` as a child process on the scenario's store. */
function startOnce(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--conditions=@paykit/source', 'apps/dev/src/main.ts', '--once', '--persist', '--port', '0'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      record('pnpm start output', output);
      resolve({
        code,
        gained: Number(/the store gained (\d+) event\(s\) during this run/.exec(output)?.[1] ?? 0),
        expected: /(\d+ of \d+) expected events stored as expected during this run/.exec(output)?.[1] ?? 'none',
        passed: /All \d+ steps and checks passed\./.test(output),
        seconds: Math.round((performance.now() - started) / 100) / 10,
      });
    });
  });
}

describe('restart', () => {
  let store: ScenarioStore;
  beforeAll(async () => {
    store = await createScenarioStore('restart');
  });
  afterAll(async () => {
    await store?.remove();
  });

  it(`${RUNS} runs of pnpm start on one store: each stores every event it causes`, async () => {
    const startedAt = performance.now();
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await startOnce(store.env));
    const stored = await store.read(async (db) =>
      Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_events')).rows[0]!.n),
    );
    const first = runs[0]!.gained;
    const lost = runs.slice(1).reduce((sum, run) => sum + Math.max(0, first - run.gained), 0);
    recordScenario({
      scenario: 'restart',
      sent: first * RUNS,
      acknowledged: runs.reduce((sum, run) => sum + run.gained, 0),
      stored,
      applied: null,
      lost,
      duplicated: 0,
      badInputs: 0,
      fiveXx: 0,
      fiveXxAllowed: false,
      // No request is timed here: a run is a whole process (its seconds are in the notes).
      longestAnswerMs: 0,
      notes: [
        `${RUNS} runs of pnpm start --once --persist on one ${store.kind} store: stored ${runs.map((run) => run.gained).join(', ')} event(s) (each run's gain); expected events found in each run's gain: ${runs.map((run) => run.expected).join(', ')}`,
        `exit codes ${runs.map((run) => run.code).join(', ')}, ${runs.map((run) => `${run.seconds} s`).join(', ')}; the store holds ${stored} events`,
      ],
      durationMs: performance.now() - startedAt,
    });
    expect(first).toBeGreaterThan(0);
    for (const run of runs) {
      expect(run).toMatchObject({ code: 0, passed: true, gained: first });
    }
    expect(stored).toBe(first * RUNS);
  }, 900_000);
});
