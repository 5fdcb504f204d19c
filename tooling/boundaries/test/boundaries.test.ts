// The workspace's boundary rules (.dependency-cruiser.cjs at the root) run through
// dependency-cruiser's own API: over a fixture workspace where each rule has a file that breaks it
// and a file that it allows, and over this workspace, which must break none.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const FIXTURES = path.resolve(import.meta.dirname, '../fixtures');
const WORKSPACE_FOLDERS = ['apps', 'packages', 'tooling'];
/** Workspace packages at the root's level, beside the folders of packages. */
const ROOT_PACKAGES = ['examples'];

type RulesFile = IConfiguration & { boundaries: (root: string) => IConfiguration };
const rulesFile = createRequire(import.meta.url)(path.join(ROOT, '.dependency-cruiser.cjs')) as RulesFile;

/** Runs the rules as `pnpm lint:boundaries` does, over the workspace at `root`. */
async function violations(root: string, config: IConfiguration) {
  const { output } = await cruise([...WORKSPACE_FOLDERS, ...ROOT_PACKAGES], {
    ...config.options,
    baseDir: root,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  });
  return (output as ICruiseResult).summary.violations;
}

type Manifest = { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const readManifest = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

/**
 * Lays the fixture out as pnpm would: each package's node_modules links what its package.json
 * declares, and the root's links everything (the root declares every package), so an undeclared
 * import still resolves, through the root, as it would in the workspace.
 */
function installFixture(): string {
  const root = mkdtempSync(path.join(tmpdir(), 'paykit-boundaries-'));
  cpSync(FIXTURES, root, { recursive: true });
  const where = new Map<string, string>();
  const packages: string[] = [];
  for (const folder of WORKSPACE_FOLDERS) {
    for (const name of readdirSync(path.join(root, folder))) {
      const dir = path.join(root, folder, name);
      where.set(readManifest(dir).name, dir);
      packages.push(dir);
    }
  }
  for (const name of ROOT_PACKAGES) {
    const dir = path.join(root, name);
    where.set(readManifest(dir).name, dir);
    packages.push(dir);
  }
  // npm packages live in pnpm's store folder, node_modules/.pnpm, and are linked from there.
  for (const name of readdirSync(path.join(FIXTURES, 'npm'))) {
    const dir = path.join(root, 'node_modules/.pnpm', `${name}@1.0.0`, 'node_modules', name);
    cpSync(path.join(FIXTURES, 'npm', name), dir, { recursive: true });
    where.set(name, dir);
  }
  rmSync(path.join(root, 'npm'), { recursive: true });
  for (const dir of [root, ...packages]) {
    const manifest = readManifest(dir);
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })) {
      const link = path.join(dir, 'node_modules', name);
      mkdirSync(path.dirname(link), { recursive: true });
      symlinkSync(where.get(name)!, link, 'dir');
    }
  }
  return root;
}

// Each file of the fixture that breaks a rule, and the one rule it breaks. Every other file of the
// fixture breaks none: it is the import each rule allows next to the one it refuses.
const BROKEN: Record<string, string[]> = {
  'apps/sandbox/src/imports-app-by-name.ts': ['no-app-imports-app'],
  'apps/sandbox/src/imports-app-by-path.ts': ['no-app-imports-app'],
  'packages/core-client/test/reaches-into-runtime.ts': ['no-relative-import-into-another-package'],
  'packages/core-client/src/generated/imports-hand-written.gen.ts': ['generated-imports-no-hand-written'],
  'packages/runtime/src/imports-client.ts': ['runtime-imports-no-product'],
  'packages/runtime/src/exports-internal.ts': ['runtime-entry-exports-only-core'],
  'examples/src/imports-runtime-internal.ts': ['runtime-entered-by-its-entries'],
  'packages/domain/src/imports-runtime.ts': ['domain-imports-no-http-or-paykit'],
  'packages/domain/src/imports-http.ts': ['domain-imports-no-http-or-paykit'],
  'packages/core-client/src/imports-store.ts': ['client-imports-no-store-ledger-app'],
  'apps/sandbox/src/imports-store.ts': ['sandbox-imports-no-store-ledger'],
  'apps/sandbox/test/imports-ledger.ts': ['sandbox-imports-no-store-ledger'],
  'apps/sandbox/src/imports-client-layer.ts': ['sandbox-imports-only-generated-client-code'],
  'packages/store/src/imports-ledger.ts': ['store-imports-no-ledger-client-app'],
  'packages/ledger/src/imports-client-layer.ts': ['ledger-imports-no-client-layer'],
  'packages/contracts/src/imports-app.ts': ['package-imports-no-app'],
  'tooling/testing/src/imports-app.ts': ['package-imports-no-app'],
  'apps/webhook-gateway/src/imports-tooling.ts': ['src-imports-no-tooling'],
  'packages/runtime/src/uses-missing-file.ts': ['not-to-unresolvable'],
  'packages/runtime/src/uses-undeclared-lib.ts': ['no-non-package-json'],
  'packages/runtime/src/uses-dev-lib.ts': ['not-to-dev-dep'],
  'apps/webhook-gateway/src/imports-dev-dependency.ts': ['not-to-dev-dep'],
  'packages/contracts/src/imports-undeclared.ts': ['no-undeclared-workspace-dep'],
  // A ring is reported once, at the module the cruise reaches first.
  'packages/runtime/src/cycle-a.ts': ['no-circular'],
  'examples/src/imports-app.ts': ['examples-import-what-a-product-team-can'],
  'examples/src/imports-tooling.ts': ['not-to-dev-dep', 'src-imports-no-tooling'],
};

describe('the boundary rules over a fixture workspace', () => {
  let root = '';
  let found: Record<string, string[]> = {};

  beforeAll(async () => {
    root = installFixture();
    found = {};
    for (const violation of await violations(root, rulesFile.boundaries(root))) {
      (found[violation.from] ??= []).push(violation.rule.name);
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it.each(Object.entries(BROKEN))('%s breaks exactly %j', (file, rules) => {
    expect(found[file]?.sort()).toEqual(rules);
  });

  it('every rule is broken by some fixture file', () => {
    const broken = new Set(Object.values(BROKEN).flat());
    expect(
      rulesFile.forbidden?.map((rule) => rule.name ?? '(a rule with no name)').filter((name) => !broken.has(name)),
    ).toEqual([]);
  });

  it('the imports each rule allows break none', () => {
    expect(Object.keys(found).filter((file) => !(file in BROKEN))).toEqual([]);
  });
});

describe('this workspace', () => {
  it('breaks no boundary rule', async () => {
    const found = await violations(ROOT, rulesFile);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 120_000);
});
