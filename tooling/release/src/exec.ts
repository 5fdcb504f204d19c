// Running the tools a release drives (git, pnpm, npm, node, turbo) as child processes: output
// is captured, a failure names the command and shows what it printed, and nothing waits forever.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The repository root (tooling/release/src → ../../..). */
export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
/** The workspace's own binaries: pnpm scripts put them on PATH; direct runs need them too. */
export const WORKSPACE_BIN = path.join(REPO_ROOT, 'node_modules/.bin');

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Milliseconds before the command is killed and the run fails (default 5 minutes). */
  timeoutMs?: number;
  input?: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class CommandError extends Error {
  override name = 'CommandError';
  readonly result: RunResult;

  constructor(message: string, result: RunResult) {
    super(message);
    this.result = result;
  }
}

/** The environment for a child: the workspace's Node 24 and binaries first on PATH. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const nodeDir = path.dirname(process.execPath);
  return { ...process.env, PATH: [WORKSPACE_BIN, nodeDir, process.env.PATH ?? ''].join(path.delimiter), ...extra };
}

/** Runs a command to its end; resolves with its output whatever its exit code. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? childEnv(),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timeoutMs = options.timeoutMs ?? 300_000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new CommandError(
          `${command} ${args.join(' ')} did not finish within ${timeoutMs / 1000} s (in ${options.cwd}).\n${stdout}\n${stderr}`,
          { code: -1, stdout, stderr },
        ),
      );
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(
        new CommandError(`${command} could not start: ${error.message}. Is it installed and on PATH?`, {
          code: -1,
          stdout,
          stderr,
        }),
      );
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    if (options.input !== undefined) {
      child.stdin?.on('error', () => {}); // a child that exits without reading its input is judged by its exit code
      child.stdin?.end(options.input);
    }
  });
}

/** Runs a command and fails with its output unless it exits 0. */
export async function runOk(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    throw new CommandError(
      `${command} ${args.join(' ')} exited ${result.code} (in ${options.cwd}):\n${result.stdout}\n${result.stderr}`.trim(),
      result,
    );
  }
  return result;
}

/** Waits until `output()` matches, the process exits, or the time is up. */
export function waitForOutput(
  child: ChildProcess,
  pattern: RegExp,
  output: () => string,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = output().match(pattern);
      if (match) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`The process exited (${code}) before printing ${pattern}:\n${output()}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Nothing matched ${pattern} within ${timeoutMs / 1000} s:\n${output()}`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', check);
      child.stderr?.off('data', check);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', onExit);
    check();
  });
}

/** Stops a child with SIGTERM (SIGKILL after `graceMs`) and resolves when it has exited. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
