// One of our apps as a child process, for tests that must run it the way production does (no app
// imports another app): spawned from its main.ts with the environment its README documents,
// ready once it prints `listening on <url>`, stopped with SIGTERM (which lets it finish what is in
// flight) or killed with SIGKILL (a crash). Everything it writes can be passed on (onOutput), so
// the secret audit and the reliability suite see every log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { compileCacheEnv } from './run-node.ts';

export interface AppProcessOptions {
  /** Names the process in errors ("the gateway"). */
  name: string;
  /** The app's entry file (main.ts), run with the @paykit/source condition. */
  main: string;
  args?: string[];
  /**
   * The whole environment (PATH is added, and NODE_COMPILE_CACHE when the test has it: where Node
   * keeps the code it compiled, which changes nothing the app does); nothing else of the test's
   * environment leaks in.
   */
  env?: Record<string, string>;
  /** How long it may take to print `listening on` (default 60 s: opening PGlite and migrating took 23 s on a loaded two-core machine). */
  startTimeoutMs?: number;
  /** Every chunk of stdout and stderr, as text. */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
}

export interface AppProcess {
  url: string;
  pid: number;
  /** Everything it wrote so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once it has exited. */
  exited: Promise<number | null>;
  /** SIGKILL: no cleanup, no answer to what is in flight. Resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit; SIGKILL after 10 s if it has not exited by then. */
  stop(): Promise<void>;
}

export async function startAppProcess(options: AppProcessOptions): Promise<AppProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--conditions=@paykit/source', options.main, ...(options.args ?? [])],
    {
      env: { PATH: process.env.PATH ?? '', ...compileCacheEnv(), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      options.onOutput?.(text, stream);
    });
  }
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${options.name} did not start within ${timeoutMs / 1000} s:\n${output}`));
    }, timeoutMs);
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', look);
      resolve(match[1]!);
    };
    child.stdout?.on('data', look);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited (${code}) before listening:\n${output}`));
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (running()) child.kill('SIGKILL');
    await exited;
  };
  /** SIGTERM; a process still there after `graceMs` (stuck, say) is killed, so a test never waits forever. */
  const stop = async (graceMs = 10_000) => {
    if (running()) child.kill('SIGTERM');
    const timer = setTimeout(() => void kill(), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return {
    url,
    pid: child.pid!,
    output: () => output,
    exited,
    kill,
    stop: () => stop(),
  };
}
