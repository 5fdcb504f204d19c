// What every codemod run shares: the files given, read once into one ts-morph project (their
// original text kept, so edits apply to the bytes as they were), and places named as
// `file:line:column` relative to the run's folder.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Project, ts, type Node, type SourceFile } from 'ts-morph';
import { unifiedDiff } from './edits.ts';
import { collectFiles } from './files.ts';

export interface LoadedFiles {
  cwd: string;
  /** Absolute paths of the files given, sorted. */
  files: string[];
  project: Project;
  /** Each given file's text as read, by absolute path. */
  originals: Map<string, string>;
}

/** Reads the script files under `paths` (default: the whole of `cwd`) into a project of their own. */
export async function loadFiles(options: { paths?: readonly string[]; cwd?: string }): Promise<LoadedFiles> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const files = await collectFiles(options.paths?.length ? options.paths : ['.'], cwd);
  const project = new Project({
    compilerOptions: {
      allowJs: true,
      checkJs: false,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      jsx: ts.JsxEmit.Preserve,
    },
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
  });
  const originals = new Map<string, string>();
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    originals.set(file, text);
    project.createSourceFile(file, text, { overwrite: true });
  }
  return { cwd, files, project, originals };
}

/** `file` relative to `cwd`, with forward slashes. */
export function relative(cwd: string, file: string): string {
  return path.relative(cwd, file).split(path.sep).join('/');
}

/** Where `node` starts, and its source line trimmed. */
export function position(file: SourceFile, node: Node): { line: number; column: number; code: string } {
  const { line, column } = file.getLineAndColumnAtPos(node.getStart());
  const code = file.getFullText().split(/\r?\n/)[line - 1]?.trim() ?? '';
  return { line, column, code };
}

type Place = { file: string; line: number; column: number };

/** Orders findings by file, then line, then column. */
function byPlace(a: Place, b: Place): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}

/** What every codemod's report starts with: the run's folder, whether it wrote, and each changed file's diff. */
export interface RunSummary {
  cwd: string;
  /** Whether the changes were written (false: a dry run). */
  written: boolean;
  filesScanned: number;
  /** Each changed file with its unified diff. */
  files: { file: string; diff: string }[];
}

/**
 * Writes each file's new text when `write` is set (a dry run otherwise), and sums the run up:
 * its changes and the places left for a hand edit, each in file, line and column order.
 */
export async function finishRun<Change extends Place, Skip extends Place>(
  loaded: LoadedFiles,
  results: ReadonlyMap<string, string>,
  found: { write: boolean | undefined; changes: Change[]; skipped: Skip[] },
): Promise<RunSummary & { changes: Change[]; skipped: Skip[] }> {
  const changedFiles = [...results.keys()].sort();
  if (found.write) {
    for (const file of changedFiles) await writeFile(file, results.get(file) ?? '', 'utf8');
  }
  return {
    cwd: loaded.cwd,
    written: found.write === true,
    filesScanned: loaded.files.length,
    files: changedFiles.map((file) => ({
      file: relative(loaded.cwd, file),
      diff: unifiedDiff(relative(loaded.cwd, file), loaded.originals.get(file) ?? '', results.get(file) ?? ''),
    })),
    changes: found.changes.sort(byPlace),
    skipped: found.skipped.sort(byPlace),
  };
}
