// An app cut out of the monorepo the way the Dockerfile does it: `turbo prune <app> --docker`, an
// install from the pruned lockfile alone (--frozen-lockfile), the build of the app and the
// packages it uses, then `pnpm deploy --prod`: a folder with the app's built JavaScript and its
// production dependencies only. What is left runs with `node dist/main.js`, no TypeScript, no
// source condition, no build tool.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { WORKSPACE_BIN, childEnv, runOk } from './exec.ts';

export interface DeployedApp {
  /** The pruned, installed and built workspace the deploy was made from. */
  workspace: string;
  /** The deploy: where `node dist/main.js` runs, and all that an image carries. */
  appDir: string;
}

export interface PruneOptions {
  /**
   * A folder holding `packages/<name>/dist` as built from the same sources (see copyPackageBuilds):
   * the pruned workspace takes its packages' builds from there and builds only the app, instead
   * of building every package it uses again.
   */
  packageBuilds?: string;
}

/** Copies every `packages/<name>/dist` under `root` into `into`, the same layout: builds to share between prunes. */
export function copyPackageBuilds(root: string, into: string): void {
  for (const name of readdirSync(path.join(root, 'packages'))) {
    const dist = path.join(root, 'packages', name, 'dist');
    if (existsSync(dist)) cpSync(dist, path.join(into, 'packages', name, 'dist'), { recursive: true });
  }
}

/** Prunes `app` (a package name) out of `repoRoot` into `work`, installs, builds and deploys it with its production dependencies. */
export async function pruneAndDeploy(
  repoRoot: string,
  app: string,
  work: string,
  options: PruneOptions = {},
): Promise<DeployedApp> {
  const out = path.join(work, 'out');
  const workspace = path.join(work, 'workspace');
  const appDir = path.join(work, 'deploy');
  await runOk(path.join(WORKSPACE_BIN, 'turbo'), ['prune', app, '--docker', '--out-dir', out], { cwd: repoRoot });
  // Dockerfile stage "builder": manifests and lockfile first (a cached layer), then the sources.
  mkdirSync(workspace, { recursive: true });
  cpSync(path.join(out, 'json'), workspace, { recursive: true });
  const env = childEnv({ CI: 'true' });
  await runOk('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], {
    cwd: workspace,
    env,
    timeoutMs: 300_000,
  });
  cpSync(path.join(out, 'full'), workspace, { recursive: true });
  if (options.packageBuilds) {
    const builds = options.packageBuilds;
    for (const name of readdirSync(path.join(workspace, 'packages'))) {
      const dist = path.join(builds, 'packages', name, 'dist');
      if (!existsSync(dist))
        throw new Error(
          `${app}: ${dist} is missing: the pruned workspace uses packages/${name}, whose build was not copied.`,
        );
      cpSync(dist, path.join(workspace, 'packages', name, 'dist'), { recursive: true });
    }
  }
  await runOk('pnpm', ['--filter', options.packageBuilds ? app : `${app}...`, 'run', 'build'], {
    cwd: workspace,
    env,
    timeoutMs: 600_000,
  });
  await runOk(
    'pnpm',
    ['--filter', app, 'deploy', '--prod', '--no-optional', '--legacy', '--prefer-offline', '--reporter=silent', appDir],
    { cwd: workspace, env, timeoutMs: 300_000 },
  );
  if (!existsSync(path.join(appDir, 'dist/main.js')))
    throw new Error(`${app}: the deploy holds no dist/main.js (did the build run?).`);
  return { workspace, appDir };
}
