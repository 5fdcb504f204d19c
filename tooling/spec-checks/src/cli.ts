#!/usr/bin/env node
// The reference-coverage check: every operation, resource, event, enum value and "not shown" of
// the platform reference (reference/inventory.yaml) must be carried by the specs.
// usage: node tooling/spec-checks/src/cli.ts [--specs DIR] [--inventory FILE]
import path from 'node:path';
import { parseArgs } from 'node:util';
import { INVENTORY_PATH, loadInventory } from './inventory.ts';
import { checkSpecs } from './specs.ts';

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

async function main(): Promise<number> {
  let values: { specs?: string; inventory?: string };
  try {
    ({ values } = parseArgs({ options: { specs: { type: 'string' }, inventory: { type: 'string' } } }));
  } catch (error) {
    console.error(
      `${error instanceof Error ? error.message : error}\nusage: spec-coverage [--specs DIR] [--inventory FILE]`,
    );
    return 2;
  }
  const specsDir = path.resolve(values.specs ?? path.join(REPO_ROOT, 'specs'));
  const report = await checkSpecs(specsDir, await loadInventory(values.inventory ?? INVENTORY_PATH));

  for (const [product, { findings }] of Object.entries(report.products)) {
    for (const f of findings) console.error(`${product}: [${f.category}] ${f.where}: ${f.problem}`);
  }
  const parts = Object.entries(report.totals).map(([name, { expected, found }]) => {
    const percent = expected === 0 ? 100 : Math.floor((found / expected) * 1000) / 10;
    return `${name} ${found}/${expected} (${percent}%)`;
  });
  const problems = Object.values(report.products).reduce((n, r) => n + r.findings.length, 0);
  console.log(
    `Reference coverage of ${path.relative(process.cwd(), specsDir) || '.'}: ${parts.join(', ')}; ${problems} problem(s).`,
  );
  if (!report.ok)
    console.error(
      'Each line above is something the reference states that a spec lacks: fix the spec (or, if the reference changed, reference/inventory.yaml).',
    );
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
