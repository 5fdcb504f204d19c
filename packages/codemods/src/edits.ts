// Edits are computed on the syntax tree and applied to the original text afterwards, so the
// rest of a file keeps its bytes (formatting, comments, line endings) exactly.
import { createTwoFilesPatch } from 'diff';

export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The text with every edit applied; edits must not overlap. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const ordered = [...edits].sort((a, b) => b.start - a.start);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const edit of ordered) {
    if (edit.end > limit)
      throw new Error(`Overlapping edits at offset ${edit.start}: a codemod bug, please report it with the file.`);
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}

/** A unified diff of one file, named by its path relative to the run's folder. */
export function unifiedDiff(relativePath: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${relativePath}`, `b/${relativePath}`, before, after, undefined, undefined, {
    context: 3,
  });
}
