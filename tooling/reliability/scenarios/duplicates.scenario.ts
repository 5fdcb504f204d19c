// 3. Duplicates and disorder. The sandbox sends every event 1–5 times, four at a time, in shuffled
// order, for a mix of money flows: SPEI transfers out settled, rejected, and settled then
// reversed; credits in, half of them expected (a receivable) and half not. Each id must be stored
// once and applied once, and every transaction must end in its expected state in the ledger.
import { createTransactionRecorder, listItems, registerReceivable, type ReconItem } from '@paykit/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDeliveries, deliveryFigures } from '../src/audit.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { ACME_CLABE, countApplied, startStack, type Stack } from '../src/stack.ts';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';
const TRANSFERS = scaled(90, 24);
const CREDITS = scaled(90, 24);

type Fate = 'settled' | 'rejected' | 'reversed';
const FATES: readonly Fate[] = ['settled', 'rejected', 'reversed'];
const EXPECTED: Record<Fate, Partial<ReconItem>> = {
  settled: { product: 'spei_out', state: 'matched', status: 'LIQUIDATED' },
  rejected: { product: 'spei_out', state: 'matched', status: 'REJECTED' },
  reversed: { product: 'spei_out', state: 'refunded', status: 'REFUNDED' },
};

describe('duplicates and disorder', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ name: 'dupes' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('every event sent 1–5 times, concurrently and shuffled: each stored once, applied once, every transaction in its expected state', async () => {
    const startedAt = performance.now();
    const { sandbox, core } = stack;
    const ok = <T extends { status: number; body: unknown }>(answer: T, what: string) => {
      if (answer.status !== 200)
        throw new Error(`${what}: the sandbox answered ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body as Extract<T, { status: 200 }>['body'];
    };
    ok(
      await sandbox.control.setFaults({
        body: { deliveries: { duplicates: { min: 1, max: 5 }, reorder: true, concurrency: 4 } },
      }),
      'faults',
    );

    const expected = new Map<string, Partial<ReconItem>>();
    for (let i = 0; i < TRANSFERS; i++) {
      const fate = FATES[i % FATES.length]!;
      const id = String(
        (
          await core.transactions.moneyOut({
            source_instrument_id: ACME,
            destination_instrument_id: BBVA,
            transaction_request: { amount: `${10 + i}.00`, currency: 'MXN' },
          })
        ).id,
      );
      if (fate === 'rejected')
        ok(await sandbox.control.triggerSpeiReject({ params: { transactionId: id }, body: {} }), 'reject');
      else ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
      if (fate === 'reversed') {
        const reversal = ok(
          await sandbox.control.triggerSpeiReverse({ params: { transactionId: id }, body: {} }),
          'reverse',
        ).refundTransactionId;
        expected.set(reversal, { product: 'reversal', state: 'matched' });
      }
      expected.set(id, EXPECTED[fate]);
    }
    const receivables: { id: string; amount: string; reference: string }[] = [];
    for (let i = 0; i < CREDITS; i++) {
      const amount = `${2000 + i}.00`;
      const reference = String(5_000_000 + i);
      const credit = ok(
        await sandbox.control.triggerIncomingSpei({
          body: { beneficiaryClabe: ACME_CLABE, amount, numericReference: reference },
        }),
        'credit',
      );
      const isExpected = i % 2 === 0;
      if (isExpected) receivables.push({ id: `INV-${i}`, amount, reference });
      expected.set(
        credit.transactionId,
        isExpected
          ? { product: 'spei_in', state: 'matched', note: `receivable INV-${i} (by its reference)` }
          : { product: 'spei_in', state: 'orphan' },
      );
    }
    await stack.drainDeliveries(scaled(180_000, 90_000));
    const stored = await stack.storedEvents();
    const audit = auditDeliveries(await stack.deliveries(), stored);

    // What we sent and expect, recorded as the apps record it; then the worker applies.
    await stack.withStore(async (db) => {
      const record = createTransactionRecorder(db);
      for (const transaction of stack.created) await record(transaction);
      for (const receivable of receivables)
        await registerReceivable(db, { ...receivable, beneficiaryAccount: ACME_CLABE, dueDate: '2030-12-31' });
    });
    await stack.startWorker({ WORKER_BATCH_SIZE: '25' });
    await stack.workerCaughtUp(scaled(120_000, 60_000));
    const { items, effects, applied, parked } = await stack.withStore(async (db) => {
      const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
      return {
        items: await listItems(db, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' }),
        // Each applied event leaves one row of effect, keyed by the event: more would be a double application.
        effects: {
          STATUS_UPDATE: [
            await count('SELECT count(*)::text AS n FROM ledger_status_history'),
            await count('SELECT count(DISTINCT event_seq)::text AS n FROM ledger_status_history'),
          ],
          MONEY_IN: [
            await count('SELECT count(*)::text AS n FROM ledger_credits'),
            await count('SELECT count(DISTINCT event_seq)::text AS n FROM ledger_credits'),
          ],
          REFUND: [
            await count('SELECT count(*)::text AS n FROM ledger_refunds'),
            await count('SELECT count(DISTINCT event_seq)::text AS n FROM ledger_refunds'),
          ],
        },
        applied: await countApplied(db),
        parked: await count('SELECT count(*)::text AS n FROM ledger_parked_events'),
      };
    });
    const byId = new Map(items.map((item) => [item.id, item] as const));
    const wrong = [...expected].filter(([id, want]) => {
      const item = byId.get(id);
      return !item || Object.entries(want).some(([field, value]) => item[field as keyof ReconItem] !== value);
    });
    const storedOf = (type: string) => stored.filter((event) => event.eventType === type).length;
    const doubleApplied = Object.values(effects).reduce((sum, [rows, events]) => sum + (rows! - events!), 0);
    recordScenario(
      deliveryFigures('duplicates', audit, {
        startedAt,
        applied,
        notes: [
          `${TRANSFERS} transfers out (settled, rejected, reversed) and ${CREDITS} credits in, each delivery sent 1–5 times, shuffled, 4 at a time`,
          `${expected.size} transactions checked: ${expected.size - wrong.length} in their expected state, ${wrong.length} not; ${doubleApplied} effects applied twice, ${parked} parked`,
        ],
      }),
    );
    expect(audit.lost).toBe(0);
    expect(audit.duplicated).toBe(0);
    expect(audit.fiveXx).toBe(0);
    // Duplicates were really sent: more deliveries than events.
    expect(audit.attempts).toBeGreaterThan(audit.sent);
    expect(applied).toBe(stored.length);
    expect(parked).toBe(0);
    expect(doubleApplied).toBe(0);
    expect(effects.STATUS_UPDATE[1]).toBe(storedOf('STATUS_UPDATE'));
    expect(effects.MONEY_IN[1]).toBe(storedOf('MONEY_IN'));
    expect(effects.REFUND[1]).toBe(storedOf('REFUND'));
    expect(wrong.map(([id, want]) => ({ id, want, got: byId.get(id) }))).toEqual([]);
  });
});
