// A contender as a child process: started with the gateway's environment contract, ready when it
// prints `listening on http://…`, stopped with SIGTERM (SIGKILL if it does not exit in time).
import { spawn, type ChildProcess } from 'node:child_process';
import { maskSecrets } from './mask.ts';

const OUTPUT_KEPT = 8_000;
const STOP_GRACE_MS = 5_000;

export interface ReceiverProcess {
  /** Base URL from the ready line, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Its process id (the profiler reads its CPU time). */
  pid: number;
  /** Exit code or signal once it exited on its own, else undefined. */
  exitedWith(): string | undefined;
  /** The last lines it printed (secrets masked), for error messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface ReceiverOptions {
  label: string;
  entry: string;
  cwd: string;
  env: Record<string, string>;
  /** Masked in any output shown. */
  secrets: readonly string[];
  readyTimeoutMs: number;
  /** Node options before the entry point (the profiler's --cpu-prof). */
  nodeArgs?: readonly string[];
  /** A program to run node under, with its options (valgrind, for the instruction count). */
  launcher?: readonly string[];
}

/** The environment every contender starts with: the gateway's contract, which the baselines share. */
export function receiverEnv(databaseUrl: string, token: string, logLevel = 'warn'): Record<string, string> {
  return {
    GATEWAY_PORT: '0',
    GATEWAY_HOST: '127.0.0.1',
    DATABASE_URL: databaseUrl,
    GATEWAY_LOG_LEVEL: logLevel,
    GATEWAY_CORE_TOKENS_MONEY_IN: token,
  };
}

/**
 * The bench's environment without the receivers' own settings: a GATEWAY_CREDIT_LIMIT or a
 * DATABASE_URL left in the shell must not change what is measured; only `options.env` sets them.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('GATEWAY_') && name !== 'DATABASE_URL' && !name.startsWith('PAYKIT_'),
    ),
  );
}

export async function startReceiver(options: ReceiverOptions): Promise<ReceiverProcess> {
  const [command, ...args] = [
    ...(options.launcher ?? []),
    process.execPath,
    ...(options.nodeArgs ?? []),
    '--conditions=@paykit/source',
    options.entry,
  ];
  const child: ChildProcess = spawn(command!, args, {
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inheritedEnv(), ...options.env },
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ?? String(code);
      resolve();
    });
  });
  const shown = () => maskSecrets(output.trim(), options.secrets);

  const stop = async () => {
    if (exit !== undefined) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(
          `${options.label} did not print "listening on http://…" within ${options.readyTimeoutMs / 1000} s. Its output:\n${shown()}`,
        ),
      );
    }, options.readyTimeoutMs);
    const onData = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve(match[1]!.replace(/\/$/, ''));
    };
    child.stdout?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.label} exited (${exit}) before it was ready. Its output:\n${shown()}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${options.label} could not be started: ${error.message}`));
    });
  });

  return { url, pid: child.pid ?? 0, exitedWith: () => exit, output: shown, stop };
}
