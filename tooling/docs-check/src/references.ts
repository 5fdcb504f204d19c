// The references check of `pnpm docs:check`: a comment or a doc that names a repository file or a
// migration must name one that exists, so the text cannot drift when code moves. It reads the
// comments of every hand-written source file (src, test, bench and scenarios of apps/*, packages/*
// and tooling/*, scripts/, examples/, configuration files; not generated files, fixtures,
// node_modules or dist) and the whole Markdown of READMEs and docs/.
// - A path with a folder (`packages/ledger/sql/functions/paykit_amount.sql`, `src/check.ts`,
//   `../README.md`) must be a file relative to the repository root, to the naming file's package or
//   to its folder; one said to be a package's (`@paykit/ledger`'s `sql/functions/…`), in that package.
// - A bare name of code (`check.ts`, `.sql`, `.sh`, `.cjs`) must be a file somewhere in the
//   repository (a data or doc name, `paykit.config.json`, is as often a user's file: not checked).
// - A migration name (`0015_journal`) must be a `.sql` file in some package's `migrations/` folder,
//   and a number after "migration(s)" (`migrations 0005 and 0006`) the number of one.
// - A function named with its file (`importReport (report-import.ts)`) must be in that file.
// URLs, npm package paths (`@paykit/store/testing`, `node_modules/…`), absolute paths, globs and
// placeholders (`<name>.ts`, `NNNN_name.sql`) are not references. A line that shows a made-up name
// on purpose says so with `docs-check: not-a-path` in it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface Reference {
  /** The file that names it, relative to the root. */
  file: string;
  line: number;
  /** The text as written: `packages/store/src/migrate.ts`, `migrate.ts`, `0015_journal` or `0015`. */
  ref: string;
  kind: 'path' | 'name' | 'migration';
  /** The package the text says holds the path (`@paykit/ledger`'s `sql/functions/…`). */
  owner?: string;
  /** A function the text says the file holds: `startStormProcess (token-storm.scenario.ts)`. */
  holds?: string;
}

/** Where the check looks: every file below the root (relative, `/`-separated) and the migrations. */
export interface Tree {
  root: string;
  files: ReadonlySet<string>;
  /** Each base name with the files that have it. */
  byName: ReadonlyMap<string, readonly string[]>;
  /** Migration names (`0015_journal`) with their files. */
  migrations: ReadonlyMap<string, string>;
  /** The folders that hold a package.json, relative ('' for the root). */
  packages: ReadonlySet<string>;
  /** Each workspace package's name (`@paykit/ledger`) with its folder. */
  packageDirs: ReadonlyMap<string, string>;
  /** Globs from .gitattributes marked `linguist-generated`. */
  generated: readonly string[];
}

