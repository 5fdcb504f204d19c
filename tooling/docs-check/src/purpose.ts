// The purpose check of `pnpm docs:check`: every package of the workspace (apps/*, packages/*,
// tooling/*, examples) has a README whose first paragraph, under its title, says in one sentence
// what the package is for. A new engineer reads that line, not the package's files, to know where
// code lives; the details follow it.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const GROUPS = ['apps', 'packages', 'tooling'];

/** The workspace's package folders below `root`, relative to it: those with a package.json. */
export function packageFolders(root: string): string[] {
  const folders = GROUPS.flatMap((group) => {
    const dir = path.join(root, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${group}/${entry.name}`);
  });
  folders.push('examples');
  return folders.filter((folder) => existsSync(path.join(root, folder, 'package.json'))).sort();
}

/** The first paragraph after the README's title, as one line; undefined when there is none. */
export function firstParagraph(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  let i = lines.findIndex((line) => line.startsWith('# '));
  if (i === -1) return undefined;
  i++;
  while (i < lines.length && lines[i]!.trim() === '') i++;
  const paragraph: string[] = [];
  while (i < lines.length && lines[i]!.trim() !== '') paragraph.push(lines[i++]!.trim());
  return paragraph.length === 0 ? undefined : paragraph.join(' ');
}

/**
 * Why a paragraph is not one sentence saying what a package is for; undefined when it is. It must
 * be prose (not a code fence, a table, a list or a heading), end with a full stop, and hold no
 * other sentence: no `.`, `!` or `?` followed by a capital letter, a backtick or a bracket.
 */
export function notOneSentence(paragraph: string | undefined): string | undefined {
  if (paragraph === undefined) return 'it has no paragraph under its title';
  if (/^(```|\||[-*] |#|>)/.test(paragraph)) return 'its first paragraph is not prose';
  if (!paragraph.endsWith('.')) return 'its first paragraph does not end with a full stop';
  // Skip what a code span holds: `pnpm paykit --help.` is not a sentence boundary.
  const prose = paragraph.replace(/`[^`]*`/g, 'code');
  const boundary = /[.!?]\s+[A-Z`[(]/.exec(prose);
  if (boundary)
    return `its first paragraph holds more than one sentence (at "${prose.slice(boundary.index, boundary.index + 24)}")`;
  return undefined;
}

/** Every package whose README does not open with one sentence saying what the package is for. */
export function checkPurposes(root: string): { checked: number; errors: string[] } {
  const folders = packageFolders(root);
  const errors = folders.flatMap((folder) => {
    const readme = path.join(root, folder, 'README.md');
    if (!existsSync(readme))
      return [`${folder}: no README.md; write one whose first line says in one sentence what the package is for`];
    const problem = notOneSentence(firstParagraph(readFileSync(readme, 'utf8')));
    return problem === undefined
      ? []
      : [`${folder}/README.md: ${problem}; open it with one sentence saying what the package is for, details after it`];
  });
  return { checked: folders.length, errors };
}
