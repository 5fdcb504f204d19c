// One check every app's own `start` script must pass: started through pnpm (`pnpm --filter <app>
// start`), as an operator starts it alone, a SIGTERM or SIGINT to the pnpm process stops every
// process below it within 10 s (its start script execs scripts/node.sh, so node is pnpm's child).
import { descendantsOf, killAll, startPnpm, waitGone } from './pnpm-process.ts';

export async function stopsWithPnpm(options: {
  /** The package name, for `pnpm --filter`. */
  app: string;
  env: Record<string, string>;
  /** What the app prints once it runs. */
  ready: RegExp;
  signal: 'SIGTERM' | 'SIGINT';
}): Promise<{ below: string[]; alive: string[]; ms: number }> {
  const run = startPnpm(options.app, ['--filter', options.app, 'start'], options.env);
  let below: { pid: number; command: string }[] = [];
  try {
    await run.waitFor(options.ready, 120_000);
    below = descendantsOf(run.pid);
    process.kill(run.pid, options.signal);
    const gone = await waitGone(
      below.map((p) => p.pid),
      10_000,
    );
    await run.exited;
    return {
      below: below.map((p) => p.command),
      alive: below.filter((p) => gone.alive.includes(p.pid)).map((p) => p.command),
      ms: gone.ms,
    };
  } finally {
    killAll([run.pid, ...below.map((p) => p.pid)]);
  }
}
