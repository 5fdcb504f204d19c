// Code generation speed: a full regeneration of all seven specs (target: under 5 s), and a
// `pnpm gen` with nothing changed (a turbo cache hit), against the floor of starting Node.
import { spawnSync } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, recordResult, timeCommand } from '@paykit/bench';

const node = process.execPath;
const cli = path.join(REPO_ROOT, 'tooling/codegen/src/cli.ts');
const turbo = path.join(REPO_ROOT, 'node_modules/.bin/turbo');

// Regenerate into a copy of the specs so the benchmark never touches the working tree.
const copy = await mkdtemp(path.join(tmpdir(), 'paykit-bench-gen-'));
try {
  await cp(path.join(REPO_ROOT, 'specs'), path.join(copy, 'specs'), { recursive: true });
  const baseline = timeCommand(node, ['-e', '']);
  const full = timeCommand(node, [cli, 'gen', '--root', copy]);
  // One uncached-or-cached run first (warmup), then measured runs that must all be cache hits.
  const cached = timeCommand(turbo, ['run', 'codegen', '--output-logs=none'], { cwd: REPO_ROOT, warmup: 1 });
  // Prove the measured runs were cache hits rather than assume it.
  const check = spawnSync(turbo, ['run', 'codegen'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (!check.stdout.includes('1 cached, 1 total')) throw new Error(`turbo did not hit its cache:\n${check.stdout}`);
  const targetMs = 5000;
  console.log(`node start-up (baseline): median ${baseline.medianMs} ms`);
  console.log(
    `full regeneration, 7 specs: median ${full.medianMs} ms (${(full.medianMs / baseline.medianMs).toFixed(1)}× baseline; target < ${targetMs} ms: ${full.medianMs < targetMs ? 'met' : 'MISSED'})`,
  );
  console.log(
    `pnpm gen, nothing changed (turbo cache hit): median ${cached.medianMs} ms (${(cached.medianMs / baseline.medianMs).toFixed(1)}× baseline)`,
  );
  const file = await recordResult('codegen', {
    baseline,
    fullRegeneration: full,
    cachedGen: cached,
    targetMs,
    met: full.medianMs < targetMs,
  });
  console.log(`recorded in ${path.relative(REPO_ROOT, file)}`);
  if (full.medianMs >= targetMs) process.exitCode = 1;
} finally {
  await rm(copy, { recursive: true, force: true });
}
