// The money-out codemod on fixture code bases: each `before/` tree is copied to a temporary
// folder, migrated as a dry run (nothing may change on disk) and then with `write`, and must then
// equal its `after/` tree byte for byte. Both trees type-check against the real core client.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CodemodInputError, INTERNAL_TRANSACTION_DEPRECATION, migrateMoneyOut } from '../src/index.ts';
import { copyOf, FIXTURES, temporaryFolder, tree } from './trees.ts';

const run = promisify(execFile);
const CLI = path.join(import.meta.dirname, '../src/cli.ts');
const WORKSPACE_BIN = path.resolve(import.meta.dirname, '../../../node_modules/.bin');

describe.each(['plain', 'aliased', 'destructured', 'unsafe', 'flat'])('fixture %s', (fixture) => {
  it('a dry run changes nothing on disk; --write produces the after/ tree; a second run finds nothing to change', async () => {
    const dir = copyOf(fixture);
    const before = tree(dir);
    const dry = await migrateMoneyOut({ cwd: dir });
    expect(dry.written).toBe(false);
    expect(tree(dir)).toEqual(before);
    expect(dry.files.length).toBeGreaterThan(0);
    for (const { file, diff } of dry.files) expect(diff).toContain(`+++ b/${file}`);

    const written = await migrateMoneyOut({ cwd: dir, write: true });
    expect(written.changes).toEqual(dry.changes);
    expect(tree(dir)).toEqual(tree(path.join(FIXTURES, fixture, 'after')));

    const again = await migrateMoneyOut({ cwd: dir });
    expect(again.changes).toEqual([]);
    // What is left for a hand edit is still reported (its line may have moved with the edits).
    expect(again.skipped.map((skip) => skip.reason)).toEqual(written.skipped.map((skip) => skip.reason));
  });
});

