// The semantic difference between two revisions of a product's spec, as the people who import its
// client feel it. api-smart-diff walks both documents ($refs followed) and classifies each
// difference: a removed operation, field, enum value or status code, a newly required input or a
// changed type breaks callers (a major release); an added operation or optional field, or a
// deprecation, is new surface (minor); a description or an example changes no behaviour (patch).
// This module turns that into the changeset level a client package needs and into the lines its
// CHANGELOG says.
import { apiDiff, type Diff } from 'api-smart-diff';
import { NOTES_LINE } from './api-section.ts';

export type Bump = 'major' | 'minor' | 'patch';

export interface SpecDiff {
  /** The least changeset level the difference needs; null when the documents are the same. */
  level: Bump | null;
  /** One line per breaking difference, as the CHANGELOG should say it. */
  breaking: string[];
  /** Added surface and deprecations. */
  additions: string[];
  /** Differences that change no behaviour (descriptions, examples, extensions). */
  notes: number;
}

const RANK: Record<Bump, number> = { patch: 1, minor: 2, major: 3 };

/** Whether `given` is at least `needed`. */
export function covers(given: Bump | 'none' | undefined, needed: Bump): boolean {
  return given !== undefined && given !== 'none' && RANK[given] >= RANK[needed];
}

/** The highest of some bumps (undefined for none). */
export function highest(bumps: readonly (Bump | 'none')[]): Bump | undefined {
  let top: Bump | undefined;
  for (const bump of bumps) if (bump !== 'none' && (top === undefined || RANK[bump] > RANK[top])) top = bump;
  return top;
}

function pointer(path: readonly (string | number)[]): string {
  return `/${path.map((part) => String(part).replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

/** A line a reader understands: the library's description, else the action and where. */
function describe(diff: Diff): string {
  if (diff.description) return diff.description;
  const verb =
    diff.action === 'add'
      ? 'Added'
      : diff.action === 'remove'
        ? 'Removed'
        : diff.action === 'rename'
          ? 'Renamed'
          : 'Changed';
  return `[${verb}] ${pointer(diff.path)}`;
}

/**
 * A property removed anywhere breaks a generated, typed client whatever the library's rule for
 * responses says (it calls an optional response field's removal non-breaking, as oasdiff does):
 * code that reads it, or passes it, no longer compiles.
 */
function removesProperty(diff: Diff): boolean {
  return diff.action === 'remove' && diff.path.length >= 2 && diff.path[diff.path.length - 2] === 'properties';
}

/** The difference from `before` to `after` (parsed OpenAPI documents). */
export function specDiff(before: unknown, after: unknown): SpecDiff {
  const breaking = new Set<string>();
  const additions = new Set<string>();
  let notes = 0;
  for (const diff of apiDiff(before, after)) {
    if (diff.type === 'breaking' || removesProperty(diff)) breaking.add(describe(diff));
    else if (diff.type === 'non-breaking' || diff.type === 'deprecated') additions.add(describe(diff));
    else notes += 1;
  }
  const level: Bump | null = breaking.size > 0 ? 'major' : additions.size > 0 ? 'minor' : notes > 0 ? 'patch' : null;
  return { level, breaking: [...breaking].sort(), additions: [...additions].sort(), notes };
}

/**
 * Whether a changeset's text says a line of an API difference: a line of its own that is the line,
 * or ends with it after a space ("- [Added] …", "- Breaking: [Removed] …"). A line inside a longer
 * one does not count: "…/required/1" is not said by "…/required/10".
 */
export function says(text: string, line: string): boolean {
  return text.split('\n').some((own) => {
    const trimmed = own.trim();
    return trimmed === line || trimmed.endsWith(` ${line}`);
  });
}

/**
 * What of `diff` the `written` changeset texts do not say yet: the breaking and added lines none of
 * them carries, and (with `countNotes`) the description/example changes beyond those their API
 * sections for `spec` already count. The level is that of what is left.
 */
export function unwritten(
  spec: string,
  diff: SpecDiff,
  written: readonly string[],
  options: { countNotes: boolean },
): SpecDiff {
  const breaking = diff.breaking.filter((line) => !written.some((text) => says(text, line)));
  const additions = diff.additions.filter((line) => !written.some((text) => says(text, line)));
  let notes = diff.notes;
  if (options.countNotes) {
    const heading = `API changes in ${spec} (`;
    for (const text of written) {
      let inSection = false;
      for (const own of text.split('\n')) {
        const trimmed = own.trim();
        if (trimmed.startsWith('API changes in ')) inSection = trimmed.startsWith(heading);
        else if (trimmed === '') inSection = false;
        const counted = inSection ? trimmed.match(NOTES_LINE) : null;
        if (counted) notes -= Number(counted[1]);
      }
    }
    notes = Math.max(0, notes);
  }
  const level: Bump | null =
    breaking.length > 0 ? 'major' : additions.length > 0 ? 'minor' : notes > 0 ? 'patch' : null;
  return { level, breaking, additions, notes };
}
