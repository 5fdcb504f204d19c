#!/usr/bin/env node
// paykit-codegen: `gen [product…]` regenerates client code from the specs; `check [product…]`
// fails, listing the stale files, when the committed output differs from a fresh run.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { findStaleFiles } from './check.ts';
import { regenerateProduct } from './generate.ts';
import { PRODUCTS, REPO_ROOT, findProduct } from './products.ts';

const USAGE = `usage: paykit-codegen gen [product…]    regenerate packages/<product>-client/src/generated/
       paykit-codegen check [product…]  exit 1 listing stale files if the committed output is not fresh
options: --root DIR  the repository to read specs from and write or check code in (default: this one)
products: ${PRODUCTS.map((p) => p.id).join(', ')} (default: all)`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { root: { type: 'string' } } });
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }
  const root = path.resolve(parsed.values.root ?? REPO_ROOT);
  const [command, ...ids] = parsed.positionals;
  if (command !== 'gen' && command !== 'check') {
    console.error(command ? `Unknown command "${command}".\n${USAGE}` : USAGE);
    return 2;
  }
  let products;
  try {
    products = ids.length > 0 ? ids.map(findProduct) : PRODUCTS;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 2;
  }

  if (command === 'gen') {
    for (const product of products) {
      const started = performance.now();
      const { files, changed } = await regenerateProduct(product, path.join(root, product.generatedDir), root);
      console.log(
        `${product.id}: ${files.length} files in ${product.generatedDir}, ${changed.length} changed (${Math.round(performance.now() - started)} ms)`,
      );
    }
    return 0;
  }

  const stale = await findStaleFiles(products, root);
  if (stale.length === 0) {
    console.log(`Generated code is fresh for ${products.map((p) => p.id).join(', ')}.`);
    return 0;
  }
  console.error(`Generated code is stale: a fresh \`pnpm gen\` would change ${stale.length} file(s):`);
  for (const { file, problem } of stale) console.error(`  ${problem.padEnd(10)} ${file}`);
  console.error('Run `pnpm gen`, review the diff and commit it. Never edit generated files by hand: edit the spec.');
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
