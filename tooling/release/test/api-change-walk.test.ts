// The steps docs/releasing.md gives for a dated API change ("When the API changes"), walked on a
// branch of a copy of the repository as the platform team would: the reference's inventory and the
// core spec move to a new dated revision that adds an optional field to the webhook configuration
// answer; `pnpm lint:specs`; `pnpm gen`; the release check, which now demands the branch's own
// changeset; a changeset that names the date, with its API difference written in by
// `pnpm release:api-diff --write`; a commit. Then what CI runs on such a change is green: the
// generated code is fresh, the release check passes, the core client and the sandbox type-check,
// and the tests that read the spec pass (the client's API revision; the sandbox's walk of every
// operation). Then the release: the branch merged into main, `changeset version`, the build and
// `changeset publish` to a private registry (Verdaccio on a loopback port) that already holds the
// current release, and a product team's project moving from the current release to the new one
// with `npm install …@latest`, reading the new field. The date is fixed and far away: nothing here
// reads today's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { declareSecret } from '@paykit/testing/secret-audit';
import { consumerTsc, npmInstall, writeConsumerProject } from '../src/consumer.ts';
import { REPO_ROOT, WORKSPACE_BIN, childEnv, run, runOk, type RunResult } from '../src/exec.ts';
import { withBuiltPackages } from '../src/pack.ts';
import { startLocalRegistry, type LocalRegistry } from '../src/registry.ts';
import { copyRepository, readManifest } from '../src/workspace.ts';

const REVISION = '2099-01-01';
const CHANGESET = '.changeset/api-walk.md';
const BRANCH = `api/${REVISION}`;
let work = '';
let copy = '';
let registry: LocalRegistry;
/** For the commands that talk to the registry: its address and token in a user .npmrc of their own. */
let registryEnv: NodeJS.ProcessEnv;
/** What `pnpm release:check` answered on the branch after the spec change, before the changeset. */
let checkBeforeChangeset: RunResult;
/** The core client's version before the change: the release a product team is on. */
let released = '';
const env = childEnv({
  CI: 'true',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@paykit.invalid',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@paykit.invalid',
});
const pnpm = (args: string[], timeoutMs = 300_000) => runOk('pnpm', args, { cwd: copy, env, timeoutMs });

/** Edits a YAML file in place, keeping its comments and layout. */
function editYaml(file: string, edit: (doc: ReturnType<typeof parseDocument>) => void): void {
  const full = path.join(copy, file);
  const doc = parseDocument(readFileSync(full, 'utf8'));
  edit(doc);
  writeFileSync(full, doc.toString({ lineWidth: 0 }));
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'paykit-api-walk-'));
  copy = path.join(work, 'repo');
  registry = await startLocalRegistry(path.join(work, 'registry'));
  declareSecret(registry.token);
  writeFileSync(path.join(work, 'user.npmrc'), registry.npmrc);
  registryEnv = childEnv({ CI: 'true', npm_config_userconfig: path.join(work, 'user.npmrc') });
  await withBuiltPackages(REPO_ROOT, () => copyRepository(REPO_ROOT, copy, { withDist: true, install: true }));
  released = readManifest(path.join(copy, 'packages/core-client/package.json')).version;
  // The current release is in the registry, as it is for the product teams.
  await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['publish'], { cwd: copy, env: registryEnv, timeoutMs: 300_000 });
  await runOk('git', ['checkout', '-q', '-b', BRANCH], { cwd: copy, env });

  // Step 1: the reference changed, so its inventory first, then the spec.
  editYaml('tooling/spec-checks/reference/inventory.yaml', (doc) => {
    doc.setIn(['products', 'core', 'versions', 'info'], REVISION);
    (doc.getIn(['products', 'core', 'versions', 'changes']) as { add(value: string): void }).add(REVISION);
  });
  editYaml('specs/core.yaml', (doc) => {
    doc.setIn(['info', 'version'], REVISION);
    (doc.getIn(['info', 'x-changes']) as { add(value: unknown): void }).add(
      doc.createNode({ version: REVISION, changes: ['webhook configurations answer an optional description.'] }),
    );
    doc.setIn(
      ['components', 'schemas', 'WebhookConfiguration', 'properties', 'description'],
      doc.createNode({ type: 'string', description: 'What the webhook is for (optional).' }),
    );
  });
  // Step 2, 3: the spec checks, then the generated code.
  await pnpm(['lint:specs']);
  await pnpm(['gen']);
  // Before the changeset, the release check on the branch says what is missing.
  checkBeforeChangeset = await run('pnpm', ['release:check'], { cwd: copy, env, timeoutMs: 120_000 });
  // Step 4: the changeset, dated, and its API difference written in.
  writeFileSync(
    path.join(copy, CHANGESET),
    `---\n"@paykit/core-client": minor\n---\n\n${REVISION}: webhook configurations answer an optional description.\n`,
  );
  await pnpm(['release:api-diff', '--write', CHANGESET]);
  // Step 5: one commit.
  await runOk('git', ['add', '-A'], { cwd: copy, env });
  await runOk('git', ['commit', '-q', '-m', `${REVISION}: webhook configurations answer an optional description`], {
    cwd: copy,
    env,
  });
}, 900_000);

afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('a dated API change made as docs/releasing.md says', () => {
  it('regenerates the client with the new revision and the new field', () => {
    const generated = readFileSync(path.join(copy, 'packages/core-client/src/generated/meta.gen.ts'), 'utf8');
    expect(generated).toContain(`export const API_VERSION = "${REVISION}";`);
    expect(readFileSync(path.join(copy, 'packages/core-client/src/generated/types.gen.ts'), 'utf8')).toMatch(
      /description\?: string/,
    );
  });

  it('on the branch, the release check asks for the branch’s own dated minor changeset before it is written', () => {
    expect(checkBeforeChangeset.code).toBe(1);
    const said = checkBeforeChangeset.stdout + checkBeforeChangeset.stderr;
    expect(said).toContain(`Branch ${BRANCH} against main`);
    expect(said).toMatch(/@paykit\/core-client.*changeset/);
    expect(said).toContain('minor');
  });

  it('writes the API difference into the changeset, so the CHANGELOG says it', () => {
    const text = readFileSync(path.join(copy, CHANGESET), 'utf8');
    expect(text).toContain('API changes in specs/core.yaml (minor):');
    expect(text).toMatch(/description/);
  });

  it('passes what CI checks first: fresh generated code and the release check', async () => {
    await pnpm(['gen:check']);
    const { stdout } = await pnpm(['release:check']);
    expect(stdout).toContain('every change to a published package has a changeset');
  }, 300_000);

  it('type-checks the core client and the sandbox, and passes the tests that read the spec', async () => {
    await pnpm(['exec', 'tsc', '-p', 'packages/core-client', '--noEmit']);
    await pnpm(['exec', 'tsc', '-p', 'apps/sandbox', '--noEmit']);
    const { stdout } = await pnpm(
      ['exec', 'vitest', 'run', 'packages/core-client/test/schemas.test.ts', 'apps/sandbox/test/spec-walk.test.ts'],
      600_000,
    );
    expect(stdout).toMatch(/tests: \d+ passed, 0 failed/);
  }, 900_000);

  it('merged and released, a product team moves to it with npm install …@latest and reads the new field', async () => {
    await runOk('git', ['checkout', '-q', 'main'], { cwd: copy, env });
    await runOk('git', ['merge', '-q', '--ff-only', BRANCH], { cwd: copy, env });
    await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['version'], { cwd: copy, env });
    const next = readManifest(path.join(copy, 'packages/core-client/package.json')).version;
    const [major, minor] = released.split('.').map(Number);
    expect(next).toBe(`${major}.${(minor ?? 0) + 1}.0`);
    const changelog = readFileSync(path.join(copy, 'packages/core-client/CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(
      new RegExp(
        `^# @paykit/core-client\\n\\n## ${next.replaceAll('.', '\\.')}\\n\\n### Minor Changes\\n\\n- ${REVISION}: webhook configurations answer an optional description\\.`,
      ),
    );
    expect(changelog).toContain('<details><summary>API changes in specs/core.yaml (minor): ');
    await runOk('git', ['add', '-A'], { cwd: copy, env });
    await runOk('git', ['commit', '-q', '-m', 'Version packages'], { cwd: copy, env });
    // `pnpm release`: the build (only the core client's sources changed), then the publish.
    await pnpm(['--filter', '@paykit/core-client', 'run', 'build']);
    await runOk(path.join(WORKSPACE_BIN, 'changeset'), ['publish'], {
      cwd: copy,
      env: registryEnv,
      timeoutMs: 300_000,
    });

    const consumer = path.join(work, 'consumer');
    writeConsumerProject(consumer, {
      name: 'webhooks-team',
      dependencies: { '@paykit/core-client': released },
      registry,
    });
    mkdirSync(path.join(consumer, 'src'));
    writeFileSync(
      path.join(consumer, 'src/describe.ts'),
      "import type { WebhookConfiguration } from '@paykit/core-client';\nexport const describe = (webhook: WebhookConfiguration): string => webhook.description ?? 'no description';\n",
    );
    await npmInstall(consumer);
    const before = await consumerTsc(consumer);
    expect(before.code, 'the released client has no description field').not.toBe(0);
    expect(before.stdout).toMatch(/src\/describe\.ts\(\d+,\d+\): error TS\d+: .*description/);
    await npmInstall(consumer, ['@paykit/core-client@latest']);
    expect(readManifest(path.join(consumer, 'node_modules/@paykit/core-client/package.json')).version).toBe(next);
    const after = await consumerTsc(consumer);
    expect(after.stdout + after.stderr).toBe('');
    expect(after.code).toBe(0);
    expect(readFileSync(path.join(consumer, 'node_modules/@paykit/core-client/CHANGELOG.md'), 'utf8')).toContain(
      `- ${REVISION}: webhook configurations answer an optional description.`,
    );
  }, 900_000);
});
