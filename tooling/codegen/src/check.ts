import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateProduct, listFiles } from './generate.ts';
import { REPO_ROOT, type Product } from './products.ts';

export interface StaleFile {
  /** Relative to the repository root. */
  file: string;
  problem: 'differs' | 'missing' | 'unexpected';
}

/**
 * Regenerates each product into a temporary folder and compares it, byte for byte, with the
 * committed output of `root` (the repository, or a copy of it). Returns every file that a fresh
 * `pnpm gen` would change.
 */
export async function findStaleFiles(products: readonly Product[], root = REPO_ROOT): Promise<StaleFile[]> {
  const stale: StaleFile[] = [];
  const scratch = await mkdtemp(path.join(tmpdir(), 'paykit-gen-check-'));
  try {
    for (const product of products) {
      const freshDir = path.join(scratch, product.id);
      const committedDir = path.join(root, product.generatedDir);
      const fresh = await generateProduct(product, freshDir, root);
      const committed = await listFiles(committedDir).catch(() => [] as string[]);
      const at = (file: string) => `${product.generatedDir}/${file}`;
      for (const file of fresh) {
        if (!committed.includes(file)) {
          stale.push({ file: at(file), problem: 'missing' });
          continue;
        }
        const [a, b] = await Promise.all([
          readFile(path.join(freshDir, file)),
          readFile(path.join(committedDir, file)),
        ]);
        if (!a.equals(b)) stale.push({ file: at(file), problem: 'differs' });
      }
      for (const file of committed) {
        if (!fresh.includes(file)) stale.push({ file: at(file), problem: 'unexpected' });
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return stale;
}
