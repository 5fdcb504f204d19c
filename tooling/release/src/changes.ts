// What changed in a published package between a commit and the work tree, as the release check
// counts it: released files only (src/, migrations/, tsconfig.build.json, and the manifest's fields
// that users get), plus the client's spec. The work tree counts (uncommitted and untracked files
// included), so the check answers before the commit what it answers after it.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { run, runOk } from './exec.ts';
import type { PackageManifest, WorkspacePackage } from './workspace.ts';

/** Manifest fields whose change alone is no release: versions are written by releases, the rest is not published behaviour. */
const UNRELEASED_FIELDS = ['version', 'scripts', 'devDependencies'];

export async function git(root: string, args: string[]): Promise<string> {
  return (await runOk('git', args, { cwd: root })).stdout;
}

export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** NUL-separated paths (git's -z output). */
export function nulSeparated(text: string): string[] {
  return text.split('\0').filter(Boolean);
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

/** A spec's revision (`info.version`), if it has one. */
export function specVersion(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const doc = parse(text) as { info?: { version?: unknown } } | null;
  return typeof doc?.info?.version === 'string' ? doc.info.version : undefined;
}

/** A file's text at a commit, undefined where the commit does not have it. */
export async function fileAt(root: string, commit: string, file: string): Promise<string | undefined> {
  const shown = await run('git', ['show', `${commit}:${file}`], { cwd: root });
  return shown.code === 0 ? shown.stdout : undefined;
}

/**
 * The files under packages/ and specs/ that differ between a commit and the work tree, untracked
 * ones included (all tracked ones when the commit is null), each asked of git once per commit
 * however many packages share it: what a check run passes to releasedFilesChanged.
 */
export class ChangedPaths {
  readonly #root: string;
  readonly #since = new Map<string, Promise<{ touched: string[]; untracked: string[] }>>();

  constructor(root: string) {
    this.#root = root;
  }

  of(since: string | null): Promise<{ touched: string[]; untracked: string[] }> {
    const key = since ?? '';
    let found = this.#since.get(key);
    if (!found) {
      const scope = ['packages', 'specs'];
      // -z: paths as they are, not quoted (a name with a space or an accent would be).
      found = Promise.all([
        since
          ? git(this.#root, ['diff', '-z', '--name-only', since, '--', ...scope])
          : git(this.#root, ['ls-files', '-z', '--', ...scope]),
        git(this.#root, ['ls-files', '-z', '--others', '--exclude-standard', '--', ...scope]),
      ]).then(([touched, untracked]) => ({ touched: nulSeparated(touched), untracked: nulSeparated(untracked) }));
      this.#since.set(key, found);
    }
    return found;
  }
}

/**
 * The package's released files and spec that differ between `since` and the work tree (every
 * tracked file of its scope when `since` is null: never released). Paths from the repository root.
 */
export async function releasedFilesChanged(
  root: string,
  pkg: WorkspacePackage,
  since: string | null,
  paths: ChangedPaths = new ChangedPaths(root),
): Promise<string[]> {
  const inScope = (file: string) => file === pkg.spec || file.startsWith(`${pkg.dir}/`);
  const { touched, untracked } = await paths.of(since);
  const changed: string[] = [];
  for (const file of [...new Set([...touched, ...untracked])].filter(inScope).sort()) {
    if (file === pkg.spec) {
      changed.push(file);
      continue;
    }
    const relative = file.slice(pkg.dir.length + 1);
    if (!isReleasedFile(relative)) continue;
    if (relative === 'package.json' && since) {
      const before = await fileAt(root, since, file);
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
  return changed;
}
