import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root, found from this file so the runner works from any working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** One platform product: its spec, and the client package generated from it. */
export interface Product {
  /** The spec's file name without `.yaml`, also the package's prefix (`core` → `@paykit/core-client`). */
  readonly id: string;
  /** The spec, relative to the repository root. */
  readonly spec: string;
  /** The client package's folder, relative to the repository root. */
  readonly packageDir: string;
  /** Where the generated code goes, relative to the repository root. */
  readonly generatedDir: string;
}

const IDS = ['core', 'direct-debit', 'cash', 'remittance', 'billpay', 'gift-cards', 'lottery'] as const;
export type ProductId = (typeof IDS)[number];

export const PRODUCTS: readonly Product[] = IDS.map((id) => ({
  id,
  spec: `specs/${id}.yaml`,
  packageDir: `packages/${id}-client`,
  generatedDir: `packages/${id}-client/src/generated`,
}));

export function findProduct(id: string): Product {
  const product = PRODUCTS.find((p) => p.id === id);
  if (!product) {
    throw new Error(`Unknown product "${id}". Known products: ${IDS.join(', ')}.`);
  }
  return product;
}
