// The release check per change, on a real git repository made for each test: a core client
// released at 0.3.0, then on main a breaking change with its major changeset still pending (so
// per release anything to the package passes), then a branch off main and what the check and
// api-diff --write say about the branch's own change.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkReleaseChangesets, ReleaseCheckError } from '../src/changeset-check.ts';
import { run } from '../src/exec.ts';
import { commitAll, gitEnv, gitIn, scratchRepository, writeIn } from './git-repo.ts';

let root = '';
const CLI = path.resolve(import.meta.dirname, '../src/cli.ts');
const write = (file: string, text: string) => writeIn(root, file, text);

const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const manifest = (name: string, version: string) =>
  `${JSON.stringify({ name, version, dependencies: { zod: '4.6.7' } }, null, 2)}\n`;

/** A core spec of revision `version` whose transaction answer has `fields` (all optional but id). */
const spec = (version: string, fields: string[]) => `openapi: 3.1.0
info:
  title: Core
  version: '${version}'
paths:
  /v1/transactions/{id}:
    get:
      operationId: getTransaction
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        '200':
          description: The transaction.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Tx' }
components:
  schemas:
    Tx:
      type: object
      required: [id]
      properties:
${fields.map((f) => `        ${f}: { type: string }`).join('\n')}
`;

const changeset = (bump: string, summary: string, pkg = '@paykit/core-client') =>
  `---\n"${pkg}": ${bump}\n---\n\n${summary}\n`;

const git = (...args: string[]) => gitIn(root, ...args);
const commit = (message: string) => commitAll(root, message);

async function cli(...args: string[]) {
  return run(process.execPath, [CLI, ...args, '--root', root], { cwd: root, env: gitEnv });
}

