// Runs one load in the loader process (loader.ts) and reads its result.
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { LoadPlan, LoadResult } from './load-result.ts';
import { onInterrupt } from './interrupt.ts';
import { maskSecrets } from './mask.ts';

const LOADER = path.join(import.meta.dirname, 'loader.ts');

export function runLoad(plan: LoadPlan, token: string): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=@paykit/source', LOADER], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_LOAD_PLAN: JSON.stringify(plan), BENCH_LOAD_TOKEN: token },
    });
    let interrupted = false;
    const forget = onInterrupt(async () => {
      interrupted = true;
      child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      forget();
      // The bench is exiting: nobody waits for this result.
      if (interrupted) return;
      if (code !== 0)
        return reject(new Error(`the loader exited with ${code ?? signal}:\n${maskSecrets(stderr.trim(), [token])}`));
      try {
        resolve(JSON.parse(stdout) as LoadResult);
      } catch {
        reject(
          new Error(
            `the loader's output is not a result (${stdout.length} characters):\n${maskSecrets(stderr.trim(), [token])}`,
          ),
        );
      }
    });
  });
}
