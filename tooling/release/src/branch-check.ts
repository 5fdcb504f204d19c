// The release check per change, as the changesets bot holds a pull request: on a branch, every
// published package the branch changes needs a changeset the branch itself adds, at the level the
// branch's own API difference needs, naming the spec's new date when the branch moves
// `info.version`. The changesets already pending on the base branch were written for other
// changes and do not count: with dozens of them pending, one major among them would otherwise let
// any change to the package through, with any level. "The branch's change" is the difference
// between the merge base with the base branch and the work tree (uncommitted and untracked files
// included, as changes.ts counts them); its API difference is api-diff.ts between the spec at the
// merge base (`git show`, nothing checked out) and the spec now.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { covers, highest, says, specDiff, type Bump, type SpecDiff } from './api-diff.ts';
import { ChangedPaths, fileAt, nulSeparated, releasedFilesChanged, specVersion } from './changes.ts';
import { run } from './exec.ts';
import type { PendingChangeset } from './pending-changesets.ts';
import type { WorkspacePackage } from './workspace.ts';

/** Where the branch left its base. */
export interface BranchBase {
  /** The branch checked out (`HEAD` when detached and compared with an explicit --base). */
  branch: string;
  /** The ref it is compared with (`main`, or the --base given). */
  base: string;
  /** `git merge-base HEAD <base>`. */
  mergeBase: string;
}

export interface BranchPackageState {
  name: string;
  /** Released files and the spec the branch changes (merge base → work tree). */
  changed: string[];
  /** The changesets the branch adds that name the package. */
  changesets: string[];
  /** The branch's own API difference of a client (spec at the merge base → spec now), when the branch changes the spec. */
  api?: { spec: string; diff: SpecDiff };
}

export interface BranchCheckResult extends BranchBase {
  packages: BranchPackageState[];
  problems: BranchProblem[];
}

/** A problem with the package it is about and its kind, so the per-release check does not say the same thing again. */
export interface BranchProblem {
  pkg: string;
  kind: 'unnamed' | 'level' | 'date' | 'unsaid';
  text: string;
}

export class BranchBaseError extends Error {
  override name = 'BranchBaseError';
}

async function resolveCommit(root: string, ref: string): Promise<string | undefined> {
  const found = await run('git', ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { cwd: root });
  return found.code === 0 ? found.stdout.trim() : undefined;
}

/**
 * The base to compare with, or null for the per-release check: with `explicitBase` always that
 * ref; else when a branch other than `baseBranch` is checked out, `baseBranch` (the local branch,
 * else `origin/<baseBranch>`). On the base branch itself, or on a detached HEAD without --base
 * (a CI checkout of a commit), the check is per release.
 */
export async function findBranchBase(
  root: string,
  baseBranch: string,
  explicitBase?: string,
): Promise<BranchBase | null> {
  const symbolic = await run('git', ['symbolic-ref', '-q', '--short', 'HEAD'], { cwd: root });
  const branch = symbolic.code === 0 ? symbolic.stdout.trim() : 'HEAD';
  let base = explicitBase;
  if (base === undefined) {
    if (branch === 'HEAD' || branch === baseBranch) return null;
    if (await resolveCommit(root, `refs/heads/${baseBranch}`)) base = baseBranch;
    else if (await resolveCommit(root, `refs/remotes/origin/${baseBranch}`)) base = `origin/${baseBranch}`;
    else
      throw new BranchBaseError(
        `On branch ${branch}, the release check compares with ${baseBranch}, but this repository has neither ${baseBranch} nor origin/${baseBranch}: fetch it (git fetch origin ${baseBranch}:${baseBranch}) or name the base with --base <ref>.`,
      );
  } else if (!(await resolveCommit(root, base))) {
    throw new BranchBaseError(
      `--base ${base}: no such commit or ref here. Name a branch, tag or commit (git fetch it first).`,
    );
  }
  const merged = await run('git', ['merge-base', 'HEAD', base], { cwd: root });
  if (merged.code !== 0 || merged.stdout.trim() === '')
    throw new BranchBaseError(
      `${branch} and ${base} share no history (git merge-base found no common commit): name the base the branch was made from with --base <ref>.`,
    );
  return { branch, base, mergeBase: merged.stdout.trim() };
}

/** The changesets present now that the merge base did not have. */
async function addedChangesets(
  root: string,
  mergeBase: string,
  pending: readonly PendingChangeset[],
): Promise<PendingChangeset[]> {
  const listed = await run('git', ['ls-tree', '-z', '--name-only', `${mergeBase}:.changeset`], { cwd: root });
  const before = new Set(listed.code === 0 ? nulSeparated(listed.stdout) : []);
  return pending.filter((c) => !before.has(path.posix.basename(c.file)));
}

