// The workspace as release tooling sees it: the publishable packages (packages/*, not private)
// with their manifests, the spec each client is generated from, and a copy of the repository, now
// or at an earlier release, for commands that must not touch the real one (changeset version,
// changeset publish, building a previous release).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { childEnv, runOk } from './exec.ts';

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: Record<string, unknown>;
  bin?: Record<string, string>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  publishConfig?: Record<string, unknown>;
  scripts?: Record<string, string>;
  [field: string]: unknown;
}

export interface WorkspacePackage {
  name: string;
  /** Folder relative to the repository root, forward slashes (`packages/core-client`). */
  dir: string;
  manifest: PackageManifest;
  /** The spec a client package is generated from (`specs/core.yaml`), if any. */
  spec?: string;
}

export function readManifest(file: string): PackageManifest {
  return JSON.parse(readFileSync(file, 'utf8')) as PackageManifest;
}

/** Every package under packages/ that is published (not private). */
export function publishablePackages(root: string): WorkspacePackage[] {
  const out: WorkspacePackage[] = [];
  for (const entry of readdirSync(path.join(root, 'packages'), { withFileTypes: true })) {
    const manifestPath = path.join(root, 'packages', entry.name, 'package.json');
    if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
    const manifest = readManifest(manifestPath);
    if (manifest.private) continue;
    const product = entry.name.endsWith('-client') ? entry.name.slice(0, -'-client'.length) : undefined;
    const spec =
      product && existsSync(path.join(root, 'specs', `${product}.yaml`)) ? `specs/${product}.yaml` : undefined;
    out.push({ name: manifest.name, dir: `packages/${entry.name}`, manifest, ...(spec ? { spec } : {}) });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The named publishable packages and every publishable package they depend on, by name. */
export function withDependencies(root: string, names: readonly string[]): Set<string> {
  const byName = new Map(publishablePackages(root).map((p) => [p.name, p]));
  const out = new Set<string>();
  const visit = (name: string) => {
    const pkg = byName.get(name);
    if (!pkg || out.has(name)) return;
    out.add(name);
    for (const dependency of Object.keys(pkg.manifest.dependencies ?? {})) visit(dependency);
  };
  for (const name of names) visit(name);
  return out;
}

export interface CopyOptions {
  /** Also copy each package's dist/ (for packing and publishing without a rebuild). */
  withDist?: boolean;
  /**
   * Install the copy's own node_modules (`pnpm install`, from the store when it can) instead of
   * linking the repository's: pnpm needs the links to publish (it resolves `workspace:` ranges
   * from them).
   */
  install?: boolean;
}

/**
 * Copies the repository's tracked and unignored files into `target`, links the root
 * node_modules (the tools), and commits the copy, so git-based tools see a clean tree.
 */
export async function copyRepository(root: string, target: string, options: CopyOptions = {}): Promise<void> {
  const listed = await runOk('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
  mkdirSync(target, { recursive: true });
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(root, file);
    if (!existsSync(from)) continue; // deleted in the work tree, not yet committed
    mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    cpSync(from, path.join(target, file));
  }
  if (options.withDist) {
    for (const pkg of publishablePackages(root)) {
      const dist = path.join(root, pkg.dir, 'dist');
      if (existsSync(dist)) cpSync(dist, path.join(target, pkg.dir, 'dist'), { recursive: true });
    }
  }
  await commitAndInstall(root, target, options);
}

/**
 * Copies the repository as it was at `commit` (its tracked files, `git archive`) into `target`,
 * without `leaveOut` (folders a release does not need, whose dependencies the registry may no
 * longer resolve), commits it and installs its own node_modules from its own lockfile.
 */
export async function copyRepositoryAt(
  root: string,
  commit: string,
  target: string,
  leaveOut: readonly string[] = [],
): Promise<void> {
  mkdirSync(target, { recursive: true });
  const archive = path.join(target, '.paykit-archive.tar');
  await runOk('git', ['archive', '--format=tar', `--output=${archive}`, commit], { cwd: root });
  await runOk('tar', ['xf', archive, '-C', target], { cwd: target });
  rmSync(archive);
  for (const folder of leaveOut) rmSync(path.join(target, folder), { recursive: true, force: true });
  await commitAndInstall(root, target, { install: true });
}

async function commitAndInstall(root: string, target: string, options: CopyOptions): Promise<void> {
  const git = {
    cwd: target,
    env: childEnv({
      GIT_AUTHOR_NAME: 'paykit release test',
      GIT_AUTHOR_EMAIL: 'release-test@paykit.invalid',
      GIT_COMMITTER_NAME: 'paykit release test',
      GIT_COMMITTER_EMAIL: 'release-test@paykit.invalid',
    }),
  };
  await runOk('git', ['init', '-q', '-b', 'main'], git);
  await runOk('git', ['add', '-A'], git);
  await runOk('git', ['commit', '-q', '--no-verify', '-m', 'copy of the paykit repository'], git);
  if (options.install) {
    await runOk('pnpm', ['install', '--prefer-offline', '--no-frozen-lockfile', '--reporter=silent'], {
      cwd: target,
      env: childEnv({ CI: 'true' }),
      timeoutMs: 300_000,
    });
    return;
  }
  // Linked after the commit: the tools are not part of the copy's history.
  symlinkSync(path.join(root, 'node_modules'), path.join(target, 'node_modules'), 'dir');
}
