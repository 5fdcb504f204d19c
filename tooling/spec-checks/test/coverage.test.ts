import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { checkCoverage, checkSpecs, loadInventory, type Inventory } from '../src/index.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../../..');
const SPECS = path.join(ROOT, 'specs');
const CLI = path.join(ROOT, 'tooling/spec-checks/src/cli.ts');

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- free-form spec edits in tests

let inventory: Inventory;
const specOf = async (product: string): Promise<Doc> =>
  parse(await readFile(path.join(SPECS, `${product}.yaml`), 'utf8'));
const problemsAfter = async (product: string, edit: (doc: Doc) => void) => {
  const doc = await specOf(product);
  edit(doc);
  const productInventory = inventory.products[product];
  if (!productInventory) throw new Error(`no inventory for ${product}`);
  return checkCoverage(doc, productInventory).findings.map((f) => `[${f.category}] ${f.where}: ${f.problem}`);
};

beforeAll(async () => {
  inventory = await loadInventory();
});

describe('the reference-coverage check', () => {
  it('finds every operation, resource, event and enum value of the reference in the committed specs', async () => {
    const report = await checkSpecs(SPECS, inventory);
    const findings = Object.values(report.products).flatMap((r) => r.findings);
    expect(findings).toEqual([]);
    for (const tally of Object.values(report.totals)) expect(tally.found).toBe(tally.expected);
    expect(report.totals.operations.expected).toBeGreaterThanOrEqual(20);
    expect(report.totals.events.expected).toBe(9);
  });

  it('fails when an operation is deleted', async () => {
    const problems = await problemsAfter('core', (doc) => delete doc.paths['/v1/transactions/penny_validation'].post);
    expect(problems).toContain(
      '[operations] POST /v1/transactions/penny_validation (createPennyValidation): operation missing',
    );
  });

  it('fails when a status code of the Errors section is missing from an operation', async () => {
    const problems = await problemsAfter(
      'core',
      (doc) => delete doc.paths['/v1/transactions/penny_validation'].post.responses['409'],
    );
    expect(problems).toContain(
      '[operations] POST /v1/transactions/penny_validation (createPennyValidation): response 409 missing',
    );
  });

  it('fails when the core service is given a 422, which it never returns', async () => {
    const problems = await problemsAfter('core', (doc) => {
      doc.paths['/v1/transactions/money_out'].post.responses['422'] = { description: 'no' };
    });
    expect(problems.some((p) => p.includes('declares 422'))).toBe(true);
  });

  it('fails when a field is dropped, or made required where the reference does not', async () => {
    const dropped = await problemsAfter(
      'core',
      (doc) => delete doc.components.schemas.AuthenticationToken.properties.expires_at,
    );
    expect(dropped).toContain('[resources] AuthenticationToken.expires_at: property missing');
    const invented = await problemsAfter('core', (doc) =>
      doc.components.schemas.PennyValidationRequest.required.push('external_reference'),
    );
    expect(invented).toContain(
      '[resources] PennyValidationRequest.external_reference: the reference does not make it required',
    );
  });

  it('fails when a documented pattern changes or an enum loses or gains a value', async () => {
    const pattern = await problemsAfter('core', (doc) => {
      doc.components.schemas.PennyValidationRequest.properties.external_reference.pattern = '^\\d{1,8}$';
    });
    expect(pattern.some((p) => p.startsWith('[resources] PennyValidationRequest.external_reference: pattern'))).toBe(
      true,
    );
    const banks = await problemsAfter('direct-debit', (doc) => {
      doc.components.schemas.Bank.enum = doc.components.schemas.Bank.enum.filter((b: string) => b !== 'mx_sabadell');
    });
    expect(banks.some((p) => p.includes('mx_sabadell'))).toBe(true);
    const extra = await problemsAfter('direct-debit', (doc) => doc.components.schemas.Bank.enum.push('mx_nubank'));
    expect(extra.some((p) => p.includes('values the reference does not list: mx_nubank'))).toBe(true);
  });

  it('fails when an event or a receiver answer is missing', async () => {
    const noEvent = await problemsAfter('cash', (doc) => delete doc.webhooks['webhook.reversed.success']);
    expect(noEvent).toContain('[events] webhook.reversed.success: webhooks entry (post) missing');
    const no422 = await problemsAfter('core', (doc) => delete doc.webhooks.MONEY_IN.post.responses['422']);
    expect(no422).toContain('[events] MONEY_IN: receiver answer 422 missing');
  });

  it('fails when a "not shown" of the reference is not recorded', async () => {
    const problems = await problemsAfter('remittance', (doc) => {
      const strip = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(strip);
        else if (node && typeof node === 'object') {
          delete (node as Doc)['x-not-shown'];
          Object.values(node).forEach(strip);
        }
      };
      strip(doc);
    });
    expect(problems).toContain('[not shown] declares no authentication scheme: not recorded in any x-not-shown');
  });

  describe('the command, on a copy of the specs', () => {
    let copy: string;
    beforeAll(async () => {
      copy = await mkdtemp(path.join(tmpdir(), 'paykit-specs-'));
      await cp(SPECS, copy, { recursive: true });
    });
    afterAll(() => rm(copy, { recursive: true, force: true }));

    it('passes on the copy as it is, reporting 100%', async () => {
      const { stdout } = await run(process.execPath, [CLI, '--specs', copy]);
      expect(stdout).toMatch(
        /operations (\d+)\/\1 \(100%\), resources (\d+)\/\2 \(100%\), events 9\/9 \(100%\), enum values (\d+)\/\3 \(100%\); 0 problem/,
      );
    });

    it('exits 1 and names the operation once one is deleted from a spec', async () => {
      const file = path.join(copy, 'direct-debit.yaml');
      const doc = parse(await readFile(file, 'utf8'));
      delete doc.paths['/instruments'];
      await writeFile(file, stringify(doc));
      const failure = await run(process.execPath, [CLI, '--specs', copy]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain(
        'direct-debit: [operations] GET /instruments (listInstruments): operation missing',
      );
    });
  });
});

describe('documentation sources', () => {
  it('every x-source of the specs is the https address of a page; anything else is a finding', async () => {
    expect(await problemsAfter('core', () => {})).toEqual([]);
    const problems = await problemsAfter('core', (doc) => {
      doc.paths['/v1/transactions/money_out'].post['x-source'] = ['the idempotency guide'];
    });
    expect(problems).toEqual([
      '[sources] x-source: "the idempotency guide" is not the https address of a documentation page',
    ]);
  });
});
