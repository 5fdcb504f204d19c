// Building, packing and auditing the publishable packages: what `pnpm pack` puts in a tarball
// is what users install, so the audit reads the tarball, not the work tree.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import { WORKSPACE_BIN, childEnv, runOk } from './exec.ts';
import { publishablePackages, type PackageManifest } from './workspace.ts';

export interface PackedPackage {
  name: string;
  version: string;
  tarball: string;
}

const LOCK = path.join(tmpdir(), 'paykit-release-dist.lock');

async function lock(): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(path.join(LOCK, 'pid'), String(process.pid));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock whose holder is gone (a killed run) is taken over.
      const holder = Number(readFileSafe(path.join(LOCK, 'pid')));
      if (holder && !isAlive(holder)) rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() > deadline)
        throw new Error(`${LOCK} was held for 10 minutes: remove it if no release test is running.`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds every publishable package (`turbo run build`, a cache hit when nothing changed) and runs
 * `use` while no other release test rebuilds them: test files run in parallel, and a turbo cache
 * restore rewrites dist/ under a reader's feet.
 */
export async function withBuiltPackages<T>(root: string, use: () => Promise<T>): Promise<T> {
  await lock();
  try {
    await runOk(
      path.join(WORKSPACE_BIN, 'turbo'),
      ['run', 'build', '--filter=./packages/*', '--output-logs=errors-only'],
      { cwd: root, timeoutMs: 600_000 },
    );
    return await use();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** `pnpm pack` of every publishable package (or of those `only` names) into `outDir`. */
export async function packPublishable(
  root: string,
  outDir: string,
  only?: ReadonlySet<string>,
): Promise<PackedPackage[]> {
  mkdirSync(outDir, { recursive: true });
  const packed: PackedPackage[] = [];
  for (const pkg of publishablePackages(root)) {
    if (only && !only.has(pkg.name)) continue;
    await runOk('pnpm', ['pack', '--pack-destination', outDir], { cwd: path.join(root, pkg.dir), env: childEnv() });
    const tarball = path.join(outDir, `${pkg.name.replace(/^@/, '').replace('/', '-')}-${pkg.manifest.version}.tgz`);
    if (!existsSync(tarball))
      throw new Error(`pnpm pack of ${pkg.name} wrote no ${path.basename(tarball)} in ${outDir}.`);
    packed.push({ name: pkg.name, version: pkg.manifest.version, tarball });
  }
  return packed;
}

function walk(dir: string, into: string[] = [], base = dir): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, into, base);
    else into.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return into;
}

/** Every module a file imports (static, dynamic, re-exports, type imports), as TypeScript reads it: comments and strings are not imports. */
function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return [...info.importedFiles, ...info.referencedFiles].map((ref) => ref.fileName);
}
const BUILTINS = new Set(builtinModules);

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

/**
 * What is wrong with an unpacked tarball (`dir` holds its package.json): workspace-only
 * leftovers (`workspace:` ranges, the `@paykit/source` condition, TypeScript sources), export or
 * bin targets that are missing, and imports the installed package could not resolve.
 */
export function auditPackage(dir: string): string[] {
  const problems: string[] = [];
  const manifestText = readFileSync(path.join(dir, 'package.json'), 'utf8');
  const manifest = JSON.parse(manifestText) as PackageManifest;
  const name = manifest.name;
  if (manifestText.includes('workspace:')) problems.push(`${name}: package.json still has a workspace: range`);
  if (manifestText.includes('@paykit/source'))
    problems.push(`${name}: package.json still has the workspace-only @paykit/source condition`);
  if (!manifest.license) problems.push(`${name}: no license`);
  const files = new Set(walk(dir));
  if (!files.has('LICENSE')) problems.push(`${name}: no LICENSE file in the tarball`);
  for (const target of [...exportTargets(manifest.exports), ...Object.values(manifest.bin ?? {})]) {
    if (!files.has(target.replace(/^\.\//, '')))
      problems.push(`${name}: exports/bin target ${target} is not in the tarball`);
  }
  const allowed = new Set([
    name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  for (const file of files) {
    if (/\.[cm]?ts$/.test(file) && !/\.d\.[cm]?ts$/.test(file))
      problems.push(`${name}: ${file} is TypeScript source (Node does not strip types under node_modules)`);
    if (!/\.(?:js|d\.ts)$/.test(file)) continue;
    const text = readFileSync(path.join(dir, file), 'utf8');
    for (const specifier of importsOf(text)) {
      if (specifier.startsWith('.')) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
        const candidates = file.endsWith('.d.ts') ? [resolved.replace(/\.(?:ts|js)$/, '.d.ts')] : [resolved];
        if (!candidates.some((c) => files.has(c)))
          problems.push(`${name}: ${file} imports ${specifier}, which is not in the tarball`);
      } else if (!specifier.startsWith('node:') && !BUILTINS.has(specifier) && !allowed.has(packageOf(specifier))) {
        problems.push(`${name}: ${file} imports ${specifier}, which is not among its dependencies`);
      }
    }
  }
  return problems;
}

/** Unpacks a tarball into `into` (its files under `into/package`) and audits it. */
export async function auditTarball(tarball: string, into: string): Promise<string[]> {
  mkdirSync(into, { recursive: true });
  await runOk('tar', ['xzf', tarball, '-C', into], { cwd: into });
  return auditPackage(path.join(into, 'package'));
}
