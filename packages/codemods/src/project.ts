// What every codemod run shares: the files given, read once into one ts-morph project (their
// original text kept, so edits apply to the bytes as they were), and places named as
// `file:line:column` relative to the run's folder.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Project, ts, type Node, type SourceFile } from 'ts-morph';
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

/** Orders findings by file, then line, then column. */
export function byPlace(
  a: { file: string; line: number; column: number },
  b: { file: string; line: number; column: number },
): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column;
}
