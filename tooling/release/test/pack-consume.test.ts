// Pack-and-consume: every publishable package is built and packed with `pnpm pack`, each tarball
// is audited, and the tarballs are installed with npm into a fresh project outside the workspace
// (their dependencies come from the registry). There every entry point is imported under Node 24,
// a consumer file is type-checked against the packed types, the codemod's bin runs, and the
// packed core client calls a sandbox.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSandboxProcess, type SandboxProcess } from '@paykit/testing/sandbox';
import { INTERNAL_TRANSACTION_DEPRECATION } from '@paykit/codemods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, run, runOk } from '../src/exec.ts';
import { npmInstall, writeConsumerProject } from '../src/consumer.ts';
import { auditTarball, packPublishable, withBuiltPackages, type PackedPackage } from '../src/pack.ts';
import { coreSandboxEnv } from './core-sandbox.ts';

const CONSUMER_FILES = path.join(import.meta.dirname, 'consumer');
let work = '';
let consumer = '';
let packed: PackedPackage[] = [];

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'paykit-pack-'));
  consumer = path.join(work, 'consumer');
  packed = await withBuiltPackages(REPO_ROOT, () => packPublishable(REPO_ROOT, path.join(work, 'tarballs')));
  const dependencies = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  // skipLibCheck off: the packed .d.ts files are checked too.
  writeConsumerProject(consumer, {
    name: 'paykit-consumer',
    dependencies,
    files: ['consumer.ts'],
    skipLibCheck: false,
  });
  cpSync(CONSUMER_FILES, consumer, { recursive: true });
  await npmInstall(consumer);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// Each test runs a real tool (tar, node, tsc) over the installed tarballs: seconds each on a busy
// machine, so each has its own timeout rather than vitest's 5 s default.
describe('the packed packages', () => {
  it('packs every publishable package, at its released version', () => {
    expect(packed.map((p) => p.name)).toEqual([
      '@paykit/billpay-client',
      '@paykit/cash-client',
      '@paykit/codemods',
      '@paykit/contracts',
      '@paykit/core-client',
      '@paykit/direct-debit-client',
      '@paykit/domain',
      '@paykit/gift-cards-client',
      '@paykit/ledger',
      '@paykit/lottery-client',
      '@paykit/remittance-client',
      '@paykit/runtime',
      '@paykit/store',
    ]);
    // A package with no CHANGELOG is new, at 0.0.0 until its pending changeset releases it (versioning.test.ts).
    const released = packed.filter((p) =>
      existsSync(path.join(REPO_ROOT, 'packages', p.name.slice('@paykit/'.length), 'CHANGELOG.md')),
    );
    for (const p of released) expect(p.version, p.name).not.toBe('0.0.0');
  });

  it('hold built JavaScript and types only: no workspace range, no @paykit/source, no TypeScript source, every import resolvable', async () => {
    const problems: string[] = [];
    for (const p of packed) problems.push(...(await auditTarball(p.tarball, path.join(work, 'unpacked', p.name))));
    expect(problems).toEqual([]);
  });

  it('every entry point imports under Node 24 as ESM', async () => {
    const { stdout } = await runOk(process.execPath, ['import-all.mjs'], { cwd: consumer });
    const counts = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(counts)).toHaveLength(31); // every entry point of every package, @paykit/codemods/deprecation, @paykit/ledger/migrations, @paykit/runtime/errors and @paykit/domain included
    for (const [specifier, count] of Object.entries(counts)) {
      // ./paths holds only types: an empty module at run time.
      if (!specifier.endsWith('/paths')) expect(count, specifier).toBeGreaterThan(0);
    }
  });

  it('a consumer type-checks against the packed types, and the mistakes in it are refused', async () => {
    const tsc = await run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], {
      cwd: consumer,
    });
    // skipLibCheck is off, so the packed .d.ts files are checked too. @ts-rest/core 3.53.0-rc.1's
    // own declarations still name zod 3 types (its zod 4 support is typed through Standard
    // Schema, docs/development.md, "Toolchain"): those errors are its own, and only those are tolerated.
    const errors = (tsc.stdout + tsc.stderr)
      .split('\n')
      .filter((line) => /error TS\d+/.test(line) && !line.startsWith('node_modules/@ts-rest/core/'));
    expect(errors).toEqual([]);
    expect(tsc.stdout).not.toContain('consumer.ts');
  });

  it('the codemod bin runs from the installed package', async () => {
    writeFileSync(
      path.join(consumer, 'legacy.ts'),
      "import { createCoreClient } from '@paykit/core-client';\nconst core = createCoreClient({ environment: 'sandbox', clientId: 'c', apiKey: 'k' });\nexport const send = (body: { source_instrument_id: string; destination_instrument_id: string; amount: string }) => core.transactions.internalTransaction(body);\n",
    );
    // The body's type is flat: renamed, and reported for a hand edit (exit 1).
    const result = await run(path.join(consumer, 'node_modules/.bin/paykit-codemod'), ['money-out', 'legacy.ts'], {
      cwd: consumer,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(INTERNAL_TRANSACTION_DEPRECATION);
    expect(result.stdout).toContain(
      '+export const send = (body: { source_instrument_id: string; destination_instrument_id: string; amount: string }) => core.transactions.moneyOut(body);',
    );
    expect(result.stdout).toContain('body is a flat body');
  });

  describe('against a sandbox', () => {
    let sandbox: SandboxProcess;
    beforeAll(async () => {
      sandbox = await startSandboxProcess({ manualClock: false });
    });
    afterAll(async () => sandbox?.close());

    it('the packed core client moves money on both routes and warns once about internal_transaction', async () => {
      const env = await coreSandboxEnv(sandbox);
      const { stdout } = await runOk(process.execPath, ['call-sandbox.mjs'], { cwd: consumer, env });
      const answer = JSON.parse(stdout) as {
        API_VERSION: string;
        routes: string[];
        warnings: { name: string; code: string; message: string }[];
      };
      expect(answer.API_VERSION).toBe(
        (parse(readFileSync(path.join(REPO_ROOT, 'specs/core.yaml'), 'utf8')) as { info: { version: string } }).info
          .version,
      );
      expect(answer.routes).toEqual(['INT_DEBIT', 'SPEI_DEBIT', 'INT_DEBIT']);
      expect(answer.warnings).toEqual([
        {
          name: 'DeprecationWarning',
          code: 'PAYKIT_CORE_INTERNAL_TRANSACTION',
          message: INTERNAL_TRANSACTION_DEPRECATION,
        },
      ]);
    });
  });
});
