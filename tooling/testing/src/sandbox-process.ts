// The sandbox as a separate process, for tests of packages that must not import an app
// (dependencies point apps → packages): spawned from apps/sandbox on a free port, reached only
// over HTTP, stopped by close().
import path from 'node:path';
import { sandboxControl } from '@paykit/contracts';
import { PRODUCTS, type ProductName } from '@paykit/runtime';
import { initClient } from '@ts-rest/core';
import { startAppProcess } from './app-process.ts';

const MAIN = path.resolve(import.meta.dirname, '../../../apps/sandbox/src/main.ts');

export interface SandboxProcess {
  url: string;
  urls: Record<ProductName, string>;
  control: ReturnType<typeof initClient<typeof sandboxControl, { baseUrl: string }>>;
  pid: number;
  /** SIGKILL. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

export interface SandboxProcessOptions {
  /** Time stands still until the control API moves it (default true: tests decide time). */
  manualClock?: boolean;
  randomSeed?: string;
  /** Extra command-line arguments. */
  args?: string[];
  /** Everything the sandbox writes (its request log with --log). */
  onOutput?: (text: string) => void;
}

export async function startSandboxProcess(options: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const args = ['--port', '0', '--random-seed', options.randomSeed ?? 'test'];
  if (options.manualClock ?? true) args.push('--manual-clock');
  args.push(...(options.args ?? []));
  const app = await startAppProcess({
    name: 'The sandbox',
    main: MAIN,
    args,
    startTimeoutMs: 15_000,
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
  });
  const { url } = app;
  return {
    url,
    urls: Object.fromEntries(PRODUCTS.map((p) => [p, `${url}/${p}`])) as SandboxProcess['urls'],
    control: initClient(sandboxControl, { baseUrl: url }),
    pid: app.pid,
    kill: () => app.kill(),
    close: () => app.stop(),
  };
}
