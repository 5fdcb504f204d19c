// The references check: a file or migration that a comment or a doc names must exist. Each rule is
// run on a small tree written for the test: a stale reference fails at its line with a hint, a
// correct one passes, and what is not a reference (URLs, npm paths, placeholders, code, generated
// files) is left alone.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkReferences, readTree, referencesIn } from '../src/references.ts';

const here = path.resolve(import.meta.dirname, '..');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A tree of the given files (relative path → text), with two packages and their migrations. */
function tree(files: Record<string, string>) {
  const root = mkdtempSync(path.join(here, 'test-tree-'));
  made.push(root);
  const base: Record<string, string> = {
    'package.json': '{"name":"root"}',
    '.gitattributes': 'packages/*-client/src/generated/** linguist-generated=true\n',
    'packages/store/package.json': '{"name":"@paykit/store"}',
    'packages/store/src/event-batch.ts': '// The batch.\nexport function appendEvents() {}\n',
    'packages/ledger/src/report-import.ts': '// Reports.\nexport async function importReport() {}\n',
    'packages/store/test/event-batch.test.ts': '// Its test.\nexport {};\n',
    'packages/store/migrations/0005_append_events.sql': '',
    'packages/ledger/package.json': '{"name":"@paykit/ledger"}',
    'packages/ledger/migrations/0015_journal.sql': '',
    'packages/ledger/sql/functions/webhook_events_append.sql': '',
    // A test fixture with a package's name does not stand for the package.
    'tooling/boundaries/fixtures/packages/ledger/package.json': '{"name":"@paykit/ledger"}',
    'tooling/boundaries/fixtures/packages/ledger/sql/functions/only-here.sql': '',
  };
  for (const [file, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return checkReferences(readTree(root));
}

/** The errors for one file of comments, as `line: ref`. */
function misses(file: string, text: string): string[] {
  return tree({ [file]: text }).errors.map((error) => {
    const match = new RegExp(`^${file.replace(/[.]/g, '\\.')}:(\\d+): names (\\S+), which does not exist`).exec(error);
    expect(match, error).not.toBeNull();
    return `${match![1]}: ${match![2]}`;
  });
}

describe('the references check', () => {
  it('fails a path that names no file, with the file that has its name as the hint', () => {
    const { errors, checked } = tree({
      'packages/store/src/append.ts': [
        '// Appends (packages/store/src/event-batch.ts, root-relative: exists).',
        "// Its SQL: packages/store/migrations/0015_journal.sql moved to the ledger's set.",
        'export const x = 1;',
      ].join('\n'),
    });
    expect(checked).toBe(2); // two paths: a migration named in a path is checked as the path
    expect(errors).toEqual([
      'packages/store/src/append.ts:2: names packages/store/migrations/0015_journal.sql, which does not exist (no such file; did you mean packages/ledger/migrations/0015_journal.sql?): rewrite it to what is true, or mark a made-up name with `docs-check: not-a-path` on its line.',
    ]);
  });

  it('resolves a path from the root, the package, the folder, or the package the text names', () => {
    expect(
      misses(
        'packages/store/src/append.ts',
        [
          '// src/event-batch.ts (the package), ./event-batch.ts and ../test/event-batch.test.ts (the folder).',
          "// `@paykit/ledger`'s `sql/functions/webhook_events_append.sql`, and over a line: @paykit/ledger's",
          '// sql/functions/webhook_events_append.sql.',
          "// Stale: src/batch.ts, ../test/batch.test.ts, @paykit/store's sql/functions/webhook_events_append.sql,",
          "// and @paykit/ledger's sql/functions/only-here.sql (a fixture's copy is not the package).",
          'export {};',
        ].join('\n'),
      ),
    ).toEqual([
      '4: src/batch.ts',
      '4: ../test/batch.test.ts',
      '4: sql/functions/webhook_events_append.sql',
      '5: sql/functions/only-here.sql',
    ]);
  });

  it('checks a bare name of code anywhere in the repository, and leaves data and doc names alone', () => {
    expect(
      misses(
        'packages/ledger/src/post.ts',
        [
          "// Written by the store's event-batch.ts; started by startStormProcess (token-storm.ts).",
          '// Reads paykit.config.json and writes reliability-report.json (a user file and an output).',
          'export {};',
        ].join('\n'),
      ),
    ).toEqual(['1: token-storm.ts']);
  });

  it('fails a function that the file named with it does not hold, saying where it is defined', () => {
    const { errors, checked } = tree({
      'apps/worker/src/fetch.ts': [
        "// appendEvents (@paykit/store's src/event-batch.ts), event-batch.ts's `appendEvents()`,",
        '// `importReport` in packages/ledger/src/report-import.ts: all true.',
        "// Stale: the store's importReport (event-batch.ts), startStormProcess (report-import.ts).",
        'export {};',
      ].join('\n'),
    });
    expect(checked).toBe(5);
    expect(errors).toEqual([
      'apps/worker/src/fetch.ts:3: names importReport in event-batch.ts, which does not exist there (it is defined in packages/ledger/src/report-import.ts): rewrite it to what is true.',
      'apps/worker/src/fetch.ts:3: names startStormProcess in report-import.ts, which does not exist there (no file defines it): rewrite it to what is true.',
    ]);
  });

  it('fails a migration name or number that no migrations/ folder has, with the hint of its number', () => {
    const { errors } = tree({
      'apps/worker/src/apply.ts': [
        '// Migrations 0005_append_events and 0015_journal, migrations 0005 and 0015: all exist.',
        '// Stale: 0015_jounal, 0099_gone, and migration 0006.',
        'export {};',
      ].join('\n'),
    });
    expect(errors.map((e) => e.replace(/: rewrite it.*$/, ''))).toEqual([
      'apps/worker/src/apply.ts:2: names 0015_jounal, which does not exist (no such migration; did you mean 0015_journal?)',
      'apps/worker/src/apply.ts:2: names 0099_gone, which does not exist (no such migration)',
      'apps/worker/src/apply.ts:2: names 0006, which does not exist (no such migration)',
    ]);
  });

  it('reads comments only, not code or strings, and leaves URLs, npm paths and placeholders alone', () => {
    expect(
      misses(
        'tooling/tool/src/cli.ts',
        [
          "const url = 'https://example.com/a/gone.ts'; // https://github.com/o/r/blob/main/src/gone.ts",
          "const p = 'src/gone.ts';",
          'const t = `${p}//src/gone.ts`; /* see github.com/o/r/tree/main/gone.ts */',
          '/** `@paykit/store/testing`, node_modules/x/gone.ts, <name>.ts, *.test.ts, migrations/NNNN_name.sql, /etc/gone.sh */',
          '// Extensions alone: .ts, .d.ts, .test.ts.',
          "// A fixture's made-up migrations/9100_x.sql (docs-check: not-a-path).",
          '// Stale after all that: src/gone.ts',
          'export { url, t };',
        ].join('\n'),
      ),
    ).toEqual(['7: src/gone.ts']);
  });

  it('checks shell comments and the whole Markdown of READMEs and docs/, and skips generated files', () => {
    const { errors } = tree({
      'scripts/run.sh': '#!/bin/sh\n# Runs scripts/gone.sh\necho scripts/also-gone.sh\n',
      'apps/worker/bench/run.ts': '// Benches apps/worker/src/gone.ts.\n',
      '.dependency-cruiser.cjs': '// Rules for .github/workflows/ci.yaml\n',
      'README.md':
        '# Repo\n\nThe store: [its batch](packages/store/src/event-batch.ts).\nThe console: apps/worker/src/console/server.ts.\n',
      'docs/guide.md': 'See [the README](../README.md) and [the journal](../packages/ledger/migrations/0016_x.sql).\n',
      'packages/core-client/src/generated/sdk.gen.ts': '// src/gone.ts\nexport {};\n',
      'apps/worker/src/gen.ts': '// Generated by a tool: src/gone.ts\nexport {};\n',
      'apps/worker/node_modules/dep/index.ts': '// src/gone.ts\n',
      'packages/store/CHANGELOG.md': 'src/gone.ts\n',
    });
    expect(errors.map((e) => e.replace(/, which does not exist.*$/, ''))).toEqual([
      '.dependency-cruiser.cjs:1: names .github/workflows/ci.yaml',
      'apps/worker/bench/run.ts:1: names apps/worker/src/gone.ts',
      'scripts/run.sh:2: names scripts/gone.sh',
      'README.md:4: names apps/worker/src/console/server.ts',
      'docs/guide.md:1: names ../packages/ledger/migrations/0016_x.sql',
    ]);
  });

  it('takes a path out of its punctuation, and each reference at its own line of a block comment', () => {
    expect(
      referencesIn('a.md', 10, 'one (`x/y.ts`).\n[z](../w/v.md#part), "q/r.json":').map((r) => [r.line, r.ref]),
    ).toEqual([
      [10, 'x/y.ts'],
      [11, '../w/v.md'],
      [11, 'q/r.json'],
    ]);
  });
});