function shortList(items: readonly string[], max: number): string {
  return items.slice(0, max).join(', ') + (items.length > max ? `, and ${items.length - max} more` : '');
}

/** The branch's own changes against the changesets it adds. */
export async function checkBranch(
  root: string,
  base: BranchBase,
  packages: readonly WorkspacePackage[],
  pending: readonly PendingChangeset[],
): Promise<BranchCheckResult> {
  const added = await addedChangesets(root, base.mergeBase, pending);
  const states: BranchPackageState[] = [];
  const problems: BranchProblem[] = [];
  const paths = new ChangedPaths(root);
  const since = `since it left ${base.base} (merge base ${base.mergeBase.slice(0, 7)})`;
  for (const pkg of packages) {
    const changed = await releasedFilesChanged(root, pkg, base.mergeBase, paths);
    if (changed.length === 0) continue;
    const own = added.filter((c) => pkg.name in c.releases);
    const state: BranchPackageState = { name: pkg.name, changed, changesets: own.map((c) => c.file) };
    states.push(state);

    let before: string | undefined;
    let now: string | undefined;
    if (pkg.spec && changed.includes(pkg.spec)) {
      before = await fileAt(root, base.mergeBase, pkg.spec);
      now = readFileSync(path.join(root, pkg.spec), 'utf8');
      if (before !== undefined) state.api = { spec: pkg.spec, diff: specDiff(parse(before), parse(now)) };
    }
    const needed: Bump = state.api?.diff.level ?? 'patch';
    const apiLines = state.api ? [...state.api.diff.breaking, ...state.api.diff.additions] : [];
    const why = apiLines.length > 0 ? ` (${shortList(apiLines, 3)})` : '';
    const fromRevision = specVersion(before);
    const toRevision = specVersion(now);
    const moved = before !== undefined && toRevision !== undefined && fromRevision !== toRevision;

    if (own.length === 0) {
      problems.push({
        pkg: pkg.name,
        kind: 'unnamed',
        text: `${pkg.name}: this branch changes ${shortList(changed, 6)} ${since} and adds no changeset naming it (the changesets already pending were written for other changes and do not count). Run \`pnpm changeset\`, pick ${pkg.name} at ${needed}${needed === 'patch' ? ' or above' : ''}${why}, and say what the branch changes for the people who import it${moved ? `, starting with "${toRevision}: " and the platform's change` : ''}.${state.api?.diff.level ? ` Then \`pnpm release:api-diff --write .changeset/<its name>.md\` adds the API lines.` : ''}`,
      });
      continue;
    }
    const given = highest(own.map((c) => c.releases[pkg.name] ?? 'none'));
    if (!covers(given, needed)) {
      problems.push({
        pkg: pkg.name,
        kind: 'level',
        text: `${pkg.name}: this branch's change needs a ${needed} release${why}, but the changeset(s) it adds ask for ${given ?? 'none'} (${state.changesets.join(', ')}); other pending changesets do not count. Set "${pkg.name}": ${needed} in ${state.changesets[0]}${needed === 'major' ? ' and say how to migrate' : ''}.`,
      });
    }
    if (moved && !own.some((c) => c.summary.includes(toRevision))) {
      problems.push({
        pkg: pkg.name,
        kind: 'date',
        text: `${pkg.spec} moves on this branch from revision ${fromRevision ?? '(none)'} to ${toRevision}, but no changeset the branch adds for ${pkg.name} mentions ${toRevision} (${state.changesets.join(', ')}): start its summary with "${toRevision}: " and the platform's change.`,
      });
    }
    const naming = pending.filter((c) => pkg.name in c.releases);
    const unsaid = (state.api?.diff.breaking ?? []).filter((line) => !naming.some((c) => says(c.summary, line)));
    if (unsaid.length > 0) {
      problems.push({
        pkg: pkg.name,
        kind: 'unsaid',
        text: `${pkg.name}: the changeset(s) this branch adds (${state.changesets.join(', ')}) do not say ${unsaid.length} breaking API change(s) the branch makes to ${pkg.spec}, so the CHANGELOG would not either: run \`pnpm release:api-diff --write ${state.changesets[0]}\` to add them. First: ${unsaid[0]}`,
      });
    }
  }
  return { ...base, packages: states, problems };
}
