// The workspace's boundaries, as dependency-cruiser rules: `pnpm lint` fails on any import that
// crosses one (`pnpm lint:boundaries`). Dependencies point one way, apps → packages → runtime → domain, and
// every package declares what it imports in its own package.json (DESIGN.md, "Layout").
//
// Paths in the rules are relative to the workspace root, and every import is resolved to the file
// it lands on: a workspace package to its TypeScript source (the `@paykit/source` export
// condition), so `@paykit/webhook-gateway` and, from another app's src/,
// `../../webhook-gateway/src/index.ts` (docs-check: not-a-path) both land in `apps/webhook-gateway/`,
// and one rule catches both. Type-only imports count like any other,
// except where a rule says why not (no-circular, not-to-dev-dep).
//
// tooling/boundaries/test proves that each rule fails the import it names (fixture tree in
// tooling/boundaries/fixtures) and that this tree has none.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The workspace folders, as in pnpm-workspace.yaml, and the one package at the root's level
// (examples/: scripts written as a product team writes them).
const WORKSPACE_FOLDERS = ['packages', 'apps', 'tooling'];
const ROOT_PACKAGES = ['examples'];
const ANY_WORKSPACE_PACKAGE = '^((packages|apps|tooling)/[^/]+|examples)/';
const DECLARATION_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

// A product client's generated code and the two entry points that only re-export it
// (`@paykit/<product>-client/zod` and `/paths`): types and schemas generated from the spec.
const CLIENT_GENERATED_ENTRY = '^packages/[^/]+-client/src/(generated/|zod\\.ts$|paths\\.ts$)';

/** Every workspace package under `root`: its folder (relative, posix) and its package.json. */
function workspacePackages(root) {
  const atRoot = ROOT_PACKAGES.filter((dir) => fs.existsSync(path.join(root, dir, 'package.json'))).map((dir) => ({
    dir,
    manifest: JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')),
  }));
  return atRoot.concat(
    WORKSPACE_FOLDERS.flatMap((folder) => {
      const at = path.join(root, folder);
      if (!fs.existsSync(at)) return [];
      return fs
        .readdirSync(at, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(at, entry.name, 'package.json')))
        .map((entry) => ({
          dir: `${folder}/${entry.name}`,
          manifest: JSON.parse(fs.readFileSync(path.join(at, entry.name, 'package.json'), 'utf8')),
        }));
    }),
  );
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folders = (dirs) => `^(${dirs.map(escape).join('|')})/`;

/**
 * The rules on workspace packages that read package.json files: dependency-cruiser tells an npm
 * package's declaration from the closest package.json by itself (`no-non-package-json`,
 * `not-to-dev-dep` below), but a workspace package resolves to its own folder, outside
 * node_modules, so these rules list, for each package, the folders of the workspace packages it
 * declares.
 */
function workspaceDeclarationRules(root) {
  const packages = workspacePackages(root);
  const folderOf = new Map(packages.map(({ dir, manifest }) => [manifest.name, dir]));
  const declared = (manifest, fields) =>
    fields
      .flatMap((field) => Object.keys(manifest[field] ?? {}))
      .filter((name) => folderOf.has(name))
      .map((name) => folderOf.get(name));

  return packages.flatMap(({ dir, manifest }) => {
    const devOnly = declared(manifest, ['devDependencies']).filter(
      (d) => !declared(manifest, ['dependencies', 'peerDependencies', 'optionalDependencies']).includes(d),
    );
    const rules = [
      {
        name: 'no-undeclared-workspace-dep',
        comment:
          `${manifest.name} imports a workspace package that its own package.json does not declare. pnpm links ` +
          "only declared packages into a package's node_modules; an undeclared one resolves only through the " +
          "root's node_modules or a relative path, and turbo does not count it in the package's hash. " +
          'Declare it (workspace:*) or do not import it.',
        severity: 'error',
        from: { path: `^${escape(dir)}/` },
        to: { path: ANY_WORKSPACE_PACKAGE, pathNot: folders([dir, ...declared(manifest, DECLARATION_FIELDS)]) },
      },
    ];
    if (devOnly.length > 0) {
      rules.push({
        name: 'not-to-dev-dep',
        comment:
          `${manifest.name}'s production code (src/) imports a workspace package it declares only as a ` +
          'devDependency: it is not installed where the package runs. Move it to dependencies.',
        severity: 'error',
        from: { path: `^${escape(dir)}/src/` },
        to: { path: folders(devOnly) },
      });
    }
    return rules;
  });
}

/**
 * The files @paykit/runtime's package.json exports (each entry's `@paykit/source` condition, or
 * its one path), relative to `root`: the only runtime files a file outside the runtime may land on.
 */
function runtimeEntries(root) {
  const manifest = path.join(root, 'packages/runtime/package.json');
  if (!fs.existsSync(manifest)) return [];
  const { exports = {} } = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  return Object.values(exports)
    .map((entry) => (typeof entry === 'string' ? entry : (entry['@paykit/source'] ?? entry.default)))
    .filter((file) => typeof file === 'string')
    .map((file) => path.posix.join('packages/runtime', file));
}

