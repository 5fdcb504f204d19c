// The purpose check: a package without a README, or whose README opens with something other than
// one sentence, is named with what to do; one that opens with one sentence passes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkPurposes, firstParagraph, notOneSentence } from '../src/purpose.ts';

const here = path.resolve(import.meta.dirname, '..');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(here, 'test-tree-'));
  made.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('one sentence per package', () => {
  it('reads the first paragraph under the title, joined into one line', () => {
    expect(firstParagraph('# @paykit/x\n\nThe first\nline.\n\nMore.\n')).toBe('The first line.');
    expect(firstParagraph('no title\n')).toBeUndefined();
    expect(firstParagraph('# @paykit/x\n')).toBeUndefined();
  });

  it('takes one sentence, with code spans and lower-case abbreviations inside it', () => {
    expect(notOneSentence('The `paykit` CLI over every client, e.g. the core client.')).toBeUndefined();
    expect(notOneSentence('Runs `pnpm start. Then` the scenario.')).toBeUndefined();
  });

  it('refuses two sentences, a missing full stop, code, tables and lists', () => {
    expect(notOneSentence('The store. It holds events.')).toMatch(/more than one sentence \(at "\. It holds/);
    expect(notOneSentence('The store')).toMatch(/does not end with a full stop/);
    expect(notOneSentence('```sh pnpm x ```')).toMatch(/not prose/);
    expect(notOneSentence('| a | b |')).toMatch(/not prose/);
    expect(notOneSentence('- a list.')).toMatch(/not prose/);
    expect(notOneSentence(undefined)).toMatch(/no paragraph/);
  });

  it('names every package without a README or without its sentence, and passes the others', () => {
    const root = tree({
      'apps/good/package.json': '{}',
      'apps/good/README.md': '# good\n\nThe good app, which does one thing.\n\nDetails. More details.\n',
      'packages/none/package.json': '{}',
      'packages/two/package.json': '{}',
      'packages/two/README.md': '# two\n\nThe two package. It does two things.\n',
      'tooling/not-a-package/README.md': '# loose\n',
      'examples/package.json': '{}',
      'examples/README.md': '# examples\n\nScripts as a product team writes them.\n',
    });
    const { checked, errors } = checkPurposes(root);
    expect(checked).toBe(4);
    expect(errors).toEqual([
      'packages/none: no README.md; write one whose first line says in one sentence what the package is for',
      'packages/two/README.md: its first paragraph holds more than one sentence (at ". It does two things."); open it with one sentence saying what the package is for, details after it',
    ]);
  });
});
