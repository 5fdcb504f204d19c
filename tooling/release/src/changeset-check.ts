// The release check CI runs: every publishable package whose released files, or whose spec,
// changed since its last release needs a pending changeset naming it; a spec whose revision
// (`info.version`) moved needs that date in the changeset. "Last release" is what released the
// package's current version: its tag (`changeset publish` tags `<name>@<version>`), or else the
// last commit that set the manifest's version, provided the CHANGELOG has that version's entry
// (`changeset version` writes both). An edit of the CHANGELOG alone moves nothing and the "Version
// packages" commit itself passes. On a branch other than the base branch (`baseBranch` in
// .changeset/config.json), or with an explicit base, the per-change rule of branch-check.ts comes
// first: the branch's own changes need changesets of its own. The per-release rule still holds there
// (the branch must leave the base branch releasable), and says nothing the per-change rule said.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { covers, highest, says, specDiff, type SpecDiff } from './api-diff.ts';
import { ChangedPaths, fileAt, git, lines, releasedFilesChanged, specVersion } from './changes.ts';
import { changelogHas, VERSION_LINE } from './release-history.ts';
import { run } from './exec.ts';
import {
  BranchBaseError,
  checkBranch,
  findBranchBase,
  type BranchCheckResult,
  type BranchProblem,
} from './branch-check.ts';
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
  /** The per-change check, when run on a branch (or with an explicit base). */
  branch?: BranchCheckResult;
  problems: string[];
}

export interface ReleaseCheckOptions {
  /** Compare with this ref's merge base (the per-change check) whatever branch is checked out. */
  base?: string;
}

export class ReleaseCheckError extends Error {
  override name = 'ReleaseCheckError';
}

function baseBranchOf(root: string): string {
  const config = JSON.parse(readFileSync(path.join(root, '.changeset/config.json'), 'utf8')) as {
    baseBranch?: unknown;
  };
  return typeof config.baseBranch === 'string' && config.baseBranch !== '' ? config.baseBranch : 'main';
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
  paths: ChangedPaths,
): Promise<{ lastRelease: string | null; changed: string[] }> {
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
  return { lastRelease, changed: await releasedFilesChanged(root, pkg, lastRelease, paths) };
}

/** A changeset must be at least the level the API difference needs, and name each breaking change. */
function apiProblems(pkg: WorkspacePackage, diff: SpecDiff, naming: readonly PendingChangeset[]): Problem[] {
  const needed = diff.level;
  if (needed === null || !pkg.spec) return [];
  const given = highest(naming.map((c) => c.releases[pkg.name] ?? 'none'));
  if (!covers(given, needed)) {
    const shown = [...diff.breaking, ...diff.additions].slice(0, 5).join('; ');
    return [
      {
        pkg: pkg.name,
        kind: 'level',
        text: `${pkg.spec} changed the API of ${pkg.name} since its release ${pkg.manifest.version} in a way that needs a ${needed} release (${shown}${diff.breaking.length + diff.additions.length > 5 ? '; …' : ''}), but its changeset(s) ask for ${given ?? 'none'} (${naming.map((c) => c.file).join(', ')}). Make one ${needed}, and for a breaking change say how to migrate.`,
      },
    ];
  }
  const unsaid = diff.breaking.filter((line) => !naming.some((c) => says(c.summary, line)));
  if (unsaid.length === 0) return [];
  return [
    {
      pkg: pkg.name,
      kind: 'unsaid',
      text: `${pkg.name}'s changeset(s) (${naming.map((c) => c.file).join(', ')}) do not say ${unsaid.length} breaking API change(s) of ${pkg.spec}, so its CHANGELOG would not either: run \`pnpm release:api-diff --write ${naming[0]!.file}\` to add them. First: ${unsaid[0]}`,
    },
  ];
}

/** A problem, with the package and kind it is about when it has one (BranchProblem's kinds). */
type Problem = Omit<BranchProblem, 'pkg'> & { pkg?: string };

/**
 * Checks the pending changesets against what changed since each package's last release, and on a
 * branch (or with `options.base`) the changesets the branch adds against what the branch changes.
 */