/** The rule set for the workspace at `root`. */
function boundaries(root) {
  return {
    forbidden: [
      {
        name: 'no-app-imports-app',
        comment:
          'An app never imports another app, by package name or by a relative path into its folder: apps ' +
          'talk over HTTP and the database, and what two apps share lives in a package (contracts, store).',
        severity: 'error',
        from: { path: '^apps/([^/]+)/' },
        to: { path: '^apps/', pathNot: '^apps/$1/' },
      },
      {
        name: 'no-relative-import-into-another-package',
        comment:
          "A relative path into another package's folder skips its package.json: its exports (what it " +
          "offers), its declared dependencies and its place in turbo's graph. Import it by name, from an " +
          'entry point it exports (apps are covered by no-app-imports-app).',
        severity: 'error',
        from: { path: '^(packages|apps|tooling)/([^/]+)/' },
        to: { dependencyTypes: ['local'], path: '^(packages|tooling)/', pathNot: '^$1/$2/' },
      },
      {
        name: 'generated-imports-no-hand-written',
        comment:
          "A client's generated code (src/generated/) imports only generated code and the shared runtime: " +
          'regenerating it from the spec must never depend on, or break, the hand-written layer.',
        severity: 'error',
        from: { path: '^packages/([^/]+)/src/generated/' },
        to: { path: ANY_WORKSPACE_PACKAGE, pathNot: '^packages/($1/src/generated/|runtime/src/)' },
      },
      {
        name: 'runtime-imports-no-product',
        comment:
          '@paykit/runtime is what every client shares; it sits at the bottom and imports no product ' +
          'client, app, store or ledger.',
        severity: 'error',
        from: { path: '^packages/runtime/' },
        to: { path: '^(apps/|packages/[^/]+-client/|packages/(store|ledger)/)' },
      },
      {
        name: 'runtime-entry-exports-only-core',
        comment:
          "@paykit/runtime's public surface is src/core/; src/internal/ is what only the runtime uses. The " +
          "files at src/'s root (index.ts, the package's entry) import from no folder of src/ but core/, so " +
          'nothing internal becomes public by being re-exported (core/ may use internal/).',
        severity: 'error',
        from: { path: '^packages/runtime/src/[^/]+$' },
        to: { path: '^packages/runtime/src/[^/]+/', pathNot: '^packages/runtime/src/core/' },
      },
      {
        name: 'runtime-entered-by-its-entries',
        comment:
          'A file outside @paykit/runtime imports it only through an entry its package.json exports ' +
          '(`@paykit/runtime`, `@paykit/runtime/errors`), by name: any other runtime file, core/ or internal/, ' +
          'may move or change without a release saying so.',
        severity: 'error',
        from: { pathNot: '^packages/runtime/' },
        to: { path: '^packages/runtime/', pathNot: `^(${runtimeEntries(root).map(escape).join('|')})$` },
      },
      {
        name: 'domain-imports-no-http-or-paykit',
        comment:
          "@paykit/domain holds the platform's rules (money, time, CLABE, RFC, cards) as pure functions with " +
          'no I/O, and sits below everything: it imports no HTTP code (undici, node:http, node:https, ' +
          'node:net) and no other paykit package, so the runtime, the ledger, the apps and the clients ' +
          'can all use it.',
        severity: 'error',
        from: { path: '^packages/domain/(src|test)/' },
        to: {
          // Any workspace package; undici wherever pnpm stores it; Node's network modules.
          path: [
            '^((packages|apps|tooling)/|examples/)',
            '/node_modules/undici/',
            '^(node:)?(http|https|http2|net|tls)$',
          ],
          pathNot: '^packages/domain/',
        },
      },
      {
        name: 'client-imports-no-store-ledger-app',
        comment:
          'A product client is published on its own and talks to the platform only: it imports no store, ' +
          'ledger or app (another client or the runtime is fine).',
        severity: 'error',
        from: { path: '^packages/[^/]+-client/' },
        to: { path: '^(apps/|packages/(store|ledger)/)' },
      },
      {
        name: 'sandbox-imports-no-store-ledger',
        comment:
          'The sandbox simulates the platform: it keeps its own state and has no database of ours, so it ' +
          'imports no store or ledger. A file format both sides share belongs in @paykit/contracts.',
        severity: 'error',
        from: { path: '^apps/sandbox/' },
        to: { path: '^packages/(store|ledger)/' },
      },
      {
        name: 'sandbox-imports-only-generated-client-code',
        comment:
          "The sandbox is typed from the same specs as the clients: it may use a client's generated types " +
          'and schemas (@paykit/<product>-client/zod, /paths) but not its hand-written layer, or a client ' +
          'bug would be simulated instead of caught.',
        severity: 'error',
        from: { path: '^apps/sandbox/' },
        to: { path: '^packages/[^/]+-client/', pathNot: CLIENT_GENERATED_ENTRY },
      },
      {
        name: 'store-imports-no-ledger-client-app',
        comment:
          '@paykit/store is database plumbing (connections, migrations, the event store); the ledger sits on ' +
          'top of it, so the store imports no ledger, product client or app.',
        severity: 'error',
        from: { path: '^packages/store/' },
        to: { path: '^(apps/|packages/ledger/|packages/[^/]+-client/)' },
      },
      {
        name: 'ledger-imports-no-client-layer',
        comment:
          "@paykit/ledger is the reconciliation domain on top of the store: it may use a client's generated " +
          'types and schemas, never its hand-written layer (apps are covered by package-imports-no-app).',
        severity: 'error',
        from: { path: '^packages/ledger/' },
        to: { path: '^packages/[^/]+-client/', pathNot: CLIENT_GENERATED_ENTRY },
      },
      {
        name: 'examples-import-what-a-product-team-can',
        comment:
          "examples/ is a product team's code: its scripts import the published packages only (no app, no " +
          'tooling), and its tests start the apps as processes (@paykit/testing), never import them.',
        severity: 'error',
        from: { path: '^examples/' },
        to: { path: '^apps/' },
      },
      {
        name: 'package-imports-no-app',
        comment:
          'Dependencies point one way, apps → packages → runtime: no package imports an app, and neither ' +
          'does tooling/ (the test kit starts an app as a process, with @paykit/service/process).',
        severity: 'error',
        from: { path: '^(packages|tooling)/' },
        to: { path: '^apps/' },
      },
      {
        name: 'src-imports-no-tooling',
        comment:
          'tooling/ holds what builds and tests the workspace (test kit, bench kit, codegen, lint config); ' +
          "it never ships, so no package's or app's src/ imports it (their tests may).",
        severity: 'error',
        from: { path: '^((packages|apps)/[^/]+|examples)/src/' },
        to: { path: '^tooling/' },
      },
      {
        name: 'not-to-unresolvable',
        comment: 'An import that resolves to no file: a missing dependency, a typo, or a file that moved.',
        severity: 'error',
        from: {},
        to: { couldNotResolve: true },
      },
      {
        name: 'no-non-package-json',
        comment:
          "An npm package imported without being declared in the importing package's own package.json: it " +
          'resolves only because another package (often the root) installs it, with a version nobody chose here.',
        severity: 'error',
        from: {},
        to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
      },
      {
        name: 'not-to-dev-dep',
        comment:
          'Production code (src/) imports an npm package its package.json declares only as a devDependency: ' +
          'it is not installed where the package runs. Move it to dependencies, or to peerDependencies when ' +
          "the consumer brings it (@paykit/testing runs inside the consumer's vitest). Type-only imports are " +
          'erased when the code runs.',
        severity: 'error',
        from: { path: '^((packages|apps|tooling)/[^/]+|examples)/src/' },
        to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only', 'npm', 'npm-peer', 'npm-optional'] },
      },
      ...workspaceDeclarationRules(root),
      {
        name: 'no-circular',
        comment:
          'Modules that import each other at run time, directly or in a ring, cannot be loaded, tested or ' +
          'moved one at a time (and one of them sees the other half-initialised): move what both need into ' +
          'a third module. A ring closed only by a type-only import is erased when the code runs.',
        severity: 'error',
        from: {},
        to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
      },
    ],
    options: {
      // The rules apply to the workspace's own code; npm packages are not followed. Left out: build
      // output, the boundary tests' fixture tree (it breaks every rule on purpose), the codemod's
      // input fixtures, and the release test's consumer project (type-checked in a fresh project
      // outside the workspace against the packed packages, with a package.json of its own).
      doNotFollow: { path: 'node_modules' },
      exclude: {
        path: '^(packages|apps|tooling)/[^/]+/dist/|^tooling/boundaries/fixtures/|^packages/codemods/test/fixtures/|^tooling/release/test/consumer/',
      },
      // Type-only imports cross boundaries too.
      tsPreCompilationDeps: true,
      // An npm package is looked up in the closest package.json only, never the root's.
      combinedDependencies: false,
      enhancedResolveOptions: {
        // Workspace packages resolve to their sources, as in tests and `node --conditions=@paykit/source`.
        conditionNames: ['@paykit/source', 'import', 'types', 'node', 'default'],
        exportsFields: ['exports'],
        mainFields: ['module', 'main', 'types', 'typings'],
        extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      },
      reporterOptions: { text: { highlightFocused: true } },
    },
  };
}

module.exports = boundaries(__dirname);
// For tooling/boundaries' tests: the same rules over a fixture workspace (not enumerable, so it is
// not part of the configuration dependency-cruiser reads).
Object.defineProperty(module.exports, 'boundaries', { value: boundaries, enumerable: false });
