// A root script run as people run it, through pnpm (`pnpm start`, `pnpm paykit …`), so a test
// exercises the whole chain pnpm puts between a signal and our code: pnpm, the script's shell and
// pnpm's `node_modules/.bin/node` shim. And the process tree under it, read from `ps`, to prove
// that none of it outlives a signal to pnpm.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { record } from './secret-audit.ts';

/** The repository's root, where the root scripts run. */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

export interface PnpmProcess {
  child: ChildProcess;
  /** pnpm's own pid: the one a terminal's kill, a process manager or an IDE's stop signals. */
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout (or stderr) matches; rejects when pnpm ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number, stream?: 'stdout' | 'stderr'): Promise<void>;
  /** pnpm's exit: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * pnpm's own script, run here by node itself: `pnpm` on the PATH is a `#!/usr/bin/env node` script,
 * and inside a pnpm script the first `node` on the PATH is pnpm's node shim, so spawning `pnpm`
 * would give the shim's pid, not pnpm's.
 */
function pnpmScript(): string {
  const found = execFileSync('sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).trim();
  return realpathSync(found);
}

/**
 * `pnpm <args>` in the repository's root with `env` on top of this process's environment.
 * `detached`: pnpm leads a process group of its own, as a terminal's foreground job does, so a
 * test can signal the whole group (`process.kill(-pid, 'SIGINT')` is Ctrl-C).
 */
export function startPnpm(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
  options: { detached?: boolean } = {},
): PnpmProcess {
  const child = spawn(process.execPath, [pnpmScript(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let stdout = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const check of waiters) check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => {
      record(`${name} stdout`, stdout);
      record(`${name} stderr`, stderr);
      for (const check of waiters) check();
      resolve({ code, signal });
    });
  });
  return {
    child,
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, timeoutMs = 120_000, stream = 'stdout') {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`${name}: no ${String(pattern)} within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`),
          );
        }, timeoutMs);
        const check = (): void => {
          if (pattern.test(stream === 'stdout' ? stdout : stderr)) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`${name} ended before ${String(pattern)}; stdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** Every process below `pid` now (children, theirs, …), with its command line. */
export function descendantsOf(pid: number): { pid: number; command: string }[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), command: match[3]! }));
  const found: { pid: number; command: string }[] = [];
  const parents = [pid];
  while (parents.length > 0) {
    const parent = parents.pop()!;
    for (const row of table) {
      if (row.ppid !== parent) continue;
      found.push({ pid: row.pid, command: row.command });
      parents.push(row.pid);
    }
  }
  return found;
}

/** Whether a process is still alive (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until none of `pids` is alive, up to `timeoutMs`; returns the ones still alive then, and how long it took. */
export async function waitGone(pids: readonly number[], timeoutMs: number): Promise<{ alive: number[]; ms: number }> {
  const started = performance.now();
  for (;;) {
    const alive = pids.filter(isAlive);
    const ms = Math.round(performance.now() - started);
    if (alive.length === 0 || ms >= timeoutMs) return { alive, ms };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Kills whatever `pids` still holds (a failed test leaves nothing behind). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
}
