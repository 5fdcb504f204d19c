// The domain-imports codemod on a fixture code base: its `before/` tree is copied to a temporary
// folder, migrated as a dry run (nothing may change on disk) and then with `write`, and must then
// equal its `after/` tree byte for byte. The after/ tree type-checks against the real packages
// (money-out.test.ts, "the fixtures are real code").
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as domain from '@paykit/domain';
import eslintConfig from '@paykit/eslint-config';
// eslint-disable-next-line no-restricted-imports -- the runtime's deprecated re-exports, read on purpose to compare them with @paykit/domain's.
import * as runtime from '@paykit/runtime';
import { describe, expect, it } from 'vitest';
import { DOMAIN_IMPORTS_REASON, migrateDomainImports, RUNTIME_DOMAIN_NAMES } from '../src/index.ts';
import { copyOf, FIXTURES, temporaryFolder, tree } from './trees.ts';

const run = promisify(execFile);
const CLI = path.join(import.meta.dirname, '../src/cli.ts');

describe('domain-imports', () => {
  it('a dry run changes nothing on disk; --write produces the after/ tree; a second run finds nothing to change', async () => {
    const dir = copyOf('domain-imports');
    const before = tree(dir);
    const dry = await migrateDomainImports({ cwd: dir });
    expect(dry.written).toBe(false);
    expect(dry.reason).toBe(DOMAIN_IMPORTS_REASON);
    expect(tree(dir)).toEqual(before);
    for (const { file, diff } of dry.files) expect(diff).toContain(`+++ b/${file}`);

    const written = await migrateDomainImports({ cwd: dir, write: true });
    expect(written.changes).toEqual(dry.changes);
    expect(tree(dir)).toEqual(tree(path.join(FIXTURES, 'domain-imports', 'after')));

    const again = await migrateDomainImports({ cwd: dir });
    expect(again.changes).toEqual([]);
    expect(again.skipped).toEqual(written.skipped);
  });

  it('moves a whole import, splits a mixed one, merges into the file’s own @paykit/domain import, and keeps type-only imports and aliases', async () => {
    const report = await migrateDomainImports({ cwd: copyOf('domain-imports') });
    expect(report.filesScanned).toBe(7);
    expect(report.changes.map(({ file, line, kind }) => `${file}:${line} ${kind}`)).toEqual([
      'src/amounts.ts:2 import',
      'src/evaluate.ts:1 split',
      'src/merge.ts:2 merged',
      'src/merge.ts:3 merged',
      'src/reexport.ts:1 split',
      'src/reexport.ts:2 export',
      'src/types.ts:1 split',
      'src/types.ts:2 split',
      'src/types.ts:3 merged',
    ]);
    const after = (file: string, line: number) =>
      report.changes.find((change) => change.file === file && change.line === line)?.after;
    expect(after('src/evaluate.ts', 1)).toBe(
      "import { describeValue, jsonPointer, type DriftReport } from '@paykit/runtime'; import { isValidClabe } from '@paykit/domain';",
    );
    expect(after('src/types.ts', 1)).toBe(
      "import type { Logger } from '@paykit/runtime'; import type { MoneyError } from '@paykit/domain';",
    );
    // The aliased name of line 3 joins the value import line 2 made.
    expect(after('src/types.ts', 2)).toBe(
      "import { jsonLineLogger } from '@paykit/runtime'; import { type ClabeError, maskCardNumber as mask } from '@paykit/domain';",
    );
    expect(after('src/reexport.ts', 2)).toBe("export type { TimeFormatError as TimeError } from '@paykit/domain';");
    expect(report.files.map((f) => f.file)).not.toContain('src/untouched.ts');
  });

  it('reports a namespace import or a dynamic import that reads a domain name, and leaves it as it is', async () => {
    const report = await migrateDomainImports({ cwd: copyOf('domain-imports'), write: true });
    expect(report.skipped.map(({ file, line, column }) => `${file}:${line}:${column}`)).toEqual([
      'src/unsafe.ts:4:25',
      'src/unsafe.ts:6:21',
      'src/unsafe.ts:9:32',
    ]);
    expect(report.skipped[0]?.reason).toMatch(/^runtime\.toCentavos reads a domain name through a namespace import/);
    expect(report.skipped[2]?.reason).toMatch(/^loads parseClabe from @paykit\/runtime at run time/);
  });

  it('keeps CRLF line endings and the quotes of the file', async () => {
    const dir = temporaryFolder('crlf');
    const file = path.join(dir, 'crlf.ts');
    writeFileSync(
      file,
      'import { isValidRfc, maskSecret } from "@paykit/runtime";\r\nexport { isValidRfc, maskSecret };\r\n',
    );
    await migrateDomainImports({ cwd: dir, write: true });
    expect(readFileSync(file, 'utf8')).toBe(
      'import { maskSecret } from "@paykit/runtime";\r\nimport { isValidRfc } from "@paykit/domain";\r\nexport { isValidRfc, maskSecret };\r\n',
    );
  });

  it('the bin runs it: exit 1 while something is left for a hand edit', async () => {
    const dir = copyOf('domain-imports');
    const result = await run(
      process.execPath,
      ['--conditions=@paykit/source', CLI, 'domain-imports', 'src', '--write'],
      {
        cwd: dir,
      },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(DOMAIN_IMPORTS_REASON);
    expect(result.stdout).toContain('9 change(s) in 5 of 7 file(s) written; 3 occurrence(s) to migrate by hand.');
    expect(tree(dir)).toEqual(tree(path.join(FIXTURES, 'domain-imports', 'after')));
  });
});

describe('the names it moves', () => {
  it('are exactly what @paykit/runtime re-exports from @paykit/domain (the same values), PaykitError aside', () => {
    const shared = Object.keys(domain).filter(
      (name) =>
        name !== 'PaykitError' &&
        name in runtime &&
        runtime[name as keyof typeof runtime] === domain[name as keyof typeof domain],
    );
    expect([...shared].sort()).toEqual([...RUNTIME_DOMAIN_NAMES].sort());
  });

  it('are the names the lint rule refuses from @paykit/runtime', () => {
    const restricted = eslintConfig
      .map((config) => config.rules?.['no-restricted-imports'])
      .find((rule) => rule !== undefined);
    expect(restricted).toEqual([
      'error',
      expect.objectContaining({
        paths: [expect.objectContaining({ name: '@paykit/runtime', importNames: [...RUNTIME_DOMAIN_NAMES] })],
      }),
    ]);
  });
});
