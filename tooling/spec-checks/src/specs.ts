import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { type CoverageReport, type Tally, checkCoverage } from './check.ts';
import type { Inventory } from './inventory.ts';
import type { JsonObject } from './openapi.ts';

export interface SpecsReport {
  products: Record<string, CoverageReport>;
  totals: CoverageReport['tally'];
  ok: boolean;
}

/** Checks `<specsDir>/<product>.yaml` for every product of the inventory. */
export async function checkSpecs(specsDir: string, inventory: Inventory): Promise<SpecsReport> {
  const products: Record<string, CoverageReport> = {};
  const totals: CoverageReport['tally'] = {
    operations: { expected: 0, found: 0 },
    resources: { expected: 0, found: 0 },
    events: { expected: 0, found: 0 },
    'enum values': { expected: 0, found: 0 },
  };
  for (const [product, productInventory] of Object.entries(inventory.products)) {
    const file = path.join(specsDir, `${product}.yaml`);
    let doc: JsonObject;
    try {
      doc = parse(await readFile(file, 'utf8')) as JsonObject;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      products[product] = {
        findings: [{ category: 'operations', where: file, problem: `cannot read the spec: ${reason}` }],
        tally: emptyTally(productInventory.operations.length),
      };
      continue;
    }
    products[product] = checkCoverage(doc, productInventory);
  }
  for (const report of Object.values(products)) {
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) {
      totals[key].expected += report.tally[key].expected;
      totals[key].found += report.tally[key].found;
    }
  }
  const ok = Object.values(products).every((r) => r.findings.length === 0);
  return { products, totals, ok };
}

function emptyTally(operations: number): CoverageReport['tally'] {
  const zero = (expected: number): Tally => ({ expected, found: 0 });
  return { operations: zero(operations), resources: zero(0), events: zero(0), 'enum values': zero(0) };
}
