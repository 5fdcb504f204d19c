// Which commit released which version of a package: the commits that changed the `version` line of
// its package.json, newest first, each with the version it set there. A version its CHANGELOG has
// no entry for was never released (an app's private bump, a version set and set back).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileAt, git, lines } from './changes.ts';
import type { WorkspacePackage } from './workspace.ts';

/** git's pattern for a package.json line that sets the version. */
export const VERSION_LINE = '^[[:space:]]*"version"[[:space:]]*:';

export interface Release {
  version: string;
  commit: string;
}

/** Whether the package's CHANGELOG (in the work tree) has an entry for `version`. */
export function changelogHas(root: string, pkg: WorkspacePackage, version: string): boolean {
  const file = path.join(root, pkg.dir, 'CHANGELOG.md');
  if (!existsSync(file)) return false;
  const heading = new RegExp(`^##\\s+${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm');
  return heading.test(readFileSync(file, 'utf8'));
}

/** Every released version of the package with the commit that set it, newest first. */
export async function releaseHistory(root: string, pkg: WorkspacePackage): Promise<Release[]> {
  const manifest = `${pkg.dir}/package.json`;
  const commits = lines(await git(root, ['log', '--format=%H', `-G${VERSION_LINE}`, '--', manifest]));
  const releases: Release[] = [];
  for (const commit of commits) {
    const text = await fileAt(root, commit, manifest);
    const version = text === undefined ? undefined : (JSON.parse(text) as { version?: unknown }).version;
    if (typeof version !== 'string' || releases.some((r) => r.version === version)) continue;
    if (changelogHas(root, pkg, version)) releases.push({ version, commit });
  }
  return releases;
}

/**
 * The newest release of the line before the current one, or null: where a product team upgrades
 * from across the breaking changes. 1.4.2 → the newest 0.x; 0.3.0 → the newest 0.2.x (before 1.0,
 * a minor is the breaking line).
 */
export async function previousLineRelease(root: string, pkg: WorkspacePackage): Promise<Release | null> {
  const [major = 0, minor = 0] = pkg.manifest.version.split('.').map(Number);
  const earlier = ({ version }: Release) => {
    const [m = 0, n = 0] = version.split('.').map(Number);
    return major > 0 ? m < major : m === 0 && n < minor;
  };
  return (await releaseHistory(root, pkg)).find(earlier) ?? null;
}
