// Each app cut out of the monorepo alone: `turbo prune <app> --docker`, `pnpm install
// --frozen-lockfile` on the pruned lockfile, the build (the app's own; the packages it uses are
// built once for all four), `pnpm deploy --prod` (the app's built JavaScript and production
// dependencies only: no build tool, no second Node binary, within its size bound), and the production start `node dist/main.js` with only the app's own environment
// variables, answering over HTTP and stopping cleanly on SIGTERM. This is what the Dockerfile
// does; no Docker engine runs here, so the image build itself is not run.
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, stopChild, waitForOutput } from '../src/exec.ts';
import { withBuiltPackages } from '../src/pack.ts';
import { copyPackageBuilds, pruneAndDeploy } from '../src/prune.ts';

const work: string[] = [];
// Four workspaces and deploys of a few thousand files each take a while to remove.
afterAll(() => {
  for (const dir of work) rmSync(dir, { recursive: true, force: true });
}, 120_000);

// The packages the apps share are built once (turbo, from its cache when their sources are
// unchanged) and each pruned workspace takes their builds and builds its app alone: the same
// tsc output the Dockerfile's `pnpm --filter <app>... build` makes, without four builds of each.
const packageBuilds = mkdtempSync(path.join(tmpdir(), 'paykit-prune-builds-'));
work.push(packageBuilds);
beforeAll(() => withBuiltPackages(REPO_ROOT, async () => copyPackageBuilds(REPO_ROOT, packageBuilds)), 600_000);

interface AppCase {
  name: string;
  folder: string;
  /** The app's own variables; nothing else from the test's environment reaches it. */
  env: (dataDir: string) => Record<string, string>;
  /** Paths that must answer 200 once it listens. */
  probes: string[];
  /** A command-line app instead of a server: run with these arguments, it must exit 0 printing `expect`. */
  run?: { args: string[]; expect: RegExp };
  /** The most the deploy may weigh, in MB. */
  maxMb: number;
}

/** Bytes under `dir`, links not followed (pnpm's store links count once, where they point inside the deploy). */
function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    total += entry.isDirectory() ? sizeOf(full) : lstatSync(full).size;
  }
  return total;
}

/** Build tools and Node binaries a deploy must not carry, found anywhere in its node_modules. */
const BUILD_TOOLS =
  /^(typescript|turbo|turbo-[\w-]+|vitest|eslint|@eslint\+|@typescript-eslint\+|node-(linux|darwin|win)-[\w]+)(@|$)/;

const APPS: AppCase[] = [
  {
    name: '@paykit/sandbox',
    folder: 'apps/sandbox',
    env: () => ({ SANDBOX_PORT: '0' }),
    probes: ['/_sandbox/clock'],
    maxMb: 80,
  },
  {
    name: '@paykit/webhook-gateway',
    folder: 'apps/webhook-gateway',
    env: (dataDir) => ({
      GATEWAY_PORT: '0',
      PAYKIT_DATA_DIR: dataDir,
      GATEWAY_CORE_TOKENS_MONEY_IN: TEST_SECRETS.coreWebhookToken,
      GATEWAY_LOG_LEVEL: 'warn',
    }),
    probes: ['/healthz', '/readyz'],
    maxMb: 80,
  },
  {
    name: '@paykit/reconciliation-worker',
    folder: 'apps/reconciliation-worker',
    env: (dataDir) => ({ WORKER_PORT: '0', PAYKIT_DATA_DIR: dataDir }),
    probes: ['/healthz', '/metrics'],
    maxMb: 80,
  },
  {
    name: '@paykit/console',
    folder: 'apps/console',
    env: (dataDir) => ({ CONSOLE_PORT: '0', PAYKIT_DATA_DIR: dataDir, CONSOLE_LOG_LEVEL: 'warn' }),
    probes: ['/', '/summary.json', '/healthz'],
    maxMb: 80,
  },
  {
    name: '@paykit/scripts',
    folder: 'apps/scripts',
    env: () => ({}),
    probes: [],
    run: { args: ['--help'], expect: /Usage: paykit/ },
    maxMb: 80,
  },
];

describe.each(APPS)('$name pruned out of the monorepo', (app) => {
  it('installs from the pruned lockfile, builds, and starts with node dist/main.js without dev tooling', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), `paykit-prune-${app.folder.split('/')[1]}-`));
    work.push(dir);
    const pruned = await pruneAndDeploy(REPO_ROOT, app.name, dir, { packageBuilds });
    // The deploy links only the app's own @paykit dependencies, and no build tool or Node binary.
    const manifest = JSON.parse(readFileSync(path.join(pruned.appDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const linked = readdirSync(path.join(pruned.appDir, 'node_modules/@paykit')).map((name) => `@paykit/${name}`);
    expect(linked.sort()).toEqual(
      Object.keys(manifest.dependencies)
        .filter((name) => name.startsWith('@paykit/'))
        .sort(),
    );
    const store = path.join(pruned.appDir, 'node_modules/.pnpm');
    const tools = [...readdirSync(store), ...readdirSync(path.join(pruned.appDir, 'node_modules'))].filter((name) =>
      BUILD_TOOLS.test(name),
    );
    expect(tools, 'build tools or Node binaries in the deploy').toEqual([]);
    const mb = sizeOf(pruned.appDir) / 1e6;
    console.log(`${app.name}: deploy ${mb.toFixed(1)} MB (bound ${app.maxMb} MB)`);
    expect(mb).toBeLessThanOrEqual(app.maxMb);

    if (app.run) {
      const { args, expect: printed } = app.run;
      const result = spawnSync(process.execPath, ['dist/main.js', ...args], {
        cwd: pruned.appDir,
        env: { PATH: process.env.PATH ?? '', HOME: dir },
        encoding: 'utf8',
      });
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
      // A first start migrates a fresh PGlite (the gateway: every set): past 30 s while CI runs other suites.
      const [, url] = await waitForOutput(child, /listening on (http:\/\/[\d.:]+)/, () => output, 120_000);
      for (const probe of app.probes) expect((await fetch(`${url}${probe}`)).status, probe).toBe(200);
    } finally {
      await stopChild(child);
    }
    expect(child.exitCode ?? child.signalCode).toBe(0);
  }, 240_000);
});