export async function checkReleaseChangesets(
  root: string,
  options: ReleaseCheckOptions = {},
): Promise<ReleaseCheckResult> {
  if (!existsSync(path.join(root, '.changeset/config.json'))) {
    throw new ReleaseCheckError(
      `${root} holds no .changeset/config.json: run the release check from the paykit repository, or pass its folder with --root.`,
    );
  }
  if ((await git(root, ['rev-parse', '--is-shallow-repository'])).trim() === 'true') {
    throw new ReleaseCheckError(
      "The release check needs the history (it finds each package's last release commit and a branch's merge base): this clone is shallow. Fetch it whole (git fetch --unshallow) and run it again.",
    );
  }
  let base;
  try {
    base = await findBranchBase(root, baseBranchOf(root), options.base);
  } catch (error) {
    if (error instanceof BranchBaseError) throw new ReleaseCheckError(error.message);
    throw error;
  }
  const problems: Problem[] = [];
  let pending: PendingChangeset[] = [];
  try {
    pending = readPendingChangesets(root);
  } catch (error) {
    if (error instanceof ChangesetFormatError) problems.push({ kind: 'unnamed', text: error.message });
    else throw error;
  }
  const known = workspaceNames(root);
  for (const changeset of pending) {
    for (const name of Object.keys(changeset.releases)) {
      if (!known.has(name))
        problems.push({
          kind: 'unnamed',
          text: `${changeset.file} names ${name}, which is no package of this workspace: fix the name (see packages/*/package.json).`,
        });
    }
  }

  const publishable = publishablePackages(root);
  const branch = base ? await checkBranch(root, base, publishable, pending) : undefined;
  const packages: PackageReleaseState[] = [];
  const paths = new ChangedPaths(root);
  for (const pkg of publishable) {
    const { lastRelease, changed } = await changedSinceRelease(root, pkg, paths);
    const naming = pending.filter((c) => pkg.name in c.releases);
    const state: PackageReleaseState = { name: pkg.name, lastRelease, changed, changesets: naming.map((c) => c.file) };
    packages.push(state);
    if (changed.length > 0 && naming.length === 0) {
      const what = lastRelease
        ? `changed since its last release (${pkg.manifest.version}, commit ${lastRelease.slice(0, 7)})`
        : 'was never released';
      const shown = changed.slice(0, 8).join(', ') + (changed.length > 8 ? `, and ${changed.length - 8} more` : '');
      problems.push({
        pkg: pkg.name,
        kind: 'unnamed',
        text: `${pkg.name} ${what} and no pending changeset names it: ${shown}. Run \`pnpm changeset\`, pick ${pkg.name} and the bump, and say what changed for the people who import it (name the platform's dated change first when there is one: "2026-05-07: …").`,
      });
    }
    const released = pkg.spec && lastRelease ? await fileAt(root, lastRelease, pkg.spec) : undefined;
    if (pkg.spec && lastRelease) {
      const text = readFileSync(path.join(root, pkg.spec), 'utf8');
      const before = specVersion(released);
      const now = specVersion(text);
      if (naming.length > 0 && now && before !== now && !naming.some((c) => c.summary.includes(now))) {
        problems.push({
          pkg: pkg.name,
          kind: 'date',
          text: `${pkg.spec} moved from revision ${before ?? '(none)'} to ${now}, but no changeset naming ${pkg.name} mentions ${now} (${naming.map((c) => c.file).join(', ')}): start its summary with "${now}: " and the platform's change.`,
        });
      }
      if (released !== undefined) {
        const diff = specDiff(parse(released), parse(text));
        state.api = { spec: pkg.spec, diff };
        if (diff.level !== null && naming.length > 0) problems.push(...apiProblems(pkg, diff, naming));
      }
    }
  }
  // On a branch its own problems come first; a per-release problem of the same package and kind
  // would say the same thing less precisely.
  const said = new Set((branch?.problems ?? []).map((p) => `${p.pkg}\n${p.kind}`));
  const releaseProblems = problems.filter((p) => p.pkg === undefined || !said.has(`${p.pkg}\n${p.kind}`));
  return {
    packages,
    ...(branch ? { branch } : {}),
    problems: [...(branch?.problems ?? []), ...releaseProblems].map((p) => p.text),
  };
}
