// The release check CI runs: every publishable package whose released files, or whose spec,
// changed since its last release needs a pending changeset naming it; a spec whose revision
// (`info.version`) moved needs that date in the changeset. "Last release" is what released the
// package's current version: its tag (`changeset publish` tags `<name>@<version>`), or else the
// last commit that set the manifest's version, provided the CHANGELOG has that version's entry
// (`changeset version` writes both). An edit of the CHANGELOG alone moves nothing, the "Version
// packages" commit itself passes, and the rule holds on a branch and on main alike, with no base
// branch to guess.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { covers, highest, specDiff, type SpecDiff } from './api-diff.ts';
import { run, runOk } from './exec.ts';
import { ChangesetFormatError, readPendingChangesets, type PendingChangeset } from './pending-changesets.ts';
import { publishablePackages, type PackageManifest, type WorkspacePackage } from './workspace.ts';

export interface PackageReleaseState {
  name: string;
  /** The commit that released the current version (its tag, or the commit that set the version), null when never released. */
  lastRelease: string | null;
  /** Released files and the spec changed since then (paths from the repository root). */
  changed: string[];
  /** The pending changesets that name it. */
  changesets: string[];
  /** A client's spec against the one it was released with (api-diff.ts); absent without a spec or a release. */
  api?: { spec: string; diff: SpecDiff };
}

export interface ReleaseCheckResult {
  packages: PackageReleaseState[];
  problems: string[];
}

export class ReleaseCheckError extends Error {
  override name = 'ReleaseCheckError';
}

/** Manifest fields whose change alone is no release: versions are written by releases, the rest is not published behaviour. */
const UNRELEASED_FIELDS = ['version', 'scripts', 'devDependencies'];

async function git(root: string, args: string[]): Promise<string> {
  return (await runOk('git', args, { cwd: root })).stdout;
}

function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Whether a file (relative to the package) is part of what the package releases. */
function isReleasedFile(relative: string): boolean {
  return (
    relative.startsWith('src/') ||
    relative.startsWith('migrations/') ||
    // SQL function files: editing one changes a rule in every database it migrates.
    relative.startsWith('sql/') ||
    relative === 'tsconfig.build.json' ||
    relative === 'package.json'
  );
}

function releasedManifest(manifest: PackageManifest): string {
  const copy: Record<string, unknown> = { ...manifest };
  for (const field of UNRELEASED_FIELDS) delete copy[field];
  return JSON.stringify(copy);
}

function specVersion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const doc = parse(text) as { info?: { version?: unknown } } | null;
  return typeof doc?.info?.version === 'string' ? doc.info.version : undefined;
}

async function fileAt(root: string, commit: string, file: string): Promise<string | undefined> {
  const shown = await run('git', ['show', `${commit}:${file}`], { cwd: root });
  return shown.code === 0 ? shown.stdout : undefined;
}

function workspaceNames(root: string): Set<string> {
  const names = new Set<string>();
  for (const group of ['packages', 'apps', 'tooling']) {
    const dir = path.join(root, group);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      const manifest = path.join(dir, entry, 'package.json');
      if (existsSync(manifest)) names.add((JSON.parse(readFileSync(manifest, 'utf8')) as PackageManifest).name);
    }
  }
  return names;
}

function changelogHas(root: string, pkg: WorkspacePackage, version: string): boolean {
  const file = path.join(root, pkg.dir, 'CHANGELOG.md');
  if (!existsSync(file)) return false;
  const heading = new RegExp(`^##\\s+${version.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`, 'm');
  return heading.test(readFileSync(file, 'utf8'));
}

const VERSION_LINE = '^[[:space:]]*"version"[[:space:]]*:';

/** The commit that released the package's current version, or null when that version was never released. */
async function lastReleaseCommit(root: string, pkg: WorkspacePackage): Promise<string | null> {
  const version = pkg.manifest.version;
  if (typeof version !== 'string') return null;
  const tag = await run('git', ['rev-parse', '-q', '--verify', `refs/tags/${pkg.name}@${version}^{commit}`], {
    cwd: root,
  });
  if (tag.code === 0) return tag.stdout.trim();
  if (!changelogHas(root, pkg, version)) return null;
  return (
    lines(await git(root, ['log', '-1', '--format=%H', `-G${VERSION_LINE}`, '--', `${pkg.dir}/package.json`]))[0] ??
    null
  );
}

async function changedSinceRelease(
  root: string,
  pkg: WorkspacePackage,
): Promise<{ lastRelease: string | null; changed: string[] }> {
  const scope = [pkg.dir, ...(pkg.spec ? [pkg.spec] : [])];
  const lastRelease = await lastReleaseCommit(root, pkg);
  // A release versioned in the work tree and not yet committed (the manifest's version moved and
  // the CHANGELOG has its entry): what is there now is that release, so nothing is unreleased.
  const committed = await fileAt(root, 'HEAD', `${pkg.dir}/package.json`);
  const committedVersion = committed === undefined ? undefined : (JSON.parse(committed) as PackageManifest).version;
  if (
    committedVersion !== pkg.manifest.version &&
    typeof pkg.manifest.version === 'string' &&
    changelogHas(root, pkg, pkg.manifest.version)
  ) {
    return { lastRelease, changed: [] };
  }
  const untracked = lines(await git(root, ['ls-files', '--others', '--exclude-standard', '--', ...scope]));
  const touched = lastRelease
    ? lines(await git(root, ['diff', '--name-only', lastRelease, '--', ...scope]))
    : lines(await git(root, ['ls-files', '--', ...scope]));
  const changed: string[] = [];
  for (const file of [...new Set([...touched, ...untracked])].sort()) {
    if (file === pkg.spec) {
      changed.push(file);
      continue;
    }
    const relative = file.slice(pkg.dir.length + 1);
    if (!isReleasedFile(relative)) continue;
    if (relative === 'package.json' && lastRelease) {
      const before = await fileAt(root, lastRelease, file);
      const nowPath = path.join(root, file);
      if (
        before !== undefined &&
        existsSync(nowPath) &&
        releasedManifest(JSON.parse(before) as PackageManifest) ===
          releasedManifest(JSON.parse(readFileSync(nowPath, 'utf8')) as PackageManifest)
      )
        continue;
    }
    changed.push(file);
  }
  return { lastRelease, changed };
}

