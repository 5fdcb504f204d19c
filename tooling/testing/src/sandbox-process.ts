// The sandbox as a separate process, for tests of packages that must not import an app
// (dependencies point apps → packages): spawned from apps/sandbox on a free port, reached only
// over HTTP, stopped by close().
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sandboxControl } from '@paykit/contracts';
import { PRODUCTS, type ProductName } from '@paykit/runtime';
import { initClient } from '@ts-rest/core';

const MAIN = path.resolve(import.meta.dirname, '../../../apps/sandbox/src/main.ts');

export interface SandboxProcess {
  url: string;
  urls: Record<ProductName, string>;
  control: ReturnType<typeof initClient<typeof sandboxControl, { baseUrl: string }>>;
  close(): Promise<void>;
}

export interface SandboxProcessOptions {
  /** Time stands still until the control API moves it (default true: tests decide time). */
  manualClock?: boolean;
  randomSeed?: string;
  /** Extra command-line arguments. */
  args?: string[];
}

export async function startSandboxProcess(options: SandboxProcessOptions = {}): Promise<SandboxProcess> {
  const args = ['--conditions=@paykit/source', MAIN, '--port', '0', '--random-seed', options.randomSeed ?? 'test'];
  if (options.manualClock ?? true) args.push('--manual-clock');
  args.push(...(options.args ?? []));
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The sandbox did not start within 15 s:\n${output}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The sandbox exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    url,
    urls: Object.fromEntries(PRODUCTS.map((p) => [p, `${url}/${p}`])) as SandboxProcess['urls'],
    control: initClient(sandboxControl, { baseUrl: url }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
