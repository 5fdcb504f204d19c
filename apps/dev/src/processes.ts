// The apps as child processes, each started through its own entry (apps/<app>/src/main.ts) and
// configured by environment variables as in production. Every line a child writes goes to the log
// file, prefixed with its name; the last lines are kept to explain a child that dies.
import { spawn, type ChildProcess } from 'node:child_process';
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The lines of its log shown when a child fails. */
const TAIL_LINES = 15;
/** How long a child may take to print its `listening on <url>` line. */
const READY_TIMEOUT_MS = 120_000;
/** How long a child may take to stop on SIGTERM before it is killed (the apps bound their stop at 9 s). */
const STOP_TIMEOUT_MS = 10_000;

export interface ChildApp {
  readonly name: string;
  readonly pid: number;
  /** The URL from its `listening on <url>` line: the port it bound, 0 included. */
  readonly url: string;
  /** Resolves with its exit code (a signal's name when one ended it). */
  readonly exited: Promise<number | string>;
  /** Its last lines of output. */
  tail(): string[];
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  stop(): Promise<void>;
}

export class ChildFailedError extends Error {
  override readonly name = 'ChildFailedError';
  readonly app: string;
  readonly code: number | string;
  readonly lastLines: string[];
  constructor(app: string, code: number | string, lastLines: string[]) {
    super(`${app} ${typeof code === 'number' ? `exited with code ${code}` : `stopped: ${code}`}`);
    this.app = app;
    this.code = code;
    this.lastLines = lastLines;
  }
}

export interface ChildSpec {
  name: string;
  /** The app's entry, a path from the repository root. */
  entry: string;
  env: Record<string, string>;
  args?: string[];
}

const running = new Set<ChildProcess>();
// However the dev process ends, no child outlives it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Stops every child still running, one still starting included (not yet anyone's ChildApp):
 * SIGTERM, SIGKILL after STOP_TIMEOUT_MS; resolves once each has exited and been reaped, so none
 * outlives the dev process, not even as a zombie the machine's init has yet to collect.
 */
export async function stopRunning(): Promise<void> {
  await Promise.all([...running].map(stopProcess));
}

/** SIGTERM to `child`, SIGKILL after STOP_TIMEOUT_MS; resolves once it has exited (at once if it had). */
function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts `spec` and resolves once it prints `listening on <url>`; rejects with ChildFailedError if it exits first. */
export function startChild(root: string, spec: ChildSpec, log: WriteStream): Promise<ChildApp> {
  const child = spawn(
    process.execPath,
    ['--conditions=@paykit/source', path.join(root, spec.entry), ...(spec.args ?? [])],
    {
      cwd: root,
      // This process's environment (CONSOLE_PASSWORD, GATEWAY_LOG_LEVEL…), with what wires the child in on top.
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  const lines: string[] = [];
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'an unknown signal');
    }),
  );
  let url: string | undefined;
  let onUrl: (() => void) | undefined;
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      if (lines.length > TAIL_LINES) lines.shift();
      log.write(`${spec.name} | ${line}\n`);
      const listening = /listening on (http:\/\/\S+)/.exec(line);
      if (url === undefined && listening) {
        url = listening[1]!;
        onUrl?.();
      }
    });
  }
  const app: ChildApp = {
    name: spec.name,
    pid: child.pid!,
    get url() {
      return url!;
    },
    exited,
    tail: () => [...lines],
    stop: () => stopProcess(child),
  };
  return new Promise<ChildApp>((resolve, reject) => {
    const timer = setTimeout(() => {
      void app.stop();
      reject(new ChildFailedError(spec.name, `no "listening on" line within ${READY_TIMEOUT_MS / 1000} s`, lines));
    }, READY_TIMEOUT_MS);
    onUrl = () => {
      clearTimeout(timer);
      resolve(app);
    };
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new ChildFailedError(spec.name, code, app.tail()));
    });
  });
}
