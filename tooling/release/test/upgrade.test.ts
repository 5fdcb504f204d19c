// A product team's upgrade, walked as the team would: the core client's newest release of the line
// before the current one (0.3.0, whose money_out body was flat) and the codemods of the same commit,
// built from the commit that released them with the packages they depend on, and the current
// release are published to a private registry (Verdaccio on a loopback port). A project written
// against the earlier release installs it from there and type-checks. It then moves to the current
// release: `npm install …@latest`, which no longer type-checks; the command the CHANGELOG's "Major
// Changes" gives (`paykit-codemod money-out … --write`); a clean type-check; and its money moving
// on both routes against a sandbox.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { declareSecret } from '@paykit/testing/secret-audit';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, childEnv, run, runOk } from '../src/exec.ts';
import { consumerTsc, npmInstall, scopedNpmrc, writeConsumerProject } from '../src/consumer.ts';
import { packPublishable, withBuiltPackages, type PackedPackage } from '../src/pack.ts';
import { startLocalRegistry, type LocalRegistry } from '../src/registry.ts';
import { fileAt } from '../src/changes.ts';
import { previousLineRelease, type Release } from '../src/release-history.ts';
import { coreSandboxEnv } from './core-sandbox.ts';
import { copyRepositoryAt, publishablePackages, withDependencies } from '../src/workspace.ts';

const CONSUMER_FILES = path.join(import.meta.dirname, 'consumer/upgrade');
/** What the product team installs; the packages these depend on are published with them. */
const INSTALLED = ['@paykit/core-client', '@paykit/codemods'];
const packages = publishablePackages(REPO_ROOT);
const current = (name: string) => packages.find((p) => p.name === name)?.manifest.version ?? '';

let work = '';
let consumer = '';
let registry: LocalRegistry;
let npmEnv: NodeJS.ProcessEnv;
const previous = new Map<string, Release>();

/** Publishes tarballs to the local registry as a release does (`npm publish`, the registry's token). */
async function publish(tarballs: readonly PackedPackage[]): Promise<void> {
  for (const p of tarballs) await runOk('npm', ['publish', p.tarball, '--tag', 'latest'], { cwd: work, env: npmEnv });
}

const tsc = () => consumerTsc(consumer);
const installed = (name: string) =>
  (JSON.parse(readFileSync(path.join(consumer, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'paykit-upgrade-'));
  // The core client's newest release of the line before the current one (the team's code below is
  // written for it), and the codemods that the same commit released.
  const core = packages.find((p) => p.name === '@paykit/core-client');
  const release = core && (await previousLineRelease(REPO_ROOT, core));
  if (!release)
    throw new Error(`@paykit/core-client has no release before the ${current('@paykit/core-client')} line.`);
  const commit = release.commit;
  for (const pkg of packages.filter((p) => INSTALLED.includes(p.name))) {
    const manifest = await fileAt(REPO_ROOT, commit, `${pkg.dir}/package.json`);
    if (manifest === undefined) throw new Error(`${pkg.name} did not exist at ${commit}.`);
    previous.set(pkg.name, { version: (JSON.parse(manifest) as { version: string }).version, commit });
  }

  registry = await startLocalRegistry(path.join(work, 'registry'));
  declareSecret(registry.token);
  // Publishing goes to the private registry with its token; the team's project reads @paykit/* from it.
  writeFileSync(path.join(work, 'user.npmrc'), scopedNpmrc(registry));
  npmEnv = childEnv({ npm_config_userconfig: path.join(work, 'user.npmrc'), npm_config_workspaces: 'false' });

  // The previous release, built from the commit that released it. The release tooling of that
  // commit is left out: it is not released, and its dependencies need not resolve today.
  const before = path.join(work, 'previous');
  await copyRepositoryAt(REPO_ROOT, commit, before, ['tooling/release']);
  const beforeNames = withDependencies(before, INSTALLED);
  await runOk(
    path.join(before, 'node_modules/.bin/turbo'),
    ['run', 'build', ...[...beforeNames].map((name) => `--filter=${name}`), '--output-logs=errors-only'],
    { cwd: before, env: childEnv({ CI: 'true' }), timeoutMs: 600_000 },
  );
  await publish(await packPublishable(before, path.join(work, 'previous-tarballs'), beforeNames));
  // Then the current one, as `pnpm release` builds it.
  const now = await withBuiltPackages(REPO_ROOT, () =>
    packPublishable(REPO_ROOT, path.join(work, 'current-tarballs'), withDependencies(REPO_ROOT, INSTALLED)),
  );
  await publish(now);

  consumer = path.join(work, 'consumer');
  writeConsumerProject(consumer, {
    name: 'payments-team',
    dependencies: { '@paykit/core-client': previous.get('@paykit/core-client')?.version ?? '' },
    devDependencies: { '@paykit/codemods': previous.get('@paykit/codemods')?.version ?? '' },
    registry,
  });
  mkdirSync(path.join(consumer, 'src'));
  cpSync(path.join(CONSUMER_FILES, 'pay.ts'), path.join(consumer, 'src/pay.ts'));
  await npmInstall(consumer);
}, 900_000);

afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a product team upgrades across the breaking changes', () => {
  it('the earlier release installs from the registry and the team’s code type-checks against it', async () => {
    expect(installed('@paykit/core-client')).toBe(previous.get('@paykit/core-client')?.version);
    expect(installed('@paykit/core-client')).not.toBe(current('@paykit/core-client'));
    const result = await tsc();
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  it('after npm install @latest the flat money_out body no longer type-checks, and the CHANGELOG says what to run', async () => {
    await npmInstall(consumer, ['@paykit/core-client@latest', '@paykit/codemods@latest']);
    expect(installed('@paykit/core-client')).toBe(current('@paykit/core-client'));
    expect(installed('@paykit/codemods')).toBe(current('@paykit/codemods'));
    const result = await tsc();
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/src\/pay\.ts\(\d+,\d+\): error TS\d+: .*'amount'/);

    const changelog = readFileSync(path.join(consumer, 'node_modules/@paykit/core-client/CHANGELOG.md'), 'utf8');
    const latest = changelog.slice(changelog.indexOf(`## ${current('@paykit/core-client')}\n`));
    const majors = latest.slice(0, latest.indexOf('\n### ', latest.indexOf('### Major Changes') + 1));
    expect(majors).toContain('### Major Changes');
    expect(majors).toContain('npx paykit-codemod money-out … --write');
  }, 300_000);

  it('the codemod the CHANGELOG names rewrites the bodies, and the code type-checks', async () => {
    const codemod = await run(
      path.join(consumer, 'node_modules/.bin/paykit-codemod'),
      ['money-out', 'src', '--write'],
      {
        cwd: consumer,
      },
    );
    expect(codemod.stdout + codemod.stderr).not.toMatch(/could not|hand edit/i);
    expect(codemod.code).toBe(0);
    // Each body's money fields, and only those, moved into transaction_request.
    const code = readFileSync(path.join(consumer, 'src/pay.ts'), 'utf8').replace(/\s+/g, ' ');
    expect(code).toContain(
      "destination_instrument_id: internal, transaction_request: { amount: '1500.00', currency: 'MXN', description: 'Rent November', external_reference: '1234567', }, });",
    );
    expect(code).toContain(
      "destination_instrument_id: external, transaction_request: { amount: '230.50', currency: 'MXN', }, });",
    );
    const result = await tsc();
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  }, 120_000);

  describe('against a sandbox', () => {
    let sandbox: SandboxProcess;
    beforeAll(async () => {
      sandbox = await startSandboxProcess({ manualClock: false });
    });
    afterAll(async () => sandbox?.close());

    it('the upgraded code moves money on both routes', async () => {
      const env = await coreSandboxEnv(sandbox);
      const { stdout } = await runOk(process.execPath, ['src/pay.ts'], { cwd: consumer, env });
      expect(JSON.parse(stdout)).toEqual({ routes: ['INT_DEBIT', 'SPEI_DEBIT'] });
    }, 120_000);
  });
});
