// The CLI recorder. Ops move money with `paykit` (money-out by SPEI and to a platform account,
// penny validations) against the sandbox; the sandbox settles them and sends its status updates
// and CEP results to the gateway; the worker applies them. Every transfer the CLI recorded must
// end matched (none stuck, none orphan), as the scenario's own transfers do. For comparison, some
// are sent with --no-record: their status updates stay orphans, which is what every CLI transfer
// did before the CLI recorded. And one money-out with no reachable ledger must move nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listItems, type ReconItem } from '@paykit/ledger';
import { runNode } from '@paykit/testing/run-node';
import { record } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { countApplied, startStack, type Stack } from '../src/stack.ts';

const CLI_MAIN = path.resolve(import.meta.dirname, '../../../apps/scripts/src/main.ts');
const ACME = '66666666-6666-4666-8666-000000000001';
const BODEGA = '66666666-6666-4666-8666-000000000002';
const BBVA = '66666666-6666-4666-8666-000000000004';
const SPEI = scaled(8, 2);
const INTERNAL = scaled(4, 1);
const PENNIES = scaled(4, 1);
const UNRECORDED = scaled(4, 1);

describe('the CLI recorder', () => {
  let stack: Stack;
  let home: string;
  beforeAll(async () => {
    stack = await startStack({ name: 'cli_recorder' });
    home = mkdtempSync(path.join(tmpdir(), 'paykit-rel-cli-'));
  });
  afterAll(async () => {
    await stack?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const paykit = async (args: string[], extra: Record<string, string> = {}) => {
    const env = {
      ...process.env,
      DATABASE_URL: '',
      ...stack.storeEnv,
      PAYKIT_SANDBOX_URL: stack.sandbox.url,
      PAYKIT_CONFIG: '',
      HOME: home,
      ...extra,
    };
    const run = await runNode(CLI_MAIN, ['--json', ...args], { name: 'paykit', env });
    record('paykit output', run.stdout + run.stderr);
    return run;
  };
  const transfer = async (args: string[]): Promise<string> => {
    const run = await paykit(args);
    if (run.code !== 0) throw new Error(`paykit ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return String((JSON.parse(run.stdout) as { id: unknown }).id);
  };
  const transfersSent = async () => {
    const counters = await stack.sandbox.control.getCounters();
    if (counters.status !== 200) throw new Error('cannot read the sandbox counters');
    return Object.entries(counters.body.requests as Record<string, number>)
      .filter(([operation]) => /transactions\/(money_out|internal_transaction|penny_validation)$/.test(operation))
      .reduce((sum, [, n]) => sum + n, 0);
  };

  it('every transfer the CLI records ends matched; none stuck, none orphan; no ledger, no transfer', async () => {
    const startedAt = performance.now();
    const { sandbox } = stack;
    // A PGlite folder serves one process: the CLI records while the gateway is down (its
    // deliveries are retried); on PostgreSQL they share the store, as in production.
    if (stack.storeKind === 'pglite') await stack.stopGateway();

    const settled: string[] = [];
    const expected = new Map<string, Partial<ReconItem>>();
    for (let i = 0; i < SPEI; i++) {
      const id = await transfer(['money-out', '--source', ACME, '--destination', BBVA, '--amount', `${100 + i}.00`]);
      settled.push(id);
      expected.set(id, { kind: 'outbound', state: 'matched', status: 'LIQUIDATED' });
    }
    for (let i = 0; i < INTERNAL; i++) {
      expected.set(
        await transfer(['money-out', '--source', ACME, '--destination', BODEGA, '--amount', `${20 + i}.00`]),
        { kind: 'outbound', state: 'matched', status: 'LIQUIDATED' },
      );
    }
    const pennies: string[] = [];
    for (let i = 0; i < PENNIES; i++) {
      const id = await transfer([
        'penny-validate',
        '--source',
        ACME,
        '--destination',
        BBVA,
        '--reference',
        String(1000 + i),
      ]);
      pennies.push(id);
      expected.set(id, { kind: 'outbound', state: 'matched' });
    }
    const unrecorded: string[] = [];
    for (let i = 0; i < UNRECORDED; i++)
      unrecorded.push(
        await transfer([
          'money-out',
          '--source',
          ACME,
          '--destination',
          BBVA,
          '--amount',
          `${500 + i}.00`,
          '--no-record',
        ]),
      );

    const before = await transfersSent();
    const refused = await paykit(['money-out', '--source', ACME, '--destination', BBVA, '--amount', '9.00'], {
      DATABASE_URL: 'postgres://paykit@127.0.0.1:9/paykit',
    });
    const refusedMoved = (await transfersSent()) - before;

    if (!stack.gateway()) await stack.startGateway();
    for (const id of [...settled, ...unrecorded]) {
      const answer = await sandbox.control.triggerSpeiSettle({ params: { transactionId: id }, body: {} });
      if (answer.status !== 200) throw new Error(`settle ${id}: ${answer.status}`);
    }
    for (const id of pennies) {
      const answer = await sandbox.control.triggerCepOutcome({
        params: { transactionId: id },
        body: { status: 'COMPLETED' },
      });
      if (answer.status !== 200) throw new Error(`CEP ${id}: ${answer.status}`);
    }
    // Internal transfers settle on the sandbox clock (near-real-time): move it past that.
    const clock = await sandbox.control.advanceClock({ body: { seconds: 60 } });
    if (clock.status !== 200) throw new Error(`advance the clock: ${clock.status}`);
    await stack.drainDeliveries(scaled(180_000, 90_000));
    const stored = await stack.storedEvents();
    const audit = auditDeliveries(await stack.deliveries(), stored);
    await stack.startWorker();
    await stack.workerCaughtUp(scaled(120_000, 60_000));
    const { items, applied } = await stack.withStore(async (db) => ({
      items: await listItems(db, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' }),
      applied: await countApplied(db),
    }));

    const byId = new Map(items.map((item) => [item.id, item]));
    const off = [...expected]
      .filter(([id, want]) => {
        const item = byId.get(id);
        return !item || Object.entries(want).some(([key, value]) => item[key as keyof ReconItem] !== value);
      })
      .map(([id, want]) => ({ id, want, got: byId.get(id) ?? 'no item' }));
    const stuck = settled.filter((id) => byId.get(id)?.status !== 'LIQUIDATED').length;
    const orphaned = [...expected.keys()].filter(
      (id) => byId.get(id)?.state === 'orphan' || byId.get(id)?.kind === 'status_update',
    ).length;
    const unrecordedOrphans = unrecorded.filter((id) => byId.get(id)?.state === 'orphan').length;
    const matched = [...expected.keys()].filter((id) => byId.get(id)?.state === 'matched').length;
    const figures = deliveryFigures('cli-recorder', audit, {
      startedAt,
      applied,
      notes: [
        `the CLI recorded ${expected.size} transfers (${SPEI} SPEI, ${INTERNAL} internal, ${PENNIES} penny validations): ${matched} matched (${Math.round((matched / expected.size) * 100)}%), ${off.length} not as expected`,
        `${UNRECORDED} sent with --no-record: ${unrecordedOrphans} of their status updates orphan (every CLI transfer's fate before the CLI recorded)`,
        `with no reachable ledger: exit ${refused.code}, ${refusedMoved} transfer(s) reached the sandbox`,
      ],
    });
    recordScenario({ ...figures, badInputs: 1, money: { stuck, orphaned } });

    expect(off).toEqual([]);
    expect({ stuck, orphaned }).toEqual({ stuck: 0, orphaned: 0 });
    expect(unrecordedOrphans).toBe(UNRECORDED);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--no-record/);
    expect(refusedMoved).toBe(0);
    expect(audit.lost).toBe(0);
  }, 600_000);
});
