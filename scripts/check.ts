// `pnpm check`: every check as a turbo task, cached by its inputs, so a second run with nothing
// changed replays from the cache and a change re-runs only the tasks whose inputs it touches.
// The generated code against the specs, spec lint, the boundary rules, the formatting, lint,
// typecheck, the TypeScript blocks of the docs, each package's tests and the reliability suite in its
// reduced form, side by side.
// Builds run as the tests need them: every published package's for the release tests, which also
// build each app in its pruned copy (building the apps here too would repeat that work). The
// closing line sums the test summaries into `tests: N passed, N failed, N skipped`, after the
// `failed:` lines the packages' summaries named (repeated here, at the tail of the log). The
// reliability suite's bounds (a gateway answering again within 15 s of a thaw, say) hold on a
// machine loaded by the other tasks; the answer times it reports are then the loaded machine's.
import { spawn } from 'node:child_process';

/** Tasks at a time: most test files wait on the servers they start, so a few more than the cores. */
const CONCURRENCY = process.env.PAYKIT_CHECK_CONCURRENCY ?? '4';
const SUMMARY = /:(?:test|reliability:reduced): tests: (\d+) passed, (\d+) failed, (\d+) skipped\s*$/;
const FAILED = /^(\S+):(?:test|reliability:reduced): (failed: .*)$/;
// eslint-disable-next-line no-control-regex -- turbo colours its prefixes
const ANSI = /\u001b\[[0-9;]*m/g;

/** Runs turbo with `args`, echoing its output; resolves with its exit code and the lines it printed. */
function turbo(args: readonly string[]): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn('turbo', ['run', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    const lines: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts.map((line) => line.replace(ANSI, '')));
    });
    child.once('close', (code) => {
      if (pending) lines.push(pending.replace(ANSI, ''));
      resolve({ code: code ?? 1, lines });
    });
  });
}

const checks = await turbo([
  'codegen:check',
  'spec-lint',
  'boundaries',
  'format:check',
  'lint',
  'lint:root',
  'typecheck:all',
  'docs:check',
  'test',
  'reliability:reduced',
  `--concurrency=${CONCURRENCY}`,
  '--continue=dependencies-successful',
]);
let [passed, failed, skipped] = [0, 0, 0];
const failures: string[] = [];
for (const line of checks.lines) {
  const failure = FAILED.exec(line);
  if (failure) failures.push(`${failure[1]} ${failure[2]}`);
  const match = SUMMARY.exec(line);
  if (!match) continue;
  passed += Number(match[1]);
  failed += Number(match[2]);
  skipped += Number(match[3]);
}
if (failures.length > 0) console.log(`\n${failures.join('\n')}`);
console.log(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(checks.code);
