// One of our apps as a child process, as `pnpm start` (apps/dev) and the tests run it: spawned from
// its main.ts with the @paykit/source condition and the environment given, ready once it prints
// `listening on <url>` (runApp's first line), stopped with SIGTERM (it finishes what is in flight)
// or killed with SIGKILL (a crash). Everything it writes can be passed on, as chunks (onOutput) or
// lines (onLine), and is kept for the error that explains a start that failed.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface AppProcessOptions {
  /** Names the process in errors ("The gateway"). */
  name: string;
  /** The app's entry file (main.ts), run with the @paykit/source condition. */
  main: string;
  args?: string[] | undefined;
  /** The whole environment of the process: nothing else of this process's leaks in. */
  env: Record<string, string | undefined>;
  cwd?: string | undefined;
  /** How long it may take to print `listening on` (default 60 s). */
  startTimeoutMs?: number | undefined;
  /** Every chunk of stdout and stderr, as text. */
  onOutput?: ((text: string, stream: 'stdout' | 'stderr') => void) | undefined;
  /** Every line of stdout and stderr. */
  onLine?: ((line: string, stream: 'stdout' | 'stderr') => void) | undefined;
}

/** An app process, started or still starting. */
export interface SpawnedApp {
  pid: number;
  /** Everything it wrote so far. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it) once it has exited. */
  exited: Promise<number | null>;
  /** Resolves with the exit code, or the name of the signal that ended it, once it has exited. */
  ended: Promise<number | string>;
  /** The URL of its `listening on <url>` line; rejects with AppStartError if it exits first or takes too long (it is then killed). */
  listening: Promise<string>;
  /** SIGKILL: no cleanup, no answer to what is in flight. Resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit; SIGKILL after `graceMs` (default 10 s: the apps bound their stop at 9 s). */
  stop(graceMs?: number): Promise<void>;
}

/** A started app: its `listening on` URL is known. */
export interface AppProcess extends SpawnedApp {
  url: string;
}

/** An app that exited before printing `listening on`, or did not print it in time; the message carries its output. */
export class AppStartError extends Error {
  override readonly name = 'AppStartError';
  /** Its exit code, the signal that ended it, or null when it was killed for taking too long. */
  readonly code: number | string | null;
  readonly output: string;
  constructor(message: string, code: number | string | null, output: string) {
    super(message);
    this.code = code;
    this.output = output;
  }
}

const LISTENING = /listening on (http:\/\/\S+)/;

/** Spawns the app; `listening` tells when it is ready. */
export function spawnApp(options: AppProcessOptions): SpawnedApp {
  const child = spawn(process.execPath, ['--conditions=@paykit/source', options.main, ...(options.args ?? [])], {
    env: options.env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ended = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'an unknown signal')),
  );
  const exited = ended.then((code) => (typeof code === 'number' ? code : null));
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      options.onOutput?.(text, stream);
    });
    if (options.onLine) createInterface({ input: child[stream] }).on('line', (line) => options.onLine!(line, stream));
  }
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = async () => {
    if (running()) child.kill('SIGKILL');
    await ended;
  };
  const stop = async (graceMs = 10_000) => {
    if (running()) child.kill('SIGTERM');
    const timer = setTimeout(() => void kill(), graceMs);
    await ended;
    clearTimeout(timer);
  };
  const timeoutMs = options.startTimeoutMs ?? 60_000;
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new AppStartError(`${options.name} did not start within ${timeoutMs / 1000} s:\n${output}`, null, output));
    }, timeoutMs);
    const look = () => {
      const match = LISTENING.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off('data', look);
      resolve(match[1]!);
    };
    child.stdout.on('data', look);
    void ended.then((code) => {
      clearTimeout(timer);
      reject(new AppStartError(`${options.name} exited (${code}) before listening:\n${output}`, code, output));
    });
  });
  // Nobody may wait for it (a starter that keeps the process only to stop it): not an unhandled rejection.
  listening.catch(() => undefined);
  return { pid: child.pid!, output: () => output, exited, ended, listening, kill, stop };
}

/** Starts the app and resolves once it prints `listening on <url>`; rejects with AppStartError if it exits first or takes too long. */
export async function startAppProcess(options: AppProcessOptions): Promise<AppProcess> {
  const app = spawnApp(options);
  return { ...app, url: await app.listening };
}
