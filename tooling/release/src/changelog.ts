// How `changeset version` writes a changeset into a CHANGELOG (.changeset/config.json names this
// module). Each entry is the changeset's own words, without the commit hash the default writer
// puts first: a dated platform change keeps its date at the head of the line
// ("- 2026-05-07: money_out routes…"). The API difference `pnpm release:api-diff --write` adds to a
// changeset ("API changes in specs/core.yaml (major):" and one line per change) is folded into a
// <details> block whose summary counts it, so the entry reads as its description and its migration,
// with the full list one click away.
import { formatSpecDiffSummary, parseSpecDiffHeading } from './api-section.ts';

interface ChangelogChangeset {
  summary: string;
}

interface UpdatedDependency {
  name: string;
  newVersion: string;
}

/** Folds each API section of a changeset's text (its heading to the next blank line) into <details>. */
export function foldApiSections(summary: string): string {
  const out: string[] = [];
  const lines = summary.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heading = parseSpecDiffHeading(lines[i] ?? '');
    if (!heading) {
      out.push(lines[i] ?? '');
      continue;
    }
    const items: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1] ?? '').trim() !== '') items.push((lines[++i] ?? '').trimEnd());
    out.push(`<details><summary>${formatSpecDiffSummary(heading, items)}</summary>`, '', ...items, '', '</details>');
  }
  return out.join('\n');
}

function getReleaseLine(changeset: ChangelogChangeset): Promise<string> {
  const [first = '', ...rest] = foldApiSections(changeset.summary.trim())
    .split('\n')
    .map((line) => line.trimEnd());
  const indented = rest.map((line) => (line === '' ? '' : `  ${line}`));
  return Promise.resolve([`- ${first}`, ...indented].join('\n'));
}

function getDependencyReleaseLine(
  _changesets: readonly ChangelogChangeset[],
  dependenciesUpdated: readonly UpdatedDependency[],
): Promise<string> {
  if (dependenciesUpdated.length === 0) return Promise.resolve('');
  return Promise.resolve(
    ['- Updated dependencies', ...dependenciesUpdated.map((d) => `  - ${d.name}@${d.newVersion}`)].join('\n'),
  );
}

export default { getReleaseLine, getDependencyReleaseLine };
