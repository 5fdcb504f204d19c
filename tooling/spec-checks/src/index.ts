export { checkCoverage, type CoverageReport, type Finding, type Tally } from './check.ts';
export { loadInventory, INVENTORY_PATH, type Inventory, type ProductInventory } from './inventory.ts';
export { checkSpecs, type SpecsReport } from './specs.ts';
