// 8. The ledger race and conflicts. Transfers are created through the API and settled by the
// platform (the sandbox delivers STATUS_UPDATE to the gateway) while the worker applies what the
// gateway stores; each transfer is recorded in the ledger 0–500 ms after its answer, as on a
// loaded network, by three recorders at once. Credits arrive while their receivables are
// registered, each registration late on its own the same way. On PostgreSQL all of it runs at
// once (the race); on PGlite, one process per folder, the recording follows the deliveries.
// Then conflicting duplicates are delivered to the gateway: a second MONEY_IN of one transaction
// with another amount, a second refund of one transfer, and a redelivery under one id_msg with
// another body. Every one is answered 2xx and recorded as a conflict; no settled transfer is left
// stuck, no owned credit orphan.
import { randomUUID } from 'node:crypto';
import { CORE_EVENT_PATHS, type CoreEventType } from '@paykit/contracts';
import {
  checkBooks,
  createTransactionRecorder,
  listItems,
  moneyFigures,
  registerReceivable,
  type CreatedTransactionLike,
} from '@paykit/ledger';
import type { Database } from '@paykit/store';
import { TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../src/load.ts';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { ACME_CLABE, countApplied, startStack, type Stack } from '../src/stack.ts';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';
const TRANSFERS = scaled(600, 60);
const CREDITS = scaled(600, 60);
const CONFLICTS_OF_EACH_KIND = scaled(20, 4);
const MAX_LATE_MS = scaled(500, 200);
const RECORDERS = 3;
const RECOVER_WITHIN_SECONDS = 60;

/** Runs `tasks` `width` at a time. */
async function inLanes<T>(
  items: readonly T[],
  width: number,
  run: (item: T, index: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: width }, async (_, lane) => {
      for (let i = lane; i < items.length; i += width) await run(items[i]!, i);
    }),
  );
}

