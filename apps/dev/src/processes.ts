// The apps as child processes, each started through its own entry (apps/<app>/src/main.ts) and
// configured by environment variables as in production. Every line a child writes goes to the log
// file, prefixed with its name; the last lines are kept to explain a child that dies.
import type { WriteStream } from 'node:fs';
import path from 'node:path';
import { AppStartError, spawnApp, type SpawnedApp } from '@paykit/service/process';

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

const running = new Set<SpawnedApp>();
// However the dev process ends, no child outlives it.
process.on('exit', () => {
  for (const child of running) void child.kill();
});

/**
 * Stops every child still running, one still starting included (not yet anyone's ChildApp):
 * SIGTERM, SIGKILL after STOP_TIMEOUT_MS; resolves once each has exited and been reaped, so none
 * outlives the dev process, not even as a zombie the machine's init has yet to collect.
 */
export async function stopRunning(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop(STOP_TIMEOUT_MS)));
}

/** Starts `spec` and resolves once it prints `listening on <url>`; rejects with ChildFailedError if it exits first. */
export async function startChild(root: string, spec: ChildSpec, log: WriteStream): Promise<ChildApp> {
  const lines: string[] = [];
  const child = spawnApp({
    name: spec.name,
    main: path.join(root, spec.entry),
    args: spec.args,
    cwd: root,
    // This process's environment (CONSOLE_PASSWORD, GATEWAY_LOG_LEVEL…), with what wires the child in on top.
    env: { ...process.env, ...spec.env },
    startTimeoutMs: READY_TIMEOUT_MS,
    onLine: (line) => {
      lines.push(line);
      if (lines.length > TAIL_LINES) lines.shift();
      log.write(`${spec.name} | ${line}\n`);
    },
  });
  running.add(child);
  void child.ended.then(() => running.delete(child));
  const url = await child.listening.catch((error: unknown) => {
    const reason =
      error instanceof AppStartError && error.code !== null
        ? error.code
        : `no "listening on" line within ${READY_TIMEOUT_MS / 1000} s`;
    throw new ChildFailedError(spec.name, reason, [...lines]);
  });
  return {
    name: spec.name,
    pid: child.pid,
    url,
    exited: child.ended,
    tail: () => [...lines],
    stop: () => child.stop(STOP_TIMEOUT_MS),
  };
}