const SKIP_DIRS = new Set(['node_modules', 'dist', 'blocks', 'coverage', '.git', '.turbo', '.data']);
const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|sh)$/;
const SOURCE_ROOTS = [
  /^(apps|packages|tooling)\/[^/]+\/(src|test|bench|scenarios)\//,
  /^scripts\//,
  /^examples\//,
  // Configuration: the root's and each package's own (vitest.config.ts, eslint.config.js).
  /^((apps|packages|tooling)\/[^/]+\/)?[^/]+$/,
];
const GENERATED_HEADER = /^(\/\/|#)\s*Generated\b/;
const NOT_A_PATH = 'docs-check: not-a-path';

/** Every file below `root`, skipping node_modules, dist and dot folders. */
export function readTree(root: string): Tree {
  const files = new Set<string>();
  const packages = new Set<string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(path.join(root, dir))) {
      if (SKIP_DIRS.has(name) || name.startsWith('test-tree-')) continue;
      const rel = dir === '' ? name : `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) walk(rel);
      else {
        files.add(rel);
        if (name === 'package.json') packages.add(dir);
      }
    }
  };
  walk('');
  const byName = new Map<string, string[]>();
  const migrations = new Map<string, string>();
  for (const file of files) {
    const base = path.posix.basename(file);
    byName.set(base, [...(byName.get(base) ?? []), file]);
    const migration = /(^|\/)migrations\/(\d{4}_\w+)\.sql$/.exec(file);
    if (migration) migrations.set(migration[2]!, file);
  }
  let generated: string[] = [];
  try {
    generated = readFileSync(path.join(root, '.gitattributes'), 'utf8')
      .split('\n')
      .filter((line) => /\blinguist-generated(=true)?\b/.test(line) && !line.startsWith('#'))
      .map((line) => line.split(/\s+/)[0]!);
  } catch {
    // No .gitattributes: nothing is marked generated.
  }
  const packageDirs = new Map<string, string>();
  for (const dir of packages) {
    try {
      const { name } = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as { name?: unknown };
      // A test fixture may copy a package's name: the shallowest folder is the package.
      const known = typeof name === 'string' ? packageDirs.get(name) : undefined;
      if (typeof name === 'string' && (known === undefined || known.split('/').length > dir.split('/').length))
        packageDirs.set(name, dir);
    } catch {
      // A package.json that does not parse names no package.
    }
  }
  return { root, files, byName, migrations, packages, packageDirs, generated };
}

/** The hand-written source files whose comments are checked, and the READMEs and docs/ pages. */
export function checkedFiles(tree: Tree): { sources: string[]; docs: string[] } {
  const sources: string[] = [];
  const docs: string[] = [];
  for (const file of tree.files) {
    if (file.endsWith('.md') && (path.posix.basename(file) === 'README.md' || file.startsWith('docs/')))
      docs.push(file);
    else if (
      SOURCE_EXT.test(file) &&
      SOURCE_ROOTS.some((root) => root.test(file)) &&
      !tree.generated.some((glob) => path.posix.matchesGlob(file, glob))
    )
      sources.push(file);
  }
  return { sources: sources.sort(), docs: docs.sort() };
}

/** The comments of a TypeScript or JavaScript text, each with its line (1-based). */
export function tsComments(name: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(name, text, {
    languageVersion: ts.ScriptTarget.Latest,
    jsDocParsingMode: ts.JSDocParsingMode.ParseNone,
  });
  const seen = new Set<number>();
  const comments: { line: number; text: string }[] = [];
  // Every comment is trivia before some token: visit the leaves (tokens and the end of the file).
  const visit = (node: ts.Node) => {
    const children = node.getChildren(source);
    if (children.length > 0) {
      for (const child of children) visit(child);
      return;
    }
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({
        line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
        text: text.slice(range.pos, range.end),
      });
    }
  };
  visit(source);
  // A shebang line is not a comment to check.
  return comments.filter((c) => !c.text.startsWith('#!'));
}

/** The `#` comments of a shell script, each with its line. */
export function shComments(text: string): { line: number; text: string }[] {
  return text.split('\n').flatMap((line, index) => {
    if (line.startsWith('#!')) return [];
    const at = line.search(/(^|\s)#/);
    return at < 0 ? [] : [{ line: index + 1, text: line.slice(at) }];
  });
}

// A candidate is a run of path characters; one with a placeholder or glob character is skipped whole.
const CANDIDATE = /[\w@.~<>*{}$%\-/:[\]]+/g;
const FILE_EXT = /\.(ts|sql|md|json|yaml|cjs|sh)$/;
// A bare name is a reference when it names code (a data or doc name is as often a user's file).
const CODE_EXT = /\.(ts|sql|cjs|sh)$/;
const MIGRATION = /(?<![\w/.-])(\d{4}_[a-z][a-z0-9_]*)(?![\w-])/g;
// `migration 0006`, `migrations 0005 and 0006`, `migrations 0003, 0007 and 0015`.
const MIGRATION_NUMBERS = /\bmigrations?\s+`?(\d{4})`?((?:(?:,|\s+and|\s+or)\s+`?\d{4}`?)*)(?![\w-])/g;
// `@paykit/ledger`'s sql/functions/…: a path inside the named package.
const OWNER = /`?(@paykit\/[\w-]+)`?'s\s+`?$/;

// A function named with its file: `startStormProcess (token-storm.scenario.ts)`, `importReport()
// in report-import.ts`, or `report-import.ts's importReport`. A function name has a capital or an
// underscore inside (camelCase, snake_case), or is written as a call.
const FUNCTION = String.raw`([a-z_$][\w$]*[A-Z_][\w$]*|[A-Za-z_$][\w$]*(?=\(\)))`;
const HELD_BEFORE = new RegExp(String.raw`(?<![\w$.])\`?${FUNCTION}(?:\(\))?\`?\s+(\(|in|of|from)\s*\`?$`);
const HELD_AFTER = new RegExp(String.raw`^\`?'s\s+\`?${FUNCTION}(?:\(\))?\`?(?![\w$])`);

/** The references one piece of text makes, each at its line (counting from `firstLine`). */
export function referencesIn(file: string, firstLine: number, text: string): Reference[] {
  const found: Reference[] = [];
  const lines = text.split('\n');
  lines.forEach((content, index) => {
    if (content.includes(NOT_A_PATH)) return;
    const line = firstLine + index;
    for (const match of content.matchAll(CANDIDATE)) {
      // Sentence punctuation and Markdown around a path are not part of it.
      const token = match[0].replace(/^[:[\]]+/, '').replace(/[.:[\]]+$/, '');
      if (!FILE_EXT.test(token)) continue;
      // Placeholders and globs (`<name>.ts`, `*.test.ts`, `NNNN_name.sql`), URLs, absolute paths,
      // npm package paths (`@scope/pkg/…`, `pkg@1.2.3/…`, `node_modules/…`).
      if (/[<>*{}$%~[\]:@]/.test(token) || token.includes('NNNN') || token.startsWith('/')) continue;
      if (token.includes('node_modules/') || token.includes('..ts')) continue;
      // An extension alone (`.ts`, `.d.ts`, `.test.ts`) names no file.
      if (/^(\.[a-z]{1,4})+$/.test(token)) continue;
      const before = content.slice(0, match.index);
      // The path part of a URL written without its scheme (`github.com/…`) or after a host.
      if (/[\w-]+\.(com|org|io|net|dev)\/?$/.test(before) || /\/\/\S*$/.test(before)) continue;
      const ref = token.replace(/^\.\//, '');
      if (!ref.includes('/') && !CODE_EXT.test(ref)) continue;
      // The owner may end the line before (`… @paykit/ledger's` / `// sql/functions/…`).
      const lead =
        /^\s*(\/\/|\*|#)?\s*`?$/.test(before) && index > 0
          ? `${lines[index - 1]} ${before.trim().replace(/^(\/\/|\*|#)\s*/, '')}`
          : before;
      const owner = OWNER.exec(lead)?.[1];
      const after = content.slice(match.index + match[0].length);
      const holds =
        HELD_BEFORE.exec(before)?.[1] ?? HELD_AFTER.exec(`${match[0].endsWith('.') ? '.' : ''}${after}`)?.[1];
      found.push({
        file,
        line,
        ref,
        kind: ref.includes('/') ? 'path' : 'name',
        ...(owner ? { owner } : {}),
        ...(holds && !ref.endsWith('.md') && !ref.endsWith('.json') ? { holds } : {}),
      });
    }
    for (const match of content.matchAll(MIGRATION)) {
      if (match[1]!.startsWith('NNNN')) continue;
      found.push({ file, line, ref: match[1]!, kind: 'migration' });
    }
    for (const match of content.matchAll(MIGRATION_NUMBERS)) {
      for (const number of `${match[1]} ${match[2]}`.match(/\d{4}/g) ?? [])
        found.push({ file, line, ref: number, kind: 'migration' });
    }
  });
  return found;
}

/** The package folder that holds `file` ('' for the root). */
function packageOf(tree: Tree, file: string): string {
  let dir = path.posix.dirname(file);
  while (dir !== '.' && dir !== '') {
    if (tree.packages.has(dir)) return dir;
    dir = path.posix.dirname(dir);
  }
  return '';
}

const join = (...parts: string[]) => path.posix.normalize(path.posix.join(...parts));

/** Whether a reference names something that exists. */
export function resolves(tree: Tree, reference: Reference): boolean {
  const { ref } = reference;
  if (reference.kind === 'migration')
    return /^\d{4}$/.test(ref)
      ? [...tree.migrations.keys()].some((name) => name.startsWith(`${ref}_`))
      : tree.migrations.has(ref);
  // A package outside the workspace: not a repository file.
  if (reference.owner !== undefined && !tree.packageDirs.has(reference.owner)) return true;
  return filesOf(tree, reference).length > 0;
}

/** The files a path or name reference lands on (a bare name may land on several). */
export function filesOf(tree: Tree, reference: Reference): string[] {
  const { ref, file } = reference;
  if (reference.kind === 'migration') return [];
  if (reference.owner !== undefined) {
    const dir = tree.packageDirs.get(reference.owner);
    return dir !== undefined && tree.files.has(join(dir, ref)) ? [join(dir, ref)] : [];
  }
  if (reference.kind === 'path') {
    const pkg = packageOf(tree, file);
    const folder = path.posix.dirname(file);
    return [...new Set([join(ref), join(pkg, ref), join(folder, ref)])].filter((candidate) =>
      tree.files.has(candidate),
    );
  }
  // A bare name: the file's own package's first, else a sibling package's.
  const holders = tree.byName.get(ref) ?? [];
  const pkg = packageOf(tree, file);
  const own = holders.filter((holder) => pkg !== '' && holder.startsWith(`${pkg}/`));
  return own.length > 0 ? own : [...holders];
}

const texts = new Map<string, string>();
function textOf(tree: Tree, file: string): string {
  const key = path.join(tree.root, file);
  let text = texts.get(key);
  if (text === undefined) {
    text = readFileSync(key, 'utf8');
    texts.set(key, text);
  }
  return text;
}
const word = (name: string) => new RegExp(String.raw`(?<![\w$])${name.replace(/\$/g, '\\$')}(?![\w$])`);

/** Whether the file a reference names still holds the function the text says it does. */
export function holdsFunction(tree: Tree, reference: Reference): boolean {
  if (reference.holds === undefined) return true;
  const pattern = word(reference.holds);
  return filesOf(tree, reference).some((file) => pattern.test(textOf(tree, file)));
}

/** The files that define a function, to say where it went. */
function definersOf(tree: Tree, name: string): string[] {
  const defines = new RegExp(
    String.raw`(function\s+|(const|let|class|interface|type)\s+|FUNCTION\s+(\w+\.)?)${name.replace(/\$/g, '\\$')}(?![\w$])`,
    'i',
  );
  return [...tree.files]
    .filter((file) => /\.(ts|sql)$/.test(file) && !file.includes('/fixtures/'))
    .filter((file) => defines.test(textOf(tree, file)))
    .sort();
}

/** The closest existing file for a stale reference, if there is an obvious one. */
export function hintFor(tree: Tree, reference: Reference): string | undefined {
  if (reference.kind === 'migration') {
    const number = reference.ref.slice(0, 4);
    const same = [...tree.migrations].filter(([name]) => name.startsWith(`${number}_`));
    if (same.length > 0) return same.map(([name]) => name).join(' or ');
    if (reference.ref.length === 4) return undefined;
    const named = [...tree.migrations].filter(([name]) => name.slice(5) === reference.ref.slice(5));
    return named.length > 0 ? named.map(([name]) => name).join(' or ') : undefined;
  }
  const base = path.posix.basename(reference.ref);
  const holders = tree.byName.get(base) ?? [];
  if (holders.length === 0 || holders.length > 3) return undefined;
  // Prefer the holders that end with what the reference wrote (`src/check.ts` under another package).
  const tail = reference.ref.replace(/^(\.\.?\/)+/, '');
  const ending = holders.filter((h) => h.endsWith(`/${tail}`) || h === tail);
  return (ending.length > 0 ? ending : holders).join(' or ');
}

/** The comments alone at their lines, the code blanked: a sentence may run over `//` lines. */
export function commentsOnly(comments: readonly { line: number; text: string }[]): string {
  const lines: string[] = [];
  for (const comment of comments) {
    comment.text.split('\n').forEach((part, index) => {
      const at = comment.line - 1 + index;
      while (lines.length <= at) lines.push('');
      lines[at] = lines[at] === '' ? part : `${lines[at]} ${part}`;
    });
  }
  return lines.join('\n');
}

/** Every reference the checked files make, and the ones that name nothing. */
export function checkReferences(tree: Tree): { checked: number; errors: string[] } {
  const { sources, docs } = checkedFiles(tree);
  const references: Reference[] = [];
  for (const file of sources) {
    const text = readFileSync(path.join(tree.root, file), 'utf8');
    if (GENERATED_HEADER.test(text)) continue;
    const comments = file.endsWith('.sh') ? shComments(text) : tsComments(file, text);
    references.push(...referencesIn(file, 1, commentsOnly(comments)));
  }
  for (const file of docs) references.push(...referencesIn(file, 1, readFileSync(path.join(tree.root, file), 'utf8')));
  const errors: string[] = [];
  for (const reference of references) {
    if (resolves(tree, reference) && !holdsFunction(tree, reference)) {
      const definers = definersOf(tree, reference.holds!);
      errors.push(
        `${reference.file}:${reference.line}: names ${reference.holds} in ${reference.ref}, which does not exist there (${definers.length > 0 && definers.length <= 3 ? `it is defined in ${definers.join(' and ')}` : 'no file defines it'}): rewrite it to what is true.`,
      );
    }
    if (resolves(tree, reference)) continue;
    const hint = hintFor(tree, reference);
    const what = reference.kind === 'migration' ? 'migration' : 'file';
    errors.push(
      `${reference.file}:${reference.line}: names ${reference.ref}, which does not exist (no such ${what}${hint ? `; did you mean ${hint}?` : ''}): rewrite it to what is true, or mark a made-up name with \`${NOT_A_PATH}\` on its line.`,
    );
  }
  return { checked: references.length, errors };
}
