// `pnpm changeset publish` end to end against a private registry (Verdaccio on a loopback port):
// run on an installed copy of the repository with its built packages, it publishes every package at its
// released version and tags the release in git; the registry then serves the tarballs a user
// installs, and a second publish finds nothing left to publish.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declareSecret } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, WORKSPACE_BIN, childEnv, runOk } from '../src/exec.ts';
import { withBuiltPackages } from '../src/pack.ts';
import { startLocalRegistry, type LocalRegistry } from '../src/registry.ts';
import { copyRepository, publishablePackages } from '../src/workspace.ts';

let work = '';
let copy = '';
let registry: LocalRegistry;
let env: NodeJS.ProcessEnv;
const packages = publishablePackages(REPO_ROOT);

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'paykit-publish-'));
  copy = path.join(work, 'repo');
  registry = await startLocalRegistry(path.join(work, 'registry'));
  declareSecret(registry.token);
  await withBuiltPackages(REPO_ROOT, () => copyRepository(REPO_ROOT, copy, { withDist: true, install: true }));
  // The user's setup (docs/releasing.md, "Releases and publishing"): the registry and its token in .npmrc.
  writeFileSync(path.join(copy, '.npmrc'), registry.npmrc);
  const userconfig = path.join(work, 'user.npmrc');
  writeFileSync(userconfig, registry.npmrc);
  env = childEnv({ npm_config_userconfig: userconfig, npm_config_registry: `${registry.url}/`, CI: 'true' });
}, 300_000);

afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('changeset publish to a private registry', () => {
  it('publishes every package at its released version and tags each release', async () => {
    const published = await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['publish'], {
      cwd: copy,
      env,
      timeoutMs: 300_000,
    });
    const output = published.stdout + published.stderr;
    expect(output).not.toContain(registry.token);
    const tags = (await runOk('git', ['tag', '--list'], { cwd: copy })).stdout.split('\n').filter(Boolean).sort();
    expect(tags).toEqual(packages.map((p) => `${p.name}@${p.manifest.version}`).sort());

    for (const pkg of packages) {
      const view = await runOk('npm', ['view', `${pkg.name}@${pkg.manifest.version}`, '--json'], { cwd: work, env });
      const info = JSON.parse(view.stdout) as {
        version: string;
        license: string;
        'dist-tags': Record<string, string>;
        dependencies?: Record<string, string>;
        exports?: unknown;
      };
      expect(info.version, pkg.name).toBe(pkg.manifest.version);
      expect(info['dist-tags'].latest, pkg.name).toBe(pkg.manifest.version);
      expect(info.license, pkg.name).toBe('MIT');
      expect(JSON.stringify(info.dependencies ?? {}), pkg.name).not.toContain('workspace:');
      expect(JSON.stringify(info.exports), pkg.name).not.toContain('@paykit/source');
    }
  }, 300_000);

  it('serves the tarball a user installs, with the workspace ranges replaced by caret ranges of the versions', async () => {
    const core = packages.find((p) => p.name === '@paykit/core-client');
    const runtime = packages.find((p) => p.name === '@paykit/runtime');
    const into = path.join(work, 'fetched');
    await runOk('npm', ['pack', `@paykit/core-client@${core?.manifest.version}`, '--pack-destination', work], {
      cwd: work,
      env,
    });
    await runOk('mkdir', ['-p', into], { cwd: work });
    await runOk('tar', ['xzf', path.join(work, `paykit-core-client-${core?.manifest.version}.tgz`), '-C', into], {
      cwd: work,
    });
    const manifest = JSON.parse(readFileSync(path.join(into, 'package/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies['@paykit/runtime']).toBe(`^${runtime?.manifest.version}`);
    expect(readFileSync(path.join(into, 'package/CHANGELOG.md'), 'utf8')).toContain(
      '2026-05-07: money_out routes internal transfers automatically',
    );
  });

  it('a second publish finds every version already there and publishes nothing', async () => {
    const again = await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['publish'], {
      cwd: copy,
      env,
      timeoutMs: 120_000,
    });
    expect(again.stdout + again.stderr).toMatch(/No unpublished (projects|packages) to publish|already published/i);
    expect((await runOk('git', ['tag', '--list'], { cwd: copy })).stdout.split('\n').filter(Boolean)).toHaveLength(
      packages.length,
    );
  }, 120_000);
});
