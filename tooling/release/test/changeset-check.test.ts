// The release check on a small repository made for each test: a released client package and its
// spec, then a change, and what the check says about it.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkReleaseChangesets, ReleaseCheckError } from '../src/changeset-check.ts';
import { runOk } from '../src/exec.ts';
import { commitAll, gitEnv, scratchRepository, writeIn } from './git-repo.ts';

let root = '';
const write = (file: string, text: string) => writeIn(root, file, text);

const manifest = (extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ name: '@paykit/core-client', version: '0.3.0', scripts: { build: 'tsc' }, dependencies: { zod: '4.6.7' }, devDependencies: { vitest: '5.1.1' }, ...extra }, null, 2)}\n`;
const spec = (version: string) => `openapi: 3.1.0\ninfo:\n  title: Core\n  version: '${version}'\npaths: {}\n`;

const commit = (message: string) => commitAll(root, message);

beforeEach(async () => {
  root = await scratchRepository('paykit-release-check-');
  write('.changeset/config.json', '{}\n');
  write('.changeset/README.md', '# Changesets\n');
  write('packages/core-client/package.json', manifest());
  write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07";\n');
  write('packages/core-client/test/a.test.ts', '// test\n');
  write('packages/core-client/CHANGELOG.md', '# @paykit/core-client\n\n## 0.3.0\n');
  write('apps/sandbox/package.json', '{ "name": "@paykit/sandbox", "version": "0.0.3", "private": true }\n');
  write('specs/core.yaml', spec('2026-05-07'));
  await commit('release 0.3.0');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the release check', () => {
  it('passes right after a release, and when only tests, scripts or devDependencies changed', async () => {
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    write('packages/core-client/test/a.test.ts', '// another test\n');
    write(
      'packages/core-client/package.json',
      manifest({ scripts: { build: 'tsc -b' }, devDependencies: { vitest: '5.2.0' } }),
    );
    await commit('tests and tooling');
    const result = await checkReleaseChangesets(root);
    expect(result.problems).toEqual([]);
    expect(result.packages).toEqual([
      {
        name: '@paykit/core-client',
        lastRelease: expect.stringMatching(/^[0-9a-f]{40}$/),
        changed: [],
        changesets: [],
        api: { spec: 'specs/core.yaml', diff: { level: null, breaking: [], additions: [], notes: 0 } },
      },
    ]);
  });

  it('fails when the spec or a released file changed without a changeset, committed or not, naming the files and what to do', async () => {
    write('specs/core.yaml', `${spec('2026-05-07')}# a clarified description\n`);
    await commit('spec edit');
    write('packages/core-client/src/generated.ts', 'export {};\n');
    write(
      'packages/core-client/sql/functions/rule.sql',
      'CREATE OR REPLACE FUNCTION rule() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n',
    );
    const { problems } = await checkReleaseChangesets(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^@paykit\/core-client changed since its last release \(0\.3\.0, commit [0-9a-f]{7}\) and no pending changeset names it: packages\/core-client\/sql\/functions\/rule\.sql, packages\/core-client\/src\/generated\.ts, specs\/core\.yaml\. Run `pnpm changeset`/,
    );
  });

  it('fails when a runtime dependency changed without a changeset', async () => {
    write('packages/core-client/package.json', manifest({ dependencies: { zod: '4.7.0' } }));
    expect((await checkReleaseChangesets(root)).problems[0]).toContain('packages/core-client/package.json');
  });

  it('passes once a changeset names the package; a new spec revision must be named in it', async () => {
    write('specs/core.yaml', spec('2026-09-01'));
    write('.changeset/new-route.md', '---\n"@paykit/core-client": minor\n---\n\nA new route.\n');
    const undated = await checkReleaseChangesets(root);
    expect(undated.problems).toEqual([
      'specs/core.yaml moved from revision 2026-05-07 to 2026-09-01, but no changeset naming @paykit/core-client mentions 2026-09-01 (.changeset/new-route.md): start its summary with "2026-09-01: " and the platform\'s change.',
    ]);
    write('.changeset/new-route.md', '---\n"@paykit/core-client": minor\n---\n\n2026-09-01: a new route.\n');
    const dated = await checkReleaseChangesets(root);
    expect(dated.problems).toEqual([]);
    expect(dated.packages[0]?.changesets).toEqual(['.changeset/new-route.md']);
  });

  it('refuses a breaking spec change with a patch changeset, and a major one that does not say the change', async () => {
    write(
      'specs/core.yaml',
      `${spec('2026-05-07').replace('paths: {}', 'paths: {}\ncomponents:\n  schemas:\n    Tx:\n      type: object\n      properties:\n        id: { type: string }\n        status: { type: string }')}`,
    );
    write('.changeset/tx.md', '---\n"@paykit/core-client": minor\n---\n\nThe transaction schema.\n');
    await commit('Version packages');
    // Treat that as released: the version moves with its CHANGELOG entry.
    write('packages/core-client/package.json', manifest({ version: '0.4.0' }));
    write('packages/core-client/CHANGELOG.md', '# @paykit/core-client\n\n## 0.4.0\n\n## 0.3.0\n');
    rmSync(path.join(root, '.changeset/tx.md'));
    await commit('release 0.4.0');

    write(
      'specs/core.yaml',
      `${spec('2026-05-07').replace('paths: {}', 'paths: {}\ncomponents:\n  schemas:\n    Tx:\n      type: object\n      properties:\n        id: { type: string }')}`,
    );
    write('.changeset/drop-status.md', '---\n"@paykit/core-client": patch\n---\n\nTidy the schema.\n');
    const patch = await checkReleaseChangesets(root);
    expect(patch.problems).toHaveLength(1);
    expect(patch.problems[0]).toMatch(
      /^specs\/core\.yaml changed the API of @paykit\/core-client since its release 0\.4\.0 in a way that needs a major release \(.*status.*\), but its changeset\(s\) ask for patch/,
    );
    expect(patch.packages[0]?.api?.diff.level).toBe('major');

    write('.changeset/drop-status.md', '---\n"@paykit/core-client": major\n---\n\nTidy the schema.\n');
    const unsaid = await checkReleaseChangesets(root);
    expect(unsaid.problems[0]).toMatch(
      /do not say 1 breaking API change\(s\) of specs\/core\.yaml.*pnpm release:api-diff --write \.changeset\/drop-status\.md/,
    );

    const cli = path.resolve(import.meta.dirname, '../src/cli.ts');
    await runOk(process.execPath, [cli, 'api-diff', '--root', root, '--write', '.changeset/drop-status.md'], {
      cwd: root,
      env: gitEnv,
    });
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    expect(readFileSync(path.join(root, '.changeset/drop-status.md'), 'utf8')).toContain(
      'API changes in specs/core.yaml (major):\n- Breaking: ',
    );
  });

  it('reports a changeset that names no package of the workspace or is malformed', async () => {
    write('.changeset/typo.md', '---\n"@paykit/core-clinet": patch\n---\n\nFix.\n');
    expect((await checkReleaseChangesets(root)).problems).toContain(
      '.changeset/typo.md names @paykit/core-clinet, which is no package of this workspace: fix the name (see packages/*/package.json).',
    );
    write('.changeset/typo.md', '---\n"@paykit/core-client": big\n---\n\nFix.\n');
    expect((await checkReleaseChangesets(root)).problems[0]).toBe(
      '.changeset/typo.md: "@paykit/core-client" has bump "big"; use major, minor, patch or none.',
    );
  });

  it('needs a changeset for a package that was never released, and accepts a release versioned but not yet committed', async () => {
    write('packages/codemods/package.json', JSON.stringify({ name: '@paykit/codemods', version: '0.0.0' }));
    write('packages/codemods/src/index.ts', 'export {};\n');
    await commit('new package');
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(
      /^@paykit\/codemods was never released and no pending changeset names it: packages\/codemods\/package\.json, packages\/codemods\/src\/index\.ts\./,
    );
    write('packages/codemods/package.json', JSON.stringify({ name: '@paykit/codemods', version: '0.1.0' }));
    write('packages/codemods/CHANGELOG.md', '# @paykit/codemods\n\n## 0.1.0\n');
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
  });

  it('is not fooled by an edit of the CHANGELOG: the release is the commit that set the version', async () => {
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    await commit('a change');
    write('packages/core-client/CHANGELOG.md', '# @paykit/core-client\n\n## 0.3.0\n\nA typo fixed.\n');
    await commit('changelog typo');
    const { problems, packages } = await checkReleaseChangesets(root);
    expect(problems[0]).toMatch(
      /^@paykit\/core-client changed since its last release \(0\.3\.0, commit [0-9a-f]{7}\) and no pending changeset names it: packages\/core-client\/src\/index\.ts\./,
    );
    expect(packages[0]?.changed).toEqual(['packages/core-client/src/index.ts']);
  });

  it('passes on the "Version packages" commit that consumes the changesets, and counts from it', async () => {
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    write('.changeset/added.md', '---\n"@paykit/core-client": minor\n---\n\nAn export added.\n');
    await commit('a change with its changeset');
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    // What `changeset version` does: the version moves, the CHANGELOG gains its entry, the changeset goes.
    write('packages/core-client/package.json', manifest({ version: '0.4.0' }));
    write('packages/core-client/CHANGELOG.md', '# @paykit/core-client\n\n## 0.4.0\n\n- An export added.\n\n## 0.3.0\n');
    rmSync(path.join(root, '.changeset/added.md'));
    expect((await checkReleaseChangesets(root)).problems).toEqual([]);
    await commit('Version packages');
    const released = await checkReleaseChangesets(root);
    expect(released.problems).toEqual([]);
    expect(released.packages[0]?.changed).toEqual([]);
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 2;\n');
    await commit('after the release');
    expect((await checkReleaseChangesets(root)).problems[0]).toMatch(
      /changed since its last release \(0\.4\.0, commit/,
    );
  });

  it('takes the release tag when there is one', async () => {
    await runOk('git', ['tag', '@paykit/core-client@0.3.0'], { cwd: root, env: gitEnv });
    const tagged = (await runOk('git', ['rev-parse', 'HEAD'], { cwd: root, env: gitEnv })).stdout.trim();
    write('packages/core-client/src/index.ts', 'export const API_VERSION = "2026-05-07"; export const added = 1;\n');
    await commit('a change');
    const { packages } = await checkReleaseChangesets(root);
    expect(packages[0]).toMatchObject({ lastRelease: tagged, changed: ['packages/core-client/src/index.ts'] });
  });

  it('refuses a folder that is not the repository', async () => {
    await expect(checkReleaseChangesets(path.join(root, 'specs'))).rejects.toThrow(
      /holds no \.changeset\/config\.json/,
    );
  });

  it('refuses a shallow clone instead of guessing', async () => {
    const shallow = `${root}-shallow`;
    await runOk('git', ['clone', '-q', '--depth', '1', `file://${root}`, shallow], { cwd: tmpdir(), env: gitEnv });
    try {
      await expect(checkReleaseChangesets(shallow)).rejects.toThrow(ReleaseCheckError);
    } finally {
      rmSync(shallow, { recursive: true, force: true });
    }
  });
});
