// The API section a changeset carries ("API changes in specs/core.yaml (major):" and a line per
// change), written by `release:api-diff --write` and folded by the CHANGELOG writer. It imports
// nothing at run time: `changeset version` loads the writer from a copy of the repository that has
// only the root node_modules.
import type { SpecDiff } from './api-diff.ts';

/** The line that counts description, example and extension changes. */
export const NOTES_LINE = /^- (\d+) change\(s\) to descriptions, examples or extensions$/;
const HEADING = /^API changes in (\S+) \((major|minor|patch|none)\):$/;

/** The text a changeset carries so the CHANGELOG says what changed in the API. */
export function formatSpecDiff(spec: string, diff: SpecDiff): string {
  const out = [`API changes in ${spec} (${diff.level ?? 'none'}):`];
  for (const line of diff.breaking) out.push(`- Breaking: ${line}`);
  for (const line of diff.additions) out.push(`- ${line}`);
  if (diff.notes > 0) out.push(`- ${diff.notes} change(s) to descriptions, examples or extensions`);
  return out.join('\n');
}

/** The spec and level of a line that opens an API section (`formatSpecDiff`'s first line), or null. */
export function parseSpecDiffHeading(line: string): { spec: string; level: string } | null {
  const match = HEADING.exec(line.trim());
  return match ? { spec: match[1] ?? '', level: match[2] ?? '' } : null;
}

/** One line that counts an API section's lines, for a CHANGELOG's folded list. */
export function formatSpecDiffSummary(heading: { spec: string; level: string }, items: readonly string[]): string {
  let breaking = 0;
  let other = 0;
  let notes = 0;
  for (const item of items) {
    const counted = NOTES_LINE.exec(item.trim());
    if (counted) notes += Number(counted[1]);
    else if (item.trim().startsWith('- Breaking: ')) breaking += 1;
    else if (item.trim().startsWith('- ')) other += 1;
  }
  const parts = [
    breaking > 0 ? `${breaking} breaking` : '',
    other > 0 ? `${other} added or deprecated` : '',
    notes > 0 ? `${notes} to descriptions, examples or extensions` : '',
  ].filter(Boolean);
  return `API changes in ${heading.spec} (${heading.level}): ${parts.join(', ') || 'none'}`;
}
