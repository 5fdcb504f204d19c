// The steps docs/releasing.md gives for a dated API change ("When the API changes"), walked on a
// copy of the repository as the platform team would: the reference's inventory and the core spec
// move to a new dated revision that adds an optional field to the webhook configuration answer;
// `pnpm lint:specs`; `pnpm gen`; a changeset that names the date, with its API difference written
// in by `pnpm release:api-diff --write`; a commit. Then what CI runs on such a change is green: the
// generated code is fresh, the release check passes, the core client and the sandbox type-check,
// and the tests that read the spec pass (the client's API revision; the sandbox's walk of every
// operation). The date is fixed and far away: nothing here reads today's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { REPO_ROOT, childEnv, runOk } from '../src/exec.ts';
import { copyRepository } from '../src/workspace.ts';

const REVISION = '2099-01-01';
const CHANGESET = '.changeset/api-walk.md';
let copy = '';
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
  copy = mkdtempSync(path.join(tmpdir(), 'paykit-api-walk-'));
  await copyRepository(REPO_ROOT, copy, { install: true });

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

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
}, 120_000);

describe('a dated API change made as docs/releasing.md says', () => {
  it('regenerates the client with the new revision and the new field', () => {
    const generated = readFileSync(path.join(copy, 'packages/core-client/src/generated/meta.gen.ts'), 'utf8');
    expect(generated).toContain(`export const API_VERSION = "${REVISION}";`);
    expect(readFileSync(path.join(copy, 'packages/core-client/src/generated/types.gen.ts'), 'utf8')).toMatch(
      /description\?: string/,
    );
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
});
