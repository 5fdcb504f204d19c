// `pnpm docs:check`: every TypeScript block (```ts) of a README or of a page under docs/ type-checks
// as written. Each block becomes a module of its own in `blocks/` (beside this package's
// node_modules, so `@paykit/*` imports resolve as they do for a user), then one `tsc` checks them
// all; an error is reported at the Markdown file and line it comes from. A fragment declares what
// it uses (`declare const db: Database;`), so what it shows is checked against the real types.
// A block marked `<!-- example: examples/src/<name>.ts -->` (on the line before its fence) shows
// that runnable example whole: it must equal the file, so the text cannot drift from the code CI
// runs; `--write` copies each such file into its blocks. And every file or migration a comment or a
// doc names must exist (src/references.ts), so the text cannot drift when code moves; and every
// package's README opens with one sentence saying what the package is for (src/purpose.ts).
//   node src/check.ts [--root <dir>] [--out <dir>] [--write]   (defaults: the repository, ./blocks)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkPurposes } from './purpose.ts';
import { checkReferences, readTree } from './references.ts';

const here = path.resolve(import.meta.dirname, '..');

export interface Block {
  /** The Markdown file, relative to the root. */
  file: string;
  /** The line of the block's first line of code (1-based). */
  line: number;
  code: string;
  /** The file the block shows whole (`<!-- example: path -->` before its fence), relative to the root. */
  example?: string;
}

const EXAMPLE_MARK = /^<!--\s*example:\s*(\S+)\s*-->\s*$/;

/** The READMEs and the pages under docs/ below `root`, skipping node_modules, dist and dot folders. */
export function docFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (
        name === 'README.md' ||
        (name.endsWith('.md') && path.relative(root, full).startsWith(`docs${path.sep}`))
      )
        found.push(path.relative(root, full));
    }
  };
  walk(root);
  return found.sort();
}

/** The ```ts (or ```typescript) blocks of one Markdown text. */
export function blocksOf(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    const example = i > 0 ? EXAMPLE_MARK.exec(lines[i - 1]!)?.[1] : undefined;
    blocks.push({ file, line: start + 1, code: lines.slice(start, end).join('\n'), ...(example ? { example } : {}) });
    i = end;
  }
  return blocks;
}

/** A file's text as a block holds it: without the final line break. */
function asBlock(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/\n+$/, '');
}

/** Each marked block that is not its example file, word for word; at the block's Markdown line. */
export function exampleMismatches(root: string, blocks: readonly Block[]): string[] {
  const errors: string[] = [];
  for (const block of blocks) {
    if (block.example === undefined) continue;
    const full = path.join(root, block.example);
    if (!existsSync(full)) {
      errors.push(
        `${block.file}:${block.line}: the block shows ${block.example}, which does not exist: fix the path in its <!-- example: … --> line.`,
      );
      continue;
    }
    const wanted = asBlock(readFileSync(full, 'utf8')).split('\n');
    const shown = block.code.split('\n');
    const differs = wanted.findIndex((line, index) => shown[index] !== line);
    const at = differs >= 0 ? differs : shown.length !== wanted.length ? wanted.length : -1;
    if (at < 0) continue;
    errors.push(
      `${block.file}:${block.line + at}: the block shows ${block.example} and differs from it at its line ${at + 1} (the file has ${JSON.stringify(wanted[at] ?? '(its end)')}): run \`pnpm --filter @paykit/docs-check docs:check --write\` to copy the file into the block.`,
    );
  }
  return errors;
}

