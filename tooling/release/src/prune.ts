// An app cut out of the monorepo the way its Dockerfile does it: `turbo prune <app> --docker`,
// an install from the pruned lockfile alone (--frozen-lockfile), the build of the app and the
// packages it uses, and a production install without dev dependencies. What is left runs with
// `node dist/main.js`, no TypeScript and no source condition.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { WORKSPACE_BIN, childEnv, runOk } from './exec.ts';

export interface PrunedApp {
  /** The pruned, installed and built workspace. */
  root: string;
  /** The app's folder inside it, where `node dist/main.js` runs. */
  appDir: string;
}

/** Prunes `app` (a package name) out of `repoRoot` into `work`, installs, builds and drops dev dependencies. */
export async function pruneAndBuild(repoRoot: string, app: string, appFolder: string, work: string): Promise<PrunedApp> {
  const out = path.join(work, 'out');
  const root = path.join(work, 'workspace');
  await runOk(path.join(WORKSPACE_BIN, 'turbo'), ['prune', app, '--docker', '--out-dir', out], { cwd: repoRoot });
  // Dockerfile stage "builder": manifests and lockfile first (a cached layer), then the sources.
  mkdirSync(root, { recursive: true });
  cpSync(path.join(out, 'json'), root, { recursive: true });
  const env = childEnv({ CI: 'true' });
  await runOk('pnpm', ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], { cwd: root, env, timeoutMs: 300_000 });
  cpSync(path.join(out, 'full'), root, { recursive: true });
  await runOk('pnpm', ['--filter', `${app}...`, 'run', 'build'], { cwd: root, env, timeoutMs: 600_000 });
  await runOk('pnpm', ['install', '--prod', '--frozen-lockfile', '--prefer-offline', '--reporter=silent'], { cwd: root, env, timeoutMs: 300_000 });
  const appDir = path.join(root, appFolder);
  if (!existsSync(path.join(appDir, 'dist/main.js'))) throw new Error(`${app}: the build wrote no ${appFolder}/dist/main.js in the pruned workspace.`);
  return { root, appDir };
}