describe('the ledger race and conflicts', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ name: 'ledgerrace' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('records late, applies at once: nothing stuck, nothing owned orphaned, every conflict recorded and answered 2xx', async () => {
    const startedAt = performance.now();
    const { sandbox, core } = stack;
    const ok = <T extends { status: number; body: unknown }>(answer: T, what: string) => {
      if (answer.status !== 200)
        throw new Error(`${what}: the sandbox answered ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body as Extract<T, { status: 200 }>['body'];
    };
    const racing = stack.storeKind === 'postgres';
    if (racing) await stack.startWorker({ WORKER_BATCH_SIZE: '50' });

    // What the recorders will record, each at its own late moment; on PGlite, after the deliveries.
    type Pending = { at: number } & (
      | { kind: 'record'; transaction: CreatedTransactionLike }
      | { kind: 'receivable'; id: string; amount: string }
    );
    const pending: Pending[] = [];
    const settled: string[] = [];
    const credits = new Map<string, string>();
    const late = () => performance.now() + Math.random() * MAX_LATE_MS;

    const recordAll = async (db: Database, lane: number) => {
      const record = createTransactionRecorder(db);
      let index = lane;
      while (producing || index < pending.length) {
        const next = pending[index];
        if (!next) {
          await sleep(5);
          continue;
        }
        index += RECORDERS;
        const wait = next.at - performance.now();
        if (wait > 0 && racing) await sleep(wait);
        if (next.kind === 'record') await record(next.transaction);
        else
          await registerReceivable(db, {
            id: next.id,
            beneficiaryAccount: ACME_CLABE,
            amount: next.amount,
            dueDate: '2030-12-31',
          });
      }
    };
    let producing = true;
    const recorders = racing
      ? Array.from({ length: RECORDERS }, (_, lane) => stack.withStore((db) => recordAll(db, lane)))
      : [];

    const transfersAt = stack.created.length;
    await inLanes(
      Array.from({ length: TRANSFERS }, (_, i) => i),
      6,
      async (i) => {
        const id = String(
          (
            await core.transactions.moneyOut({
              source_instrument_id: ACME,
              destination_instrument_id: BBVA,
              transaction_request: { amount: `${10 + i}.00`, currency: 'MXN' },
            })
          ).id,
        );
        const transaction = stack.created.find((t) => (t.transaction as { id?: string }).id === id);
        if (!transaction) throw new Error(`the client did not hand over transfer ${id} for recording`);
        pending.push({ at: late(), kind: 'record', transaction });
        ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
        settled.push(id);
      },
    );
    expect(stack.created.length - transfersAt).toBeGreaterThanOrEqual(TRANSFERS);
    await inLanes(
      Array.from({ length: CREDITS }, (_, i) => i),
      6,
      async (i) => {
        const amount = `${3000 + i}.${String(i % 100).padStart(2, '0')}`;
        pending.push({ at: late(), kind: 'receivable', id: `INV-RACE-${i}`, amount });
        const credit = ok(
          await sandbox.control.triggerIncomingSpei({
            body: { beneficiaryClabe: ACME_CLABE, amount, numericReference: String(6_000_000 + i) },
          }),
          'credit',
        );
        credits.set(credit.transactionId, `INV-RACE-${i}`);
      },
    );
    await stack.drainDeliveries(scaled(180_000, 90_000));

    // Conflicting duplicates, straight to the gateway as the platform would send them.
    const answers: number[] = [];
    const deliver = async (type: CoreEventType, idMsg: string, body: Record<string, unknown>) => {
      const response = await fetch(`${stack.gatewayUrl}${CORE_EVENT_PATHS[type]}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_SECRETS.coreWebhookToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id_msg: idMsg, msg_name: type, msg_date: '2026-11-21', body }),
      });
      answers.push(response.status);
      await response.arrayBuffer();
    };
    const moneyIn = (id: string, amount: string) => ({
      id,
      beneficiary_account: ACME_CLABE,
      payer_account: '002180001234567896',
      payer_name: 'PAGADOR EXTERNO SA DE CV',
      amount,
      transaction_date: '20261121',
      tracking_key: `EXT-${id.slice(0, 8)}`,
      sub_category: 'SPEI_CREDIT',
      numeric_reference: '7777777',
    });
    for (let i = 0; i < CONFLICTS_OF_EACH_KIND; i++) {
      const credit = randomUUID();
      await deliver('MONEY_IN', randomUUID(), moneyIn(credit, '777.77'));
      await deliver('MONEY_IN', randomUUID(), moneyIn(credit, '7777.70'));
      const original = settled[i]!;
      const refund = () => ({
        id: randomUUID(),
        amount: `${10 + i}.00`,
        transaction_date: '2026-11-21 12:00:00',
        sub_category: 'SPEI_REFUNDED_CREDIT',
        original_transaction_id: original,
        original_transaction_amount: `${10 + i}.00`,
        tracking_key: `RF-${randomUUID().slice(0, 8)}`,
      });
      await deliver('REFUND', randomUUID(), refund());
      await deliver('REFUND', randomUUID(), refund());
      const idMsg = randomUUID();
      const changed = randomUUID();
      await deliver('MONEY_IN', idMsg, moneyIn(changed, '100.00'));
      await deliver('MONEY_IN', idMsg, moneyIn(changed, '900.00'));
    }
    const conflictsMade = 3 * CONFLICTS_OF_EACH_KIND;
    const refundedIds = new Set(settled.slice(0, CONFLICTS_OF_EACH_KIND));

    producing = false;
    const factsEnd = performance.now();
    if (racing) {
      await Promise.all(recorders);
    } else {
      await stack.withStore(async (db) => {
        await Promise.all(Array.from({ length: RECORDERS }, (_, lane) => recordAll(db, lane)));
      });
      await stack.startWorker({ WORKER_BATCH_SIZE: '50' });
    }
    await stack.workerCaughtUp(scaled(120_000, 60_000));
    const secondsToRecover = (performance.now() - factsEnd) / 1000;

    const { items, conflictsRecorded, applied, parked, stored, books, figures } = await stack.withStore(async (db) => {
      const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
      return {
        items: await listItems(db, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' }),
        conflictsRecorded: await count('SELECT count(*)::text AS n FROM ledger_conflicts'),
        applied: await countApplied(db),
        parked: await count('SELECT count(*)::text AS n FROM ledger_parked_events'),
        stored: await count('SELECT count(*)::text AS n FROM webhook_events'),
        books: await checkBooks(db),
        figures: (await moneyFigures(db)).filter((row) => row.day === null),
      };
    });
    const byId = new Map(items.map((item) => [item.id, item] as const));
    // A transfer with a second refund reads "conflict" by design; every other settled one must read matched.
    const stuck = settled.filter((id) => !refundedIds.has(id) && byId.get(id)?.state !== 'matched').length;
    const orphaned =
      [...credits.keys()].filter((id) => byId.get(id)?.state !== 'matched').length +
      items.filter((item) => item.kind === 'status_update' && item.state === 'orphan').length;
    const refundedConflicts = [...refundedIds].filter((id) => byId.get(id)?.state === 'conflict').length;
    const non2xx = answers.filter((status) => status < 200 || status >= 300).length;

    recordScenario({
      scenario: 'ledger-race',
      sent: answers.length,
      acknowledged: answers.length - non2xx,
      stored,
      applied,
      lost: 0,
      duplicated: 0,
      badInputs: 0,
      fiveXx: answers.filter((status) => status >= 500).length,
      fiveXxAllowed: false,
      longestAnswerMs: 0,
      money: {
        stuck,
        orphaned,
        conflictsMade,
        conflictsRecorded,
        secondsToRecover,
        recoverWithinSeconds: RECOVER_WITHIN_SECONDS,
      },
      notes: [
        `${TRANSFERS} transfers settled and ${CREDITS} credits received while ${racing ? `the worker applied and ${RECORDERS} recorders recorded each 0–${MAX_LATE_MS} ms late (PostgreSQL)` : 'nothing else ran (PGlite: recorded after the deliveries)'}`,
        `${conflictsMade} conflicting duplicates delivered (${CONFLICTS_OF_EACH_KIND} each: a credit with another amount, a second refund, a redelivery with another body), ${non2xx} not answered 2xx; ${conflictsRecorded} conflicts recorded; ${refundedConflicts} of ${CONFLICTS_OF_EACH_KIND} doubly refunded transfers read "conflict"`,
        `${stuck} settled transfers stuck, ${orphaned} owned items orphan, ${parked} events parked; the ledger caught up ${secondsToRecover.toFixed(1)} s after the last fact`,
        `books ${books.ok ? 'balanced' : 'BROKEN'}: ${books.postingsChecked} postings, debits ${books.debits} = credits ${books.credits}, ${books.itemsChecked} items as their facts say; ${figures.map((f) => `${f.direction} ${f.figure} ${f.amount}`).join(', ')}`,
      ],
      durationMs: performance.now() - startedAt,
    });
    expect(non2xx).toBe(0);
    // The recorders and the worker wrote the journal between them: every posting balances, every item is as its facts say.
    expect(books).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
    expect(stuck).toBe(0);
    expect(orphaned).toBe(0);
    expect(parked).toBe(0);
    expect(conflictsRecorded).toBe(conflictsMade);
    expect(refundedConflicts).toBe(CONFLICTS_OF_EACH_KIND);
    expect(secondsToRecover).toBeLessThanOrEqual(RECOVER_WITHIN_SECONDS);
  });
});
