// The docs check finds the TypeScript blocks of READMEs and docs/ pages, type-checks each as a
// module against the real packages, and reports an error at the Markdown line it comes from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blocksOf, checkBlocks, docFiles } from '../src/check.ts';

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
});
