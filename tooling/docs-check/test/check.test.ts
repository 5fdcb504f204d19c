// The docs check finds the TypeScript blocks of READMEs and docs/ pages, type-checks each as a
// module against the real packages, and reports an error at the Markdown line it comes from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, checkBlocks, docFiles, exampleMismatches, writeExamples } from '../src/check.ts';

const here = path.resolve(import.meta.dirname, '..');
const made: string[] = [];
const scratch = (prefix: string) => {
  const dir = mkdtempSync(path.join(here, prefix));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const README = [
  '# A package',
  '',
  '```ts',
  "import { readAmount } from '@paykit/contracts';",
  "const verdict = readAmount('1500.00');",
  'if (verdict.ok) console.log(verdict.centavos);',
  '```',
  '',
  'Shell is not TypeScript:',
  '',
  '```sh',
  'pnpm docs:check',
  '```',
  '',
  '```typescript',
  "import { readAmount } from '@paykit/contracts';",
  '',
  "const centavos: string = readAmount('1.00').centavos;",
  '```',
].join('\n');

describe('the docs check', () => {
  it('finds READMEs and the pages under docs/, and the ts and typescript blocks in them with their lines', () => {
    const root = scratch('test-tree-');
    mkdirSync(path.join(root, 'docs'));
    mkdirSync(path.join(root, 'packages/a/node_modules/b'), { recursive: true });
    writeFileSync(path.join(root, 'README.md'), '');
    writeFileSync(path.join(root, 'docs/guide.md'), '');
    writeFileSync(path.join(root, 'packages/a/README.md'), '');
    writeFileSync(path.join(root, 'packages/a/CHANGELOG.md'), '');
    writeFileSync(path.join(root, 'packages/a/node_modules/b/README.md'), '');
    expect(docFiles(root)).toEqual(['README.md', 'docs/guide.md', 'packages/a/README.md']);
    expect(blocksOf('README.md', README).map((b) => [b.line, b.code.split('\n')[0]])).toEqual([
      [4, "import { readAmount } from '@paykit/contracts';"],
      [16, "import { readAmount } from '@paykit/contracts';"],
    ]);
  });

  it('passes a block that type-checks against the package, and names the Markdown line of one that does not', () => {
    const errors = checkBlocks(blocksOf('packages/a/README.md', README), scratch('test-blocks-'));
    expect(errors, errors.join('\n')).toHaveLength(1);
    // Line 18 of the Markdown: a property that the verdict may not have, of the wrong type.
    expect(errors[0]).toMatch(/^packages\/a\/README\.md:18:\d+: error TS\d+: /);
  }, 60_000);

  it('holds a block marked as an example to its file, word for word, and --write copies the file in', () => {
    const root = scratch('test-examples-');
    mkdirSync(path.join(root, 'examples/src'), { recursive: true });
    const script =
      "// A script.\nimport { readAmount } from '@paykit/contracts';\nconsole.log(readAmount('1.00').ok);\n";
    writeFileSync(path.join(root, 'examples/src/amount.ts'), script);
    const page = (code: string) =>
      [
        '# A page',
        '',
        'It runs as shown:',
        '',
        '<!-- example: examples/src/amount.ts -->',
        '```ts',
        code,
        '```',
        '',
      ].join('\n');

    const same = blocksOf('docs/a.md', page(script.trimEnd()));
    expect(same).toMatchObject([{ line: 7, example: 'examples/src/amount.ts' }]);
    expect(exampleMismatches(root, same)).toEqual([]);

    // One line edited in the Markdown only: reported at that line, with the file's text.
    const drifted = blocksOf('docs/a.md', page(script.trimEnd().replace("'1.00'", "'2.00'")));
    expect(exampleMismatches(root, drifted)).toEqual([
      `docs/a.md:9: the block shows examples/src/amount.ts and differs from it at its line 3 (the file has "console.log(readAmount('1.00').ok);"): run \`pnpm --filter @paykit/docs-check docs:check --write\` to copy the file into the block.`,
    ]);
    // The file grew: the block lacks its end.
    expect(exampleMismatches(root, blocksOf('docs/a.md', page(script.split('\n').slice(0, 2).join('\n'))))).toEqual([
      expect.stringMatching(/^docs\/a\.md:9: .* at its line 3 /),
    ]);
    expect(exampleMismatches(root, blocksOf('docs/a.md', page('').replace('amount.ts', 'gone.ts')))).toEqual([
      'docs/a.md:7: the block shows examples/src/gone.ts, which does not exist: fix the path in its <!-- example: … --> line.',
    ]);
    // An unmarked block is left alone, a marked empty one filled.
    expect(writeExamples(root, page('old text'))).toBe(page(script.trimEnd()));
    expect(writeExamples(root, page(''))).toBe(page(script.trimEnd()));
    expect(writeExamples(root, README)).toBe(README);
  });
});
