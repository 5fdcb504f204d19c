// Each app cut out of the monorepo alone: `turbo prune <app> --docker`, `pnpm install
// --frozen-lockfile` on the pruned lockfile, the build, a production install (no dev
// dependencies), and the production start `node dist/main.js` with only the app's own
// environment variables, answering over HTTP and stopping cleanly on SIGTERM. This is what each
// app's Dockerfile does; no Docker engine runs here, so the image build itself is not run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, stopChild, waitForOutput } from '../src/exec.ts';
import { pruneAndBuild } from '../src/prune.ts';

const work: string[] = [];
afterAll(() => {
  for (const dir of work) rmSync(dir, { recursive: true, force: true });
});

interface AppCase {
  name: string;
  folder: string;
  /** The app's own variables; nothing else from the test's environment reaches it. */
  env: (dataDir: string) => Record<string, string>;
  /** Paths that must answer 200 once it listens. */
  probes: string[];
  /** A command-line app instead of a server: run with these arguments, it must exit 0 printing `expect`. */
  run?: { args: string[]; expect: RegExp };
}

const APPS: AppCase[] = [
  { name: '@paykit/sandbox', folder: 'apps/sandbox', env: () => ({ SANDBOX_PORT: '0' }), probes: ['/_sandbox/clock'] },
  {
    name: '@paykit/webhook-gateway',
    folder: 'apps/webhook-gateway',
    env: (dataDir) => ({ GATEWAY_PORT: '0', PAYKIT_DATA_DIR: dataDir, GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken, GATEWAY_LOG_LEVEL: 'warn' }),
    probes: ['/healthz', '/readyz'],
  },
  {
    name: '@paykit/reconciliation-worker',
    folder: 'apps/reconciliation-worker',
    env: (dataDir) => ({ WORKER_PORT: '0', PAYKIT_DATA_DIR: dataDir }),
    probes: ['/', '/summary.json'],
  },
  { name: '@paykit/scripts', folder: 'apps/scripts', env: () => ({}), probes: [], run: { args: ['--help'], expect: /Usage: paykit/ } },
];

describe.each(APPS)('$name pruned out of the monorepo', (app) => {
  it('installs from the pruned lockfile, builds, and starts with node dist/main.js without dev tooling', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), `paykit-prune-${app.folder.split('/')[1]}-`));
    work.push(dir);
    const pruned = await pruneAndBuild(REPO_ROOT, app.name, app.folder, dir);
    // After the production install the app links only its own dependencies, and no dev tooling
    // is left. (The pruned tree itself also holds whatever the root package.json depends on.)
    const manifest = JSON.parse(readFileSync(path.join(pruned.appDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const linked = readdirSync(path.join(pruned.appDir, 'node_modules/@paykit')).map((name) => `@paykit/${name}`);
    expect(linked.sort()).toEqual(Object.keys(manifest.dependencies).filter((name) => name.startsWith('@paykit/')).sort());
    for (const tool of ['typescript', 'turbo', 'vitest', 'eslint']) expect(existsSync(path.join(pruned.root, 'node_modules', tool)), tool).toBe(false);

    if (app.run) {
      const { args, expect: printed } = app.run;
      const result = spawnSync(process.execPath, ['dist/main.js', ...args], { cwd: pruned.appDir, env: { PATH: process.env.PATH ?? '', HOME: dir }, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(printed);
      return;
    }
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: pruned.appDir,
      env: { PATH: process.env.PATH ?? '', ...app.env(path.join(dir, 'data')) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const [, url] = await waitForOutput(child, /listening on (http:\/\/[\d.:]+)/, () => output, 30_000);
      for (const probe of app.probes) expect((await fetch(`${url}${probe}`)).status, probe).toBe(200);
    } finally {
      await stopChild(child);
    }
    expect(child.exitCode ?? child.signalCode).toBe(0);
  }, 240_000);
});
