// The released history and `changeset version`: the CHANGELOGs carry the platform's dated
// changes oldest last, every surface words the internal_transaction deprecation alike, and a new
// dated changeset versioned on a copy of the repository produces the entry, the bumps of its
// dependents, and leaves the history below it intact.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_TRANSACTION_DEPRECATION } from '@paykit/codemods';
import { REPO_ROOT, WORKSPACE_BIN, childEnv, runOk } from '../src/exec.ts';
import { readPendingChangesets } from '../src/pending-changesets.ts';
import { copyRepository, publishablePackages, readManifest } from '../src/workspace.ts';

const read = (file: string) => readFileSync(path.join(REPO_ROOT, file), 'utf8');

/** A CHANGELOG's version headings, newest first. */
function versions(changelog: string): string[] {
  return [...changelog.matchAll(/^## (\d+\.\d+\.\d+)$/gm)].map((m) => m[1] ?? '');
}

function section(changelog: string, version: string): string {
  const start = changelog.indexOf(`## ${version}\n`);
  const next = changelog.indexOf('\n## ', start + 1);
  return changelog.slice(start, next === -1 ? undefined : next);
}

describe('the released history', () => {
  it('every published package has a CHANGELOG whose newest entry is its version', () => {
    for (const pkg of publishablePackages(REPO_ROOT)) {
      if (pkg.manifest.version === '0.0.0') {
        // A new package, never released: its first `changeset version` writes 0.1.0 and the CHANGELOG.
        expect(existsSync(path.join(REPO_ROOT, pkg.dir, 'CHANGELOG.md')), pkg.name).toBe(false);
        expect(
          readPendingChangesets(REPO_ROOT).some((changeset) => changeset.releases[pkg.name] === 'minor'),
          `${pkg.name} has a pending minor changeset`,
        ).toBe(true);
        continue;
      }
      const changelog = read(`${pkg.dir}/CHANGELOG.md`);
      expect(changelog.startsWith(`# ${pkg.name}\n`), pkg.name).toBe(true);
      expect(versions(changelog)[0], pkg.name).toBe(pkg.manifest.version);
      expect(versions(changelog).at(-1), pkg.name).toBe('0.1.0');
    }
  });

  it('the core client went base API (0.1.0) → 2026-03-13 (0.2.0, minor) → 2026-05-07 (0.3.0, minor with the deprecation) → 1.0.0 (major)', () => {
    const changelog = read('packages/core-client/CHANGELOG.md');
    expect(versions(changelog)).toEqual(['1.0.0', '0.3.0', '0.2.0', '0.1.0']);
    expect(section(changelog, '0.1.0')).toMatch(/### Minor Changes\n\n- Base API/);
    expect(section(changelog, '0.2.0')).toMatch(
      /### Minor Changes\n\n- 2026-03-13: private account cancel, block and activate/,
    );
    const latest = section(changelog, '0.3.0');
    expect(latest).toMatch(/### Minor Changes\n\n- 2026-05-07: money_out routes internal transfers automatically/);
    expect(latest).toContain('INT_DEBIT');
    expect(latest).toContain('SPEI_DEBIT');
    expect(latest).toContain('The `INT_CREDIT` MONEY_IN event may now come from either endpoint');
    // 1.0.0: breaking changes first, each with its migration, and the API difference folded.
    const major = section(changelog, '1.0.0');
    expect(major).toMatch(/^## 1\.0\.0\n\n### Major Changes\n\n- /);
    expect(major).toContain('Migration: run `pnpm paykit migrate money-out [paths…] --write`');
    expect(major).toMatch(/<details><summary>API changes in specs\/core\.yaml \(major\): \d+ breaking, /);
    expect(major).not.toMatch(/^- [0-9a-f]{7}: /m);
  });

  it('each client exports the API revision of its spec', () => {
    for (const pkg of publishablePackages(REPO_ROOT).filter((p) => p.spec)) {
      const revision = (parse(read(pkg.spec ?? '')) as { info: { version: string } }).info.version;
      expect(read(`${pkg.dir}/src/generated/meta.gen.ts`), pkg.name).toContain(
        `export const API_VERSION = "${revision}";`,
      );
      expect(read(`${pkg.dir}/src/index.ts`), pkg.name).toMatch(/export \{ API_VERSION/);
    }
  });

  it('published packages depend on ranges, never exact pins, so a consumer shares its own zod', () => {
    for (const pkg of publishablePackages(REPO_ROOT)) {
      for (const [name, range] of Object.entries(pkg.manifest.dependencies ?? {})) {
        expect(range, `${pkg.name} → ${name}`).toMatch(name.startsWith('@paykit/') ? /^workspace:\^$/ : /^\^/);
      }
    }
  });

  it('apps are private and take the packages through the workspace protocol', () => {
    for (const app of ['apps/sandbox', 'apps/webhook-gateway']) {
      const manifest = readManifest(path.join(REPO_ROOT, app, 'package.json'));
      expect(manifest.private, app).toBe(true);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (name.startsWith('@paykit/')) expect(range, `${app} → ${name}`).toBe('workspace:*');
      }
    }
  });
});

describe('the internal_transaction deprecation', () => {
  it('says the same, with the date, in the runtime warning, the changelogs and the codemod', () => {
    expect(INTERNAL_TRANSACTION_DEPRECATION).toContain('2026-05-07');
    // The warning's text as its first argument, wherever the formatter breaks the line.
    expect(read('packages/core-client/src/transactions.ts').replace(/\(\s+'/g, "('")).toContain(
      `process.emitWarning('${INTERNAL_TRANSACTION_DEPRECATION}'`,
    );
    expect(section(read('packages/core-client/CHANGELOG.md'), '0.3.0')).toContain(
      `Deprecated: ${INTERNAL_TRANSACTION_DEPRECATION}`,
    );
    expect(read('packages/codemods/CHANGELOG.md')).toContain(INTERNAL_TRANSACTION_DEPRECATION);
  });

  it('the generated JSDoc marks it deprecated with the same date and the same migration', () => {
    const sdk = read('packages/core-client/src/generated/sdk.gen.ts');
    const doc = sdk.slice(
      sdk.lastIndexOf('/**', sdk.indexOf('export const createInternalTransaction')),
      sdk.indexOf('export const createInternalTransaction'),
    );
    expect(doc).toContain('@deprecated');
    expect(doc).toContain('Deprecated since 2026-05-07');
    expect(doc).toMatch(/money_out[\s\S]*same[\s*]+body/);
  });
});

describe('changeset version on a copy of the repository', () => {
  let copy = '';
  beforeAll(async () => {
    copy = mkdtempSync(path.join(tmpdir(), 'paykit-version-'));
    await copyRepository(REPO_ROOT, copy);
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('once committed, the release check and changeset status pass on main', async () => {
    const env = childEnv({ CI: 'true' });
    const check = await runOk(
      process.execPath,
      [path.join(REPO_ROOT, 'tooling/release/src/cli.ts'), 'check', '--root', copy],
      { cwd: copy, env },
    );
    expect(check.stdout).toMatch(
      /release check: every change to a published package has a changeset \(checked in \d+ ms\)\./,
    );
    await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['status'], { cwd: copy, env });
  });

  it('writes the dated entry on top of the history and bumps the dependents privately', async () => {
    const before = readManifest(path.join(copy, 'packages/core-client/package.json')).version;
    const [major, minor, patch] = before.split('.').map(Number);
    const next = `${major}.${minor}.${(patch ?? 0) + 1}`;
    const oldChangelog = readFileSync(path.join(copy, 'packages/core-client/CHANGELOG.md'), 'utf8');
    const lotteryBefore = readFileSync(path.join(copy, 'packages/lottery-client/package.json'), 'utf8');
    const sandboxBefore = readManifest(path.join(copy, 'apps/sandbox/package.json')).version;
    // Only this change is versioned: changesets already pending in the repository are set aside.
    for (const file of readdirSync(path.join(copy, '.changeset'))) {
      if (file.endsWith('.md') && file !== 'README.md') rmSync(path.join(copy, '.changeset', file));
    }
    writeFileSync(
      path.join(copy, '.changeset/dated-test-change.md'),
      '---\n"@paykit/core-client": patch\n---\n\n2099-01-01: a clarified description of money_out (test change).\n',
    );
    const env = childEnv({ CI: 'true' });
    const status = await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['status', '--verbose'], { cwd: copy, env });
    expect(status.stdout + status.stderr).toContain('@paykit/core-client');

    await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['version'], { cwd: copy, env });
    expect(existsSync(path.join(copy, '.changeset/dated-test-change.md'))).toBe(false);
    expect(readManifest(path.join(copy, 'packages/core-client/package.json')).version).toBe(next);
    const changelog = readFileSync(path.join(copy, 'packages/core-client/CHANGELOG.md'), 'utf8');
    expect(changelog).toBe(
      `# @paykit/core-client\n\n## ${next}\n\n### Patch Changes\n\n- 2099-01-01: a clarified description of money_out (test change).\n\n${oldChangelog.slice('# @paykit/core-client\n\n'.length)}`,
    );
    // Dependents that are private apps get a patch and an "Updated dependencies" entry.
    const sandbox = readManifest(path.join(copy, 'apps/sandbox/package.json'));
    expect(sandbox.version).not.toBe(sandboxBefore);
    expect(sandbox.dependencies?.['@paykit/core-client']).toBe('workspace:*');
    expect(readFileSync(path.join(copy, 'apps/sandbox/CHANGELOG.md'), 'utf8')).toContain(
      `- Updated dependencies\n  - @paykit/core-client@${next}`,
    );
    // A package the change does not reach is left alone.
    expect(readFileSync(path.join(copy, 'packages/lottery-client/package.json'), 'utf8')).toBe(lotteryBefore);
  });
});
