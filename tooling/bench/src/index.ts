// What every benchmark shares: timing a command over repeated runs, and recording figures.
// These machines are shared and noisy, so each benchmark reports medians and a ratio against a
// baseline measured in the same run, never a bare time compared with a number from another day.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

export interface Timing {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

/** Runs `command` `runs` times (after `warmup` unmeasured runs) and reports wall-clock times. */
export function timeCommand(
  command: string,
  args: string[],
  { runs = 5, warmup = 1, ...options }: SpawnSyncOptions & { runs?: number; warmup?: number } = {},
): Timing {
  const samples: number[] = [];
  for (let i = 0; i < warmup + runs; i++) {
    const started = performance.now();
    const result = spawnSync(command, args, { stdio: 'pipe', ...options });
    const elapsed = performance.now() - started;
    if (result.status !== 0) {
      throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${String(result.stderr).slice(0, 2000)}`);
    }
    if (i >= warmup) samples.push(elapsed);
  }
  samples.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    runs,
    medianMs: round(samples[Math.floor(samples.length / 2)] ?? 0),
    minMs: round(samples[0] ?? 0),
    maxMs: round(samples.at(-1) ?? 0),
  };
}

/** Writes `bench/results/<name>.json` with the figures and when and where they were taken. */
export async function recordResult(name: string, figures: Record<string, unknown>): Promise<string> {
  const file = path.join(REPO_ROOT, 'bench/results', `${name}.json`);
  await mkdir(path.dirname(file), { recursive: true });
  const record = {
    name,
    measuredAt: new Date().toISOString(),
    node: process.version,
    cpus: (await import('node:os')).cpus().length,
    ...figures,
  };
  await writeFile(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}