/** `text` with every marked block replaced by its example file (read under `root`). */
export function writeExamples(root: string, text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    out.push(lines[i]!);
    const example = EXAMPLE_MARK.exec(lines[i]!)?.[1];
    if (example === undefined || !/^```(ts|typescript)\s*$/.test(lines[i + 1] ?? '')) continue;
    const full = path.join(root, example);
    if (!existsSync(full)) continue;
    out.push(lines[i + 1]!, ...asBlock(readFileSync(full, 'utf8')).split('\n'));
    let end = i + 2;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    i = end - 1;
  }
  return out.join('\n');
}

/** Writes each block as a module of `out` and type-checks them; returns the errors, each at its Markdown line. */
export function checkBlocks(blocks: readonly Block[], out: string): string[] {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const names = new Map<string, Block>();
  blocks.forEach((block, index) => {
    const name = `${String(index).padStart(3, '0')}-${block.file.replace(/[^a-zA-Z0-9]+/g, '_')}-${block.line}.ts`;
    names.set(name, block);
    // The block's lines keep their numbers after this one header line; `export {}` makes it a module.
    writeFileSync(path.join(out, name), `// ${block.file}:${block.line}\n${block.code}\nexport {};\n`);
  });
  writeFileSync(
    path.join(out, 'tsconfig.json'),
    JSON.stringify({
      extends: path.relative(out, path.join(here, '../tsconfig/base.json')),
      compilerOptions: { noEmit: true },
      include: ['*.ts'],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [path.join(here, 'node_modules/typescript/bin/tsc'), '-p', out, '--pretty', 'false'],
    {
      encoding: 'utf8',
    },
  );
  if (tsc.status === 0) return [];
  // One error per `file(line,col): …` line; the indented lines after it explain it and stay with it.
  const errors: string[] = [];
  for (const line of `${tsc.stdout}${tsc.stderr}`.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^(.*?\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
    const block = match ? names.get(path.basename(match[1]!)) : undefined;
    if (match && block) errors.push(`${block.file}:${block.line + Number(match[2]) - 2}:${match[3]}: ${match[4]}`);
    else if (/^\s/.test(line) && errors.length > 0) errors[errors.length - 1] += `\n${line}`;
    else errors.push(line);
  }
  return errors;
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { root: { type: 'string' }, out: { type: 'string' }, write: { type: 'boolean' } },
  });
  const root = path.resolve(values.root ?? path.join(here, '../..'));
  const out = path.resolve(values.out ?? path.join(here, 'blocks'));
  const files = docFiles(root);
  if (values.write) {
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      const written = writeExamples(root, text);
      if (written !== text) {
        writeFileSync(path.join(root, file), written);
        console.log(`docs:check: copied the example files into the blocks of ${file}`);
      }
    }
  }
  const started = performance.now();
  const references = checkReferences(readTree(root));
  const referencesMs = Math.round(performance.now() - started);
  const blocks = files.flatMap((file) => blocksOf(file, readFileSync(path.join(root, file), 'utf8')));
  const errors = [...exampleMismatches(root, blocks), ...checkBlocks(blocks, out)];
  const purposes = checkPurposes(root);
  if (purposes.errors.length > 0) {
    console.error(purposes.errors.join('\n'));
    console.error(
      `docs:check: ${purposes.errors.length} of ${purposes.checked} packages do not say in one sentence what they are for`,
    );
  }
  if (references.errors.length > 0) {
    console.error(references.errors.join('\n'));
    console.error(
      `docs:check: ${references.errors.length} of ${references.checked} files and migrations named in comments and docs do not exist`,
    );
  }
  if (errors.length > 0) {
    console.error(errors.join('\n'));
    console.error(
      `docs:check: ${errors.length} error(s) in the TypeScript blocks of the docs; fix the block (a fragment declares what it uses: \`declare const db: Database;\`)`,
    );
  }
  if (errors.length > 0 || references.errors.length > 0 || purposes.errors.length > 0) process.exit(1);
  console.log(`docs:check: ${purposes.checked} packages say in one sentence what they are for`);
  console.log(
    `docs:check: ${references.checked} files and migrations named in comments and docs exist (${referencesMs} ms)`,
  );
  console.log(
    `docs:check: ${blocks.length} TypeScript blocks in ${new Set(blocks.map((b) => b.file)).size} files type-check, ${blocks.filter((b) => b.example).length} of them the example file they show`,
  );
}
