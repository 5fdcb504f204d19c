// A Node program of ours run to completion as a child process (the `paykit` CLI, say): its exit
// code, stdout and stderr, each recorded for the secret audit under `<name> stdout|stderr`,
// killed after `timeoutMs` so a hung run fails its test instead of the suite.
import { spawn } from 'node:child_process';
import { record } from './secret-audit.ts';

export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunNodeOptions {
  /** Names the output in the secret audit ("paykit"). */
  name: string;
  /** The whole environment of the child (NODE_COMPILE_CACHE is added when this process has it). */
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Default 30 s. */
  timeoutMs?: number;
  /** Written to the child's standard input, which is then closed (without it: empty; never a terminal). */
  input?: string;
}

/**
 * NODE_COMPILE_CACHE, when this process has it (`pnpm check` sets it): a child given a whole
 * environment of its own still loads the code Node compiled from our sources before instead of
 * compiling it again. It changes nothing the program does.
 */
export function compileCacheEnv(): Record<string, string> {
  const dir = process.env.NODE_COMPILE_CACHE;
  return dir ? { NODE_COMPILE_CACHE: dir } : {};
}

export function runNode(main: string, args: readonly string[], options: RunNodeOptions): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@paykit/source', main, ...args], {
      cwd: options.cwd,
      env: { ...compileCacheEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const command = `${options.name} ${args.join(' ')}`;
      record(`${options.name} stdout`, `${command}\n${stdout}`);
      record(`${options.name} stderr`, `${command}\n${stderr}`);
      resolve({ code, stdout, stderr });
    });
  });
}