/** A changeset must be at least the level the API difference needs, and name each breaking change. */
function apiProblems(pkg: WorkspacePackage, diff: SpecDiff, naming: readonly PendingChangeset[]): string[] {
  const needed = diff.level;
  if (needed === null || !pkg.spec) return [];
  const given = highest(naming.map((c) => c.releases[pkg.name] ?? 'none'));
  if (!covers(given, needed)) {
    const shown = [...diff.breaking, ...diff.additions].slice(0, 5).join('; ');
    return [
      `${pkg.spec} changed the API of ${pkg.name} since its release ${pkg.manifest.version} in a way that needs a ${needed} release (${shown}${diff.breaking.length + diff.additions.length > 5 ? '; …' : ''}), but its changeset(s) ask for ${given ?? 'none'} (${naming.map((c) => c.file).join(', ')}). Make one ${needed}, and for a breaking change say how to migrate.`,
    ];
  }
  const unsaid = diff.breaking.filter((line) => !naming.some((c) => c.summary.includes(line)));
  if (unsaid.length === 0) return [];
  return [
    `${pkg.name}'s changeset(s) (${naming.map((c) => c.file).join(', ')}) do not say ${unsaid.length} breaking API change(s) of ${pkg.spec}, so its CHANGELOG would not either: run \`pnpm release:api-diff --write ${naming[0]!.file}\` to add them. First: ${unsaid[0]}`,
  ];
}

/** Checks the pending changesets against what changed since each package's last release. */
export async function checkReleaseChangesets(root: string): Promise<ReleaseCheckResult> {
  if (!existsSync(path.join(root, '.changeset/config.json'))) {
    throw new ReleaseCheckError(
      `${root} holds no .changeset/config.json: run the release check from the paykit repository, or pass its folder with --root.`,
    );
  }
  if ((await git(root, ['rev-parse', '--is-shallow-repository'])).trim() === 'true') {
    throw new ReleaseCheckError(
      "The release check needs the history (it finds each package's last release commit): this clone is shallow. Fetch it whole (git fetch --unshallow) and run it again.",
    );
  }
  const problems: string[] = [];
  let pending: PendingChangeset[] = [];
  try {
    pending = readPendingChangesets(root);
  } catch (error) {
    if (error instanceof ChangesetFormatError) problems.push(error.message);
    else throw error;
  }
  const known = workspaceNames(root);
  for (const changeset of pending) {
    for (const name of Object.keys(changeset.releases)) {
      if (!known.has(name))
        problems.push(
          `${changeset.file} names ${name}, which is no package of this workspace: fix the name (see packages/*/package.json).`,
        );
    }
  }

  const packages: PackageReleaseState[] = [];
  for (const pkg of publishablePackages(root)) {
    const { lastRelease, changed } = await changedSinceRelease(root, pkg);
    const naming = pending.filter((c) => pkg.name in c.releases);
    const state: PackageReleaseState = { name: pkg.name, lastRelease, changed, changesets: naming.map((c) => c.file) };
    packages.push(state);
    if (changed.length > 0 && naming.length === 0) {
      const what = lastRelease
        ? `changed since its last release (${pkg.manifest.version}, commit ${lastRelease.slice(0, 7)})`
        : 'was never released';
      const shown = changed.slice(0, 8).join(', ') + (changed.length > 8 ? `, and ${changed.length - 8} more` : '');
      problems.push(
        `${pkg.name} ${what} and no pending changeset names it: ${shown}. Run \`pnpm changeset\`, pick ${pkg.name} and the bump, and say what changed for the people who import it (name the platform's dated change first when there is one: "2026-05-07: …").`,
      );
    }
    if (pkg.spec && lastRelease && naming.length > 0) {
      const before = specVersion(await fileAt(root, lastRelease, pkg.spec));
      const now = specVersion(readFileSync(path.join(root, pkg.spec), 'utf8'));
      if (now && before !== now && !naming.some((c) => c.summary.includes(now))) {
        problems.push(
          `${pkg.spec} moved from revision ${before ?? '(none)'} to ${now}, but no changeset naming ${pkg.name} mentions ${now} (${naming.map((c) => c.file).join(', ')}): start its summary with "${now}: " and the platform's change.`,
        );
      }
    }
    if (pkg.spec && lastRelease) {
      const released = await fileAt(root, lastRelease, pkg.spec);
      if (released !== undefined) {
        const diff = specDiff(parse(released), parse(readFileSync(path.join(root, pkg.spec), 'utf8')));
        state.api = { spec: pkg.spec, diff };
        if (diff.level !== null && naming.length > 0) problems.push(...apiProblems(pkg, diff, naming));
      }
    }
  }
  return { packages, problems };
}
