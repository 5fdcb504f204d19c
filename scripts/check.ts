// `pnpm check`: every check as a turbo task, cached by its inputs, so a second run with nothing
// changed replays from the cache and a change re-runs only the tasks whose inputs it touches.
// The generated code against the specs, spec lint, the boundary rules, the formatting, lint,
// typecheck, the TypeScript blocks of the docs, each package's tests and the reliability suite in its
// reduced form, side by side.
// The machine's cores are busy throughout, so the CPU sets the time, as long as no long task
// starts last. In one turbo run turbo orders the ready tasks as it likes (it started the
// reliability suite last, behind everything else, and the builds the release tests need late), so
// three runs go side by side, each from the start: the reliability suite alone; the release tests
// alone (after the builds they need); and the other tasks, the longest first: the tests of the
// packages that start apps and databases, then every other check, then the remaining tasks of the
// packages named so far (a task named with its package lifts a run's package filters, so these take
// a run of their own).
// Builds run as the tests need them: every published package's for the release tests, which also
// build each app in its pruned copy (building the apps here too would repeat that work). The
// closing line sums the test summaries into `tests: N passed, N failed, N skipped`, after the
// `failed:` lines the packages' summaries named (repeated here, at the tail of the log). The
// reliability suite's bounds (a gateway answering again within 15 s of a thaw, say) hold on a
// machine loaded by the other tasks; the answer times it reports are then the loaded machine's.
import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * Tasks at a time, the runs together: most test files wait on the servers they start, so a few
 * more than the cores. The reliability suite and the release tests take one each, the other run
 * the rest.
 */
const CONCURRENCY = Number(process.env.PAYKIT_CHECK_CONCURRENCY ?? '4');
const SUITE = '@paykit/reliability#reliability:reduced';
const RELEASE_TESTS = '@paykit/release#test';
/** The longest tests after those two, by their last measured times (each several minutes on two busy cores). */
const LONG_TESTS = [
  '@paykit/scripts#test',
  '@paykit/ledger#test',
  '@paykit/console#test',
  '@paykit/dev#test',
  '@paykit/webhook-gateway#test',
  '@paykit/store#test',
  '@paykit/reconciliation-worker#test',
  '@paykit/sandbox#test',
];
const packageOf = (task: string): string => task.slice(0, task.indexOf('#'));
/** Every other check of the packages above: their lint, and the reliability package's tests. */
const THEIR_OTHER_TASKS = [
  ...[SUITE, RELEASE_TESTS, ...LONG_TESTS].map((task) => `${packageOf(task)}#lint`),
  '@paykit/reliability#test',
];
const SUMMARY = /:(?:test|reliability:reduced): tests: (\d+) passed, (\d+) failed, (\d+) skipped\s*$/;
const FAILED = /^(\S+):(?:test|reliability:reduced): (failed: .*)$/;
// eslint-disable-next-line no-control-regex -- turbo colours its prefixes
const ANSI = /\u001b\[[0-9;]*m/g;

// Node keeps the code it compiled from our TypeScript sources here and loads it again in every
// later process: every test starts the apps and the CLI as processes, hundreds of times in all.
// (turbo.json passes NODE_COMPILE_CACHE through to the tasks.)
process.env.NODE_COMPILE_CACHE ??= path.resolve(import.meta.dirname, '../node_modules/.cache/node-compile-cache');

/**
 * Runs turbo with `args`, echoing its output whole lines at a time (the runs interleave by
 * line); resolves with its exit code and the lines it printed.
 */
function turbo(args: readonly string[]): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn('turbo', ['run', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    const lines: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      if (parts.length > 0) process.stdout.write(`${parts.join('\n')}\n`);
      lines.push(...parts.map((line) => line.replace(ANSI, '')));
    });
    child.once('close', (code) => {
      if (pending) {
        process.stdout.write(`${pending}\n`);
        lines.push(pending.replace(ANSI, ''));
      }
      resolve({ code: code ?? 1, lines });
    });
  });
}

const options = ['--continue=dependencies-successful'];
const others = `--concurrency=${Math.max(1, CONCURRENCY - 2)}`;
const runs = await Promise.all([
  turbo([SUITE, '--concurrency=1', ...options]),
  turbo([RELEASE_TESTS, '--concurrency=1', ...options]),
  (async () => {
    const lines: string[] = [];
    let code = 0;
    for (const tasks of [
      LONG_TESTS,
      [
        'codegen:check',
        'spec-lint',
        'boundaries',
        'format:check',
        'lint',
        'lint:root',
        'typecheck:all',
        'docs:check',
        'test',
        ...[SUITE, RELEASE_TESTS, ...LONG_TESTS].map((task) => `--filter=!${packageOf(task)}`),
      ],
      THEIR_OTHER_TASKS,
    ]) {
      const run = await turbo([...tasks, others, ...options]);
      lines.push(...run.lines);
      code ||= run.code;
    }
    return { code, lines };
  })(),
]);
let [passed, failed, skipped] = [0, 0, 0];
const failures: string[] = [];
for (const line of runs.flatMap((run) => run.lines)) {
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
process.exit(runs.find((run) => run.code !== 0)?.code ?? 0);
