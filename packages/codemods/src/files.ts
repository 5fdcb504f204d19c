// Which files a codemod run reads: the given files, and every script file under the given
// folders except dependencies, build output and declaration files.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

const SCRIPT = /\.(?:[cm]?ts|tsx|[cm]?js|jsx)$/;
const DECLARATION = /\.d\.[cm]?ts$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'build', 'coverage', '.git', '.turbo', '.next']);

export class CodemodInputError extends Error {
  override name = 'CodemodInputError';
}

function isScript(file: string): boolean {
  return SCRIPT.test(file) && !DECLARATION.test(file);
}

async function walk(folder: string, into: string[]): Promise<void> {
  const entries = await readdir(folder, { withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) await walk(full, into);
    } else if (entry.isFile() && isScript(entry.name)) {
      into.push(full);
    }
  }
}

/** Absolute paths of the script files named by `paths` (files or folders, relative to `cwd`), sorted. */
export async function collectFiles(paths: readonly string[], cwd: string): Promise<string[]> {
  const found: string[] = [];
  for (const given of paths) {
    const full = path.resolve(cwd, given);
    let info;
    try {
      info = await stat(full);
    } catch {
      throw new CodemodInputError(
        `${given}: no such file or folder (resolved from ${cwd}). Pass files or folders of the code base to migrate.`,
      );
    }
    if (info.isDirectory()) await walk(full, found);
    else if (isScript(full)) found.push(full);
    else
      throw new CodemodInputError(
        `${given}: not a TypeScript or JavaScript file (.ts, .tsx, .mts, .cts, .js, .jsx, .mjs, .cjs). Pass such files, or folders that hold them.`,
      );
  }
  return [...new Set(found)].sort();
}