beforeEach(async () => {
  root = await scratchRepository('paykit-branch-check-');
  write('.changeset/config.json', '{ "baseBranch": "main" }\n');
  write('.changeset/README.md', '# Changesets\n');
  write('packages/core-client/package.json', manifest('@paykit/core-client', '0.3.0'));
  write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07";\n');
  write('packages/core-client/CHANGELOG.md', '# @paykit/core-client\n\n## 0.3.0\n');
  write('packages/runtime/package.json', manifest('@paykit/runtime', '0.3.0'));
  write('packages/runtime/src/index.ts', 'export const retries = 3;\n');
  write('packages/runtime/CHANGELOG.md', '# @paykit/runtime\n\n## 0.3.0\n');
  write('specs/core.yaml', spec('2026-05-07', ['id', 'status', 'amount']));
  await commit('release 0.3.0');
  // On main since the release: a breaking change, its major changeset pending, the API lines in it.
  write('specs/core.yaml', spec('2026-05-07', ['id', 'amount']));
  write('.changeset/drop-status.md', changeset('major', 'The transaction has no status any more.'));
  const written = await cli('api-diff', '--write', '.changeset/drop-status.md');
  expect(written.code, written.stderr).toBe(0);
  expect(read('.changeset/drop-status.md')).toContain('- Breaking: [Removed] /components/schemas/Tx/properties/status');
  await commit('drop status');
  await git('checkout', '-q', '-b', 'feature');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the release check on a branch', () => {
  it('compares with the merge base, and passes when the branch changes no published package', async () => {
    write('apps/sandbox/src/main.ts', 'export {};\n');
    await commit('an app change');
    const result = await checkReleaseChangesets(root);
    expect(result.branch).toMatchObject({
      branch: 'feature',
      base: 'main',
      mergeBase: await git('rev-parse', 'main'),
      packages: [],
    });
    expect(result.problems).toEqual([]);
  });

  it('fails a branch that changes the client source with no changeset of its own, though a pending one names the package', async () => {
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    await commit('a change');
    // Per release alone this passes: drop-status.md names the package.
    await git('checkout', '-q', 'main');
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    await git('checkout', '-q', '--', '.');
    await git('checkout', '-q', 'feature');

    const result = await checkReleaseChangesets(root);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      /^@paykit\/core-client: this branch changes packages\/core-client\/src\/index\.ts since it left main \(merge base [0-9a-f]{7}\) and adds no changeset naming it .*Run `pnpm changeset`, pick @paykit\/core-client at patch or above/,
    );
    const shown = await cli('check');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('@paykit/core-client: this branch changes packages/core-client/src/index.ts');
    expect(shown.stdout).toMatch(
      /Branch feature against main \(merge base [0-9a-f]{7}\):\n {2}@paykit\/core-client +1 changed file\(s\), changeset\(s\) added: none/,
    );
  });

  it('counts the work tree: an untracked source file needs a changeset, an uncommitted changeset covers it', async () => {
    write('packages/runtime/src/new.ts', 'export const x = 1;\n');
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(
      /^@paykit\/runtime: this branch changes packages\/runtime\/src\/new\.ts/,
    );
    write('.changeset/runtime-new.md', changeset('patch', 'A new export.', '@paykit/runtime'));
    const result = await checkReleaseChangesets(root);
    expect(result.problems).toEqual([]);
    expect(result.branch?.packages).toEqual([
      { name: '@paykit/runtime', changed: ['packages/runtime/src/new.ts'], changesets: ['.changeset/runtime-new.md'] },
    ]);
  });

  it('sees files and changesets whose names git would quote (a space, an accent)', async () => {
    write('packages/runtime/src/mañana file.ts', 'export const x = 1;\n');
    await commit('an accented file');
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(
      /^@paykit\/runtime: this branch changes packages\/runtime\/src\/mañana file\.ts /,
    );
    write('.changeset/añadido.md', changeset('patch', 'A new export.', '@paykit/runtime'));
    await commit('its changeset');
    const result = await checkReleaseChangesets(root);
    expect(result.problems).toEqual([]);
    expect(result.branch?.packages[0]?.changesets).toEqual(['.changeset/añadido.md']);
  });

  it('refuses a patch changeset for a new optional response field, though another pending changeset is major', async () => {
    write('specs/core.yaml', spec('2026-05-07', ['id', 'amount', 'reference']));
    write('.changeset/reference.md', changeset('patch', 'The transaction carries its reference.'));
    await commit('reference');
    const result = await checkReleaseChangesets(root);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(
      /^@paykit\/core-client: this branch's change needs a minor release \(\[Added\] \/components\/schemas\/Tx\/properties\/reference, .*\), but the changeset\(s\) it adds ask for patch \(\.changeset\/reference\.md\); other pending changesets do not count\. Set "@paykit\/core-client": minor in \.changeset\/reference\.md\.$/,
    );
    expect(result.branch?.packages[0]?.api?.diff).toMatchObject({ level: 'minor', breaking: [] });
    // Per release the level is met (drop-status.md is major): only the branch's own rule catches it.
    expect(result.packages.find((p) => p.name === '@paykit/core-client')?.api?.diff.level).toBe('major');

    write('.changeset/reference.md', changeset('minor', 'The transaction carries its reference.'));
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    const shown = await cli('check');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/changeset\(s\) added: \.changeset\/reference\.md, API change: minor/);
  });

  it('names the level in the missing-changeset message, and wants a breaking change said', async () => {
    write('specs/core.yaml', spec('2026-05-07', ['id']));
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(
      /adds no changeset naming it .*pick @paykit\/core-client at major \(\[Removed\] \/components\/schemas\/Tx\/properties\/amount/,
    );
    write('.changeset/drop-amount.md', changeset('major', 'No amount. Migration: read it from the ledger.'));
    expect((await checkReleaseChangesets(root)).problems).toEqual([
      expect.stringMatching(
        /^@paykit\/core-client: the changeset\(s\) this branch adds \(\.changeset\/drop-amount\.md\) do not say 2 breaking API change\(s\) the branch makes to specs\/core\.yaml.*pnpm release:api-diff --write \.changeset\/drop-amount\.md/,
      ),
    ]);
    expect((await cli('api-diff', '--write', '.changeset/drop-amount.md')).code).toBe(0);
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
  });

  it("fails a spec revision the branch's changeset does not name, even when a pending one names it", async () => {
    await git('checkout', '-q', 'main');
    write('.changeset/old-news.md', changeset('patch', '2026-09-01: said on main already.'));
    await commit('a changeset naming the date lands on main first');
    await git('checkout', '-q', 'feature');
    await git('merge', '-q', '--no-edit', 'main');

    write('specs/core.yaml', spec('2026-09-01', ['id', 'amount']));
    write('.changeset/revision.md', changeset('patch', 'Descriptions.'));
    const undated = await checkReleaseChangesets(root);
    expect(undated.problems).toEqual([
      'specs/core.yaml moves on this branch from revision 2026-05-07 to 2026-09-01, but no changeset the branch adds for @paykit/core-client mentions 2026-09-01 (.changeset/revision.md): start its summary with "2026-09-01: " and the platform\'s change.',
    ]);
    write('.changeset/revision.md', changeset('patch', '2026-09-01: descriptions.'));
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
  });

  it('does not count a pending changeset the branch only edits', async () => {
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    write('.changeset/drop-status.md', `${read('.changeset/drop-status.md')}\nAnd an export added.\n`);
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(/adds no changeset naming it/);
  });

  it('keeps the per-release checks on main, on a detached HEAD, and takes an explicit --base', async () => {
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    write('packages/runtime/src/index.ts', 'export const retries = 4;\n');
    await commit('changes without changesets');
    await git('checkout', '-q', '--detach');
    const detached = await checkReleaseChangesets(root);
    expect(detached.branch).toBeUndefined();
    // Per release: core-client is named by drop-status.md, runtime by nothing.
    expect(detached.problems).toEqual([
      expect.stringMatching(
        /^@paykit\/runtime changed since its last release \(0\.3\.0, commit [0-9a-f]{7}\) and no pending changeset names it/,
      ),
    ]);
    const based = await checkReleaseChangesets(root, { base: 'main' });
    expect(based.branch?.branch).toBe('HEAD');
    expect(based.problems.map((p) => p.split(':')[0])).toEqual(['@paykit/core-client', '@paykit/runtime']);
    await git('checkout', '-q', 'main');
    await git('merge', '-q', '--ff-only', 'feature');
    const onMain = await cli('check');
    expect(onMain.code).toBe(1);
    expect(onMain.stdout).not.toContain('Branch ');
    expect(onMain.stderr).toMatch(/- @paykit\/runtime changed since its last release/);
    expect(onMain.stderr).not.toContain('core-client');
  });

  it('says what to do when there is no base to compare with', async () => {
    await git('branch', '-q', '-m', 'main', 'trunk');
    await expect(checkReleaseChangesets(root)).rejects.toThrow(
      /On branch feature, the release check compares with main, but this repository has neither main nor origin\/main: .*--base <ref>/,
    );
    await expect(checkReleaseChangesets(root, { base: 'nowhere' })).rejects.toThrow(ReleaseCheckError);
    expect((await checkReleaseChangesets(root, { base: 'trunk' })).branch?.base).toBe('trunk');
    const usage = await cli('check', '--base', 'nowhere');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--base nowhere: no such commit or ref here');
  });
});