describe('the report', () => {
  it('lists each change with file, line, column, kind and the line before and after', async () => {
    const report = await migrateMoneyOut({ cwd: copyOf('plain') });
    expect(report.filesScanned).toBe(2);
    expect(report.deprecation).toBe(INTERNAL_TRANSACTION_DEPRECATION);
    expect(report.changes.map(({ file, line, kind }) => `${file}:${line} ${kind}`)).toEqual([
      'src/legacy.cjs:7 call',
      'src/payouts.ts:9 call',
      'src/payouts.ts:9 body',
      'src/payouts.ts:13 call',
      'src/payouts.ts:16 reference',
    ]);
    expect(report.changes[0]).toMatchObject({
      column: 28,
      before: 'return core.transactions.internalTransaction(body);',
      after: 'return core.transactions.moneyOut(body);',
    });
    // A JavaScript parameter: nothing shows whether the body is flat.
    expect(report.skipped.map(({ file, line, reason }) => `${file}:${line} ${reason}`)).toEqual([
      expect.stringMatching(/^src\/legacy\.cjs:7 cannot see the shape of body: if it is flat, move amount, currency/),
    ]);
  });

  it('keeps comments and strings that mention internalTransaction as they are', async () => {
    const dir = copyOf('plain');
    await migrateMoneyOut({ cwd: dir, write: true });
    const text = readFileSync(path.join(dir, 'src/payouts.ts'), 'utf8');
    expect(text).toContain('// Before 2026-05-07 we called core.transactions.internalTransaction(body) here.');
    expect(text).toContain("'calling core.transactions.internalTransaction'");
    expect(text).toContain('`template: core.transactions.internalTransaction()`');
    expect(text).toContain('/* core.transactions.internalTransaction in a block comment stays as it is */');
  });

  it('reports what it could not rewrite safely, with file, line and what to do, and leaves code that is not paykit alone', async () => {
    const report = await migrateMoneyOut({ cwd: copyOf('unsafe') });
    expect(report.skipped.map(({ file, line, column }) => `${file}:${line}:${column}`)).toEqual([
      'src/helpers.ts:9:30',
      'src/helpers.ts:14:11',
      'src/helpers.ts:19:16',
    ]);
    expect(report.skipped[0]?.reason).toMatch(
      /cannot tell whether client\.transactions is the core client's transactions/,
    );
    expect(report.skipped[1]?.reason).toMatch(/moneyOut is already a name in this scope/);
    expect(report.skipped[2]?.reason).toMatch(/exported: renaming it changes this module's exports/);
    expect(report.changes.map((c) => c.file)).toEqual(['src/helpers.ts']);
    expect([...report.changes, ...report.skipped].some((c) => c.file === 'src/ledger.ts')).toBe(false);
  });

  it('reports, and leaves alone, an operation picked by a computed key and the generated createInternalTransaction', async () => {
    const dir = temporaryFolder('hidden');
    mkdirSync(path.join(dir, 'src'));
    const source = [
      "import { createCoreClient, createInternalTransaction } from '@paykit/core-client';",
      '',
      "const core = createCoreClient({ environment: 'sandbox', clientId: 'client-1', apiKey: 'k' });",
      "export function pick(op: 'moneyOut' | 'internalTransaction', body: never) {",
      '  return core.transactions[op](body);',
      '}',
      'export const direct = createInternalTransaction;',
      '',
    ].join('\n');
    writeFileSync(path.join(dir, 'src/hidden.ts'), source);
    const report = await migrateMoneyOut({ cwd: dir, write: true });
    expect(report.changes).toEqual([]);
    expect(readFileSync(path.join(dir, 'src/hidden.ts'), 'utf8')).toBe(source);
    const skipped = report.skipped.map(({ file, line, reason }) => ({ at: `${file}:${line}`, reason }));
    expect(skipped).toEqual(
      expect.arrayContaining([
        {
          at: 'src/hidden.ts:1',
          reason: expect.stringMatching(
            /imports the generated createInternalTransaction, deprecated since 2026-05-07: call createMoneyOut/,
          ),
        },
        {
          at: 'src/hidden.ts:5',
          reason: expect.stringMatching(/core\.transactions\[op\] picks the core client's operation by a computed key/),
        },
      ]),
    );
    expect(skipped).toHaveLength(2);
  });

  it('migrates only the paths given, skips node_modules and dist, and refuses a path that is not there', async () => {
    const dir = copyOf('plain');
    for (const skipped of ['node_modules/some-lib', 'dist']) {
      mkdirSync(path.join(dir, skipped), { recursive: true });
      writeFileSync(path.join(dir, skipped, 'index.ts'), readFileSync(path.join(dir, 'src/payouts.ts')));
    }
    const onlyLegacy = await migrateMoneyOut({ cwd: dir, paths: ['src/legacy.cjs'] });
    expect(onlyLegacy.filesScanned).toBe(1);
    expect(onlyLegacy.changes.map((c) => c.file)).toEqual(['src/legacy.cjs']);
    const all = await migrateMoneyOut({ cwd: dir, write: true });
    expect(all.changes.every((c) => c.file.startsWith('src/'))).toBe(true);
    expect(readFileSync(path.join(dir, 'dist/index.ts'), 'utf8')).toContain('internalTransaction(');
    await expect(migrateMoneyOut({ cwd: dir, paths: ['src/missing'] })).rejects.toThrow(CodemodInputError);
    await expect(migrateMoneyOut({ cwd: dir, paths: ['src/missing'] })).rejects.toThrow(
      /src\/missing: no such file or folder/,
    );
  });

  it('does not rewrite a file when the change would reach a file outside the paths given', async () => {
    const dir = copyOf('aliased');
    const report = await migrateMoneyOut({ cwd: dir, paths: ['src/transfers.ts'] });
    // The client comes from test/fixtures/aliased/before/src/client.ts, which is read to resolve it but never edited.
    expect(report.changes).toHaveLength(6);
    expect(report.files.map((f) => f.file)).toEqual(['src/transfers.ts']);
  });
});

describe('paykit-codemod (the bin)', () => {
  const node = (args: string[], cwd: string) =>
    run(process.execPath, ['--conditions=@paykit/source', CLI, ...args], { cwd }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('prints the diff and the report on a dry run, exits 1 when something needs a hand edit, 0 when not', async () => {
    const unsafe = await node(['money-out'], copyOf('unsafe'));
    expect(unsafe.code).toBe(1);
    expect(unsafe.stdout).toContain(INTERNAL_TRANSACTION_DEPRECATION);
    expect(unsafe.stdout).toContain('-export const { internalTransaction: exported } = core.transactions;');
    expect(unsafe.stdout).toContain(
      'src/helpers.ts:9:30  NOT rewritten: return client.transactions.internalTransaction(body);',
    );
    const plainDir = copyOf('plain');
    const plain = await node(['money-out', 'src', '--write'], plainDir);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toMatch(/src\/payouts\.ts:9:28 {2}rewrote \(call\)/);
    expect(plain.stdout).toContain('5 change(s) in 2 of 2 file(s) written; 1 occurrence(s) to migrate by hand');
    const aliased = await node(['money-out', 'src', '--write'], copyOf('aliased'));
    expect(aliased.code).toBe(0);
    expect(tree(plainDir)).toEqual(tree(path.join(FIXTURES, 'plain', 'after')));
  });

  it('--json prints the report as JSON', async () => {
    const out = await node(['money-out', '--json'], copyOf('destructured'));
    expect(out.code).toBe(0);
    const report = JSON.parse(out.stdout) as { changes: unknown[]; written: boolean };
    expect(report.written).toBe(false);
    expect(report.changes).toHaveLength(6);
  });

  it('explains bad usage with exit code 2', async () => {
    const dir = copyOf('plain');
    const unknown = await node(['money-in'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown codemod "money-in". The codemods are: money-out, domain-imports.');
    const missing = await node(['money-out', 'nowhere'], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nowhere: no such file or folder');
  });
});

describe('flat transfer bodies', () => {
  it('nests the money of every flat literal in transaction_request (currency MXN added when missing) and reports the bodies it cannot see into', async () => {
    const report = await migrateMoneyOut({ cwd: copyOf('flat') });
    expect(report.changes.map(({ line, kind }) => `${line} ${kind}`)).toEqual(['6 body', '9 call', '9 body']);
    expect(report.changes[0]?.after).toBe(
      "core.transactions.moneyOut({ source_instrument_id, destination_instrument_id, transaction_request: { amount, description: 'Invoice', currency: 'MXN' } });",
    );
    expect(report.skipped.map(({ line, column }) => `${line}:${column}`)).toEqual(['22:62', '24:133']);
    expect(report.skipped[0]?.reason).toMatch(
      /^stored is a flat body \(its type has amount at the top level\): move amount, currency \("MXN"\), description and external_reference into transaction_request/,
    );
    expect(report.skipped[1]?.reason).toMatch(/^the body spreads \.\.\.base, which may carry flat money fields/);
  });
});

describe('the fixtures are real code', () => {
  it('after/ type-checks against @paykit/core-client (the flat fixture keeps bodies left for a hand edit, so it is not included)', async () => {
    await expect(
      run(path.join(WORKSPACE_BIN, 'tsc'), ['-p', path.join(FIXTURES, 'tsconfig.json')]),
    ).resolves.toBeDefined();
  });
});
