// `pnpm gen` writes only what changed, by rename: with the specs unchanged it touches no file, so
// it can run while tests and type checks read the generated code.
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProduct, REPO_ROOT, regenerateProduct } from '../src/index.ts';

const product = findProduct('billpay');
const root = mkdtempSync(path.join(tmpdir(), 'paykit-regenerate-'));
cpSync(path.join(REPO_ROOT, product.spec), path.join(root, product.spec), { recursive: true });
cpSync(path.join(REPO_ROOT, product.generatedDir), path.join(root, product.generatedDir), { recursive: true });
const out = path.join(root, product.generatedDir);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('regenerateProduct', () => {
  it('leaves fresh files alone, restores an edited one, deletes a stray one', async () => {
    const before = new Map(
      ['meta.gen.ts', 'sdk.gen.ts', 'zod.gen.ts'].map((f) => [f, statSync(path.join(out, f)).ino]),
    );
    const committed = readFileSync(path.join(out, 'zod.gen.ts'), 'utf8');
    writeFileSync(path.join(out, 'zod.gen.ts'), `${committed}// edited by hand\n`);
    writeFileSync(path.join(out, 'stray.gen.ts'), 'export {};\n');

    const { files, changed } = await regenerateProduct(product, out, root);

    expect(changed.sort()).toEqual(['stray.gen.ts', 'zod.gen.ts']);
    expect(files).not.toContain('stray.gen.ts');
    expect(existsSync(path.join(out, 'stray.gen.ts'))).toBe(false);
    expect(readFileSync(path.join(out, 'zod.gen.ts'), 'utf8')).toBe(committed);
    // Untouched files are the same inodes: not rewritten.
    expect(statSync(path.join(out, 'meta.gen.ts')).ino).toBe(before.get('meta.gen.ts'));
    expect(statSync(path.join(out, 'sdk.gen.ts')).ino).toBe(before.get('sdk.gen.ts'));

    const again = await regenerateProduct(product, out, root);
    expect(again.changed).toEqual([]);
  });
});
