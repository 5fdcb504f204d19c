// The pending changesets (.changeset/*.md): which packages each names, with which bump, and its
// summary. Read the way `changeset version` reads them: YAML front matter, then the text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

export interface PendingChangeset {
  /** File name relative to the repository root. */
  file: string;
  releases: Record<string, 'major' | 'minor' | 'patch' | 'none'>;
  summary: string;
}

export class ChangesetFormatError extends Error {
  override name = 'ChangesetFormatError';
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n?([\s\S]*)$/;

export function parseChangeset(file: string, text: string): PendingChangeset {
  const match = text.trim().match(FRONT_MATTER);
  if (!match)
    throw new ChangesetFormatError(
      `${file}: no front matter. A changeset starts with ---, one "package": bump per line, ---, then the summary (write it with pnpm changeset).`,
    );
  const data: unknown = parse(match[1] ?? '') ?? {};
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ChangesetFormatError(`${file}: the front matter must map package names to major, minor, patch or none.`);
  const releases: PendingChangeset['releases'] = {};
  for (const [name, bump] of Object.entries(data)) {
    if (bump !== 'major' && bump !== 'minor' && bump !== 'patch' && bump !== 'none') {
      throw new ChangesetFormatError(
        `${file}: "${name}" has bump ${JSON.stringify(bump)}; use major, minor, patch or none.`,
      );
    }
    releases[name] = bump;
  }
  return { file, releases, summary: (match[2] ?? '').trim() };
}

export function readPendingChangesets(root: string): PendingChangeset[] {
  const dir = path.join(root, '.changeset');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .map((name) => parseChangeset(`.changeset/${name}`, readFileSync(path.join(dir, name), 'utf8')));
}
