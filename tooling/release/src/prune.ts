// An app cut out of the monorepo the way the Dockerfile does it: `turbo prune <app> --docker`, an
// install from the pruned lockfile alone (--frozen-lockfile), the build of the app and the
// packages it uses, then `pnpm deploy --prod`: a folder with the app's built JavaScript and its
// production dependencies only. What is left runs with `node dist/main.js`, no TypeScript, no
// source condition, no build tool.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { WORKSPACE_BIN, childEnv, runOk } from './exec.ts';

export interface DeployedApp {
  /** The pruned, installed and built workspace the deploy was made from. */
  workspace: string;
  /** The deploy: where `node dist/main.js` runs, and all that an image carries. */
  appDir: string;
}

/** Prunes `app` (a package name) out of `repoRoot` into `work`, installs, builds and deploys it with its production dependencies. */
export async function pruneAndDeploy(repoRoot: string, app: string, work: string): Promise<DeployedApp> {
  const out = path.join(work, 'out');
  const workspace = path.join(work, 'workspace');
  const appDir = path.join(work, 'deploy');
  await runOk(path.join(WORKSPACE_BIN, 'turbo'), ['prune', app, '--docker', '--out-dir', out], { cwd: repoRoot });
  // Dockerfile stage "builder": manifests and lockfile first (a cached layer), then the sources.
  mkdirSync(workspace, { recursive: true });
  cpSync(path.join(out, 'json'), workspace, { recursive: true });
  const env = childEnv({ CI: 'true' });
  await runOk('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], { cwd: workspace, env, timeoutMs: 300_000 });
  cpSync(path.join(out, 'full'), workspace, { recursive: true });
  await runOk('pnpm', ['--filter', `${app}...`, 'run', 'build'], { cwd: workspace, env, timeoutMs: 600_000 });
  await runOk('pnpm', ['--filter', app, 'deploy', '--prod', '--no-optional', '--legacy', '--prefer-offline', '--reporter=silent', appDir], { cwd: workspace, env, timeoutMs: 300_000 });
  if (!existsSync(path.join(appDir, 'dist/main.js'))) throw new Error(`${app}: the deploy holds no dist/main.js (did the build run?).`);
  return { workspace, appDir };
}