describe('release:api-diff --write', () => {
  it('on a branch writes only the new field, not what pending changesets already say', async () => {
    write('specs/core.yaml', spec('2026-05-07', ['id', 'amount', 'reference']));
    write('.changeset/reference.md', changeset('minor', 'The transaction carries its reference.'));
    const shown = await cli('api-diff', '--write', '.changeset/reference.md');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Wrote the API changes of @paykit/core-client on feature, against main');
    expect(read('.changeset/reference.md')).toBe(
      `${changeset('minor', 'The transaction carries its reference.')}\nAPI changes in specs/core.yaml (minor):\n- [Added] /components/schemas/Tx/properties/reference\n- [Added] property \`reference\` in Response 200 content (application/json)\n`,
    );
    // Again, with a paragraph after it: the section is replaced where it stands, not added twice.
    write('.changeset/reference.md', `${read('.changeset/reference.md')}\nRead it from \`reference\`.\n`);
    expect((await cli('api-diff', '--write', '.changeset/reference.md')).code).toBe(0);
    expect(read('.changeset/reference.md').match(/API changes in/g)).toHaveLength(1);
    expect(read('.changeset/reference.md')).toMatch(/\(application\/json\)\n\nRead it from `reference`\.\n$/);
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
  });

  it('per release (on main) leaves out the lines other pending changesets already carry', async () => {
    await git('checkout', '-q', 'main');
    write('specs/core.yaml', spec('2026-05-07', ['id', 'reference']));
    write('.changeset/reference.md', changeset('major', 'The transaction carries its reference, and no amount.'));
    const shown = await cli('api-diff', '--write', '.changeset/reference.md');
    expect(shown.code, shown.stderr).toBe(0);
    // Printed: everything since the release. Written: only what drop-status.md does not say.
    expect(shown.stdout).toContain('[Removed] /components/schemas/Tx/properties/status');
    const text = read('.changeset/reference.md');
    expect(text).toContain('API changes in specs/core.yaml (major):\n');
    expect(text).toContain('- Breaking: [Removed] /components/schemas/Tx/properties/amount\n');
    expect(text).toContain('- [Added] /components/schemas/Tx/properties/reference\n');
    expect(text).not.toContain('status');
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
  });

  it('writes nothing when every line is already said elsewhere', async () => {
    await git('checkout', '-q', 'main');
    write('.changeset/again.md', changeset('major', 'The same change, said again.'));
    const shown = await cli('api-diff', '--write', '.changeset/again.md');
    expect(shown.stdout).toContain(
      'Other pending changesets already say every API change of @paykit/core-client since each release: nothing written for it.',
    );
    expect(read('.changeset/again.md')).toBe(changeset('major', 'The same change, said again.'));
  });
});
