// The books. Every kind of money fact the journal posts, driven through the real stack (the
// sandbox as the platform, the gateway, the worker) in awkward orders, then every money figure the
// console shows compared with sums taken straight from the journal and with what the scenario
// itself sent:
// - transfers sent with the write-ahead recorder, settled, some rejected, some reversed by the
//   network (REFUND of our transfer: out:reversed, never money in);
// - transfers whose ledger write fails after the platform moved them (the store stops answering the
//   recorder once the intent is written): listed as unresolved, then attached by the platform's
//   reversal (REFUND naming the reference and amount) or resolved by replaying the request with the
//   same Idempotency-Key;
// - credits paying receivables registered before or after them, a receivable paid in part by two
//   credits, one never paid;
// - refunds of credits arriving after their credit and before it, and a second refund of one
//   credit (a conflict that books nothing);
// - credits for an account the gateway does not know, answered 202 and held, released by an
//   operator after the account is added (the gateway's admin replay, then releaseHeld), one left held;
// - three daily reports of one day imported out of order, their REPORT events before and after the
//   imports: the newest by its own time wins, whatever the names say.
// - direct debit charges created through the sandbox's API and recorded, confirmed by the
//   platform's charge_result, one declined, and chargebacks: a declined charge_result after the
//   confirmation, delivered straight to the gateway in the documented form (the sandbox gives a
//   charge one outcome and refuses a second with 409, so it cannot send a chargeback itself).
import { randomBytes, randomUUID } from 'node:crypto';
import { CORE_EVENT_PATHS, DIRECT_DEBIT_WEBHOOK_PATH, formatReportCsv, type CoreEventType } from '@paykit/contracts';
import { createCoreClient, TransactionRecordingError, type CoreClient } from '@paykit/core-client';
import {
  checkBooks,
  conflictCounts,
  createChargeRecorder,
  createTransactionRecorder,
  figureOf,
  importReport,
  listHeld,
  listItems,
  listReleases,
  listUnresolvedIntents,
  moneyFigures,
  pageReceivables,
  registerReceivable,
  releaseHeld,
  type MoneyFigure,
  type NewReceivable,
} from '@paykit/ledger';
import { createAccountStore, StoreUnavailableError, type Database } from '@paykit/store';
import { seededClients } from '@paykit/testing/seeded-clients';
import { declareSecret, TEST_SECRETS } from '@paykit/testing/secret-audit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordScenario } from '../src/report.ts';
import { scaled } from '../src/scale.ts';
import { ACME_CLABE, countApplied, startStack, type Stack } from '../src/stack.ts';

const ACME = '66666666-6666-4666-8666-000000000001';
const BBVA = '66666666-6666-4666-8666-000000000004';
/** A platform account of the seed the gateway is not told about until the operator adds it. */
const BODEGA_CLABE = '646180000000000025';
const CLIENT_ID = '11111111-1111-4111-8111-111111111111';
const DD_ORG = '77777777-7777-4777-8777-000000000001';
const DD_API_KEY = 'dd_sandbox_key_acme_00000000000001';

const TRANSFERS = scaled(120, 8);
const REJECTED = 2;
const REVERSED = scaled(20, 2);
const STALLED = scaled(10, 2);
const CREDITS = scaled(120, 8);
const REFUNDED_AFTER = scaled(20, 2);
const SECOND_REFUNDS = scaled(10, 1);
const REFUNDED_BEFORE = scaled(20, 2);
const HELD = scaled(10, 3);
const CHARGES = scaled(40, 4);
const CHARGED_BACK = scaled(10, 1);
const WIDE = { from: '2000-01-01', to: '2100-12-31' };

/** Integer centavos of a two-decimal amount, and back: no float anywhere money is added. */
const cents = (amount: string) => {
  const negative = amount.startsWith('-');
  const [whole, fraction = ''] = amount.replace(/^[-+]/, '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return negative ? -value : value;
};
const amountOf = (c: number) =>
  `${c < 0 ? '-' : ''}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;
/** A figure as the console prints it ("$1,234.56", "-$3.00") back to a decimal string. */
const printed = (text: string) => amountOf(cents(text.replace(/[^0-9.-]/g, '') || '0'));

/** A console table (data-table="name"): its headers and its rows' cell texts (a cell's tags, a day's <time>, dropped). */
function tableOf(html: string, name: string): { headers: string[]; rows: string[][] } {
  const at = html.indexOf(`data-table="${name}"`);
  if (at < 0) throw new Error(`the console shows no table ${name}`);
  const table = html.slice(at, html.indexOf('</table>', at));
  const headers = [...table.slice(0, table.indexOf('</thead>')).matchAll(/<th>([^<]*)<\/th>/g)].map((m) => m[1]!);
  const rows = table
    .slice(table.indexOf('<tbody>'))
    .split('<tr>')
    .slice(1)
    .map((row) => [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]!.replace(/<[^>]*>/g, '')));
  return { headers, rows };
}

/** Mexico City local time (UTC-6, no DST), "YYYY-MM-DD HH:MM:SS". */
const mexicoCity = (at: Date) => new Date(at.getTime() - 6 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

/** The Database, until `stalled` is set: then every statement fails as a store that stopped answering. */
function stallable(db: Database): { db: Database; stall(on: boolean): void } {
  let stalled = false;
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (stalled && (prop === 'query' || prop === 'transaction'))
        return () => Promise.reject(new StoreUnavailableError('the store stopped answering'));
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, stall: (on) => void (stalled = on) };
}

describe('the books', () => {
  let stack: Stack;
  /** The Authorization value the direct debit portal sends with each delivery: random, a secret. */
  const ddToken = `ddw_${randomBytes(24).toString('hex')}`;
  beforeAll(async () => {
    declareSecret(ddToken);
    stack = await startStack({
      name: 'books',
      gatewayEnv: { GATEWAY_UNKNOWN_ACCOUNT: 'hold', GATEWAY_DIRECT_DEBIT_TOKENS: ddToken },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('states every figure as the journal sums it: refunds, reversals, held and released credits, receivables, reports out of order, a failed ledger write', async () => {
    const startedAt = performance.now();
    const { sandbox } = stack;
    const pglite = stack.storeKind === 'pglite';
    const seeded = (await seededClients(sandbox)).core;
    const ok = <T extends { status: number; body: unknown }>(answer: T, what: string) => {
      if (answer.status !== 200)
        throw new Error(`${what}: the sandbox answered ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body as Extract<T, { status: 200 }>['body'];
    };
    /** Reads or writes the store; on PGlite (one process per folder) the gateway is started again after, if asked. */
    const onStore = async <T>(use: (db: Database) => Promise<T>, gatewayAfter = true): Promise<T> => {
      const result = await stack.withStore(use);
      if (pglite && gatewayAfter) await stack.startGateway();
      return result;
    };
    /** Every delivery made and every stored event applied by the worker (on PGlite, with the gateway stopped). */
    const applied = async () => {
      await stack.drainDeliveries(scaled(120_000, 60_000));
      if (pglite) await stack.stopGateway();
      if (!stack.worker()) await stack.startWorker({ WORKER_BATCH_SIZE: '50' });
      await stack.workerCaughtUp(scaled(120_000, 60_000));
    };
    const answers: number[] = [];
    const deliverCharge = async (body: Record<string, unknown>) => {
      const response = await fetch(`${stack.gatewayUrl}${DIRECT_DEBIT_WEBHOOK_PATH}`, {
        method: 'POST',
        headers: { authorization: ddToken, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      answers.push(response.status);
      await response.arrayBuffer();
    };
    const deliver = async (type: CoreEventType, body: Record<string, unknown>) => {
      const response = await fetch(`${stack.gatewayUrl}${CORE_EVENT_PATHS[type]}`, {
        method: 'POST',
        headers: {
          ...(type === 'REPORT' ? {} : { authorization: `Bearer ${TEST_SECRETS.coreWebhookToken}` }),
          'content-type': 'application/json',
        },
        body: JSON.stringify(
          type === 'REPORT' ? body : { id_msg: randomUUID(), msg_name: type, msg_date: '2026-11-21', body },
        ),
      });
      answers.push(response.status);
      await response.arrayBuffer();
    };
    const clockNow = async () => new Date(ok(await sandbox.control.getClock(), 'clock').now);

    // What the scenario expects, in centavos, from what it sends.
    const expected = { inSettled: 0, inReturned: 0, inHeld: 0, outSettled: 0, outReturned: 0 };
    const open = new Map<string, number>();
    const receivables: { before: NewReceivable[]; after: NewReceivable[] } = { before: [], after: [] };
    const receivable = (when: 'before' | 'after', r: NewReceivable) => {
      receivables[when].push(r);
      open.set(r.id, cents(r.amount));
    };

    // The gateway knows ACME's account (credits to it are accepted); Bodega's is unknown for now.
    for (let i = 0; i < CREDITS; i++)
      receivable(i % 2 === 0 ? 'before' : 'after', {
        id: `INV-BOOKS-${i}`,
        beneficiaryAccount: ACME_CLABE,
        amount: `${1000 + i}.${String((i * 7) % 100).padStart(2, '0')}`,
        reference: String(4_100_000 + i),
        dueDate: '2030-12-31',
      });
    receivable('after', {
      id: 'INV-BOOKS-PARTIAL',
      beneficiaryAccount: ACME_CLABE,
      amount: '1000.00',
      reference: '4300000',
      dueDate: '2030-12-31',
    });
    receivable('before', {
      id: 'INV-BOOKS-UNPAID',
      beneficiaryAccount: ACME_CLABE,
      amount: '777.00',
      reference: '4300001',
      dueDate: '2030-12-31',
    });
    // Paid by credits whose refund arrives before them: owed again at the end.
    for (let i = 0; i < REFUNDED_BEFORE; i++)
      receivable(i % 2 === 0 ? 'before' : 'after', {
        id: `INV-EARLY-${i}`,
        beneficiaryAccount: ACME_CLABE,
        amount: `${2000 + i}.00`,
        reference: String(4_200_000 + i),
        dueDate: '2030-12-31',
      });
    for (let i = 0; i < HELD; i++)
      receivable('before', {
        id: `INV-HELD-${i}`,
        beneficiaryAccount: BODEGA_CLABE,
        amount: `${3000 + i}.00`,
        reference: String(4_400_000 + i),
        dueDate: '2030-12-31',
      });
    if (!pglite) await stack.startWorker({ WORKER_BATCH_SIZE: '50' });
    // The direct debit portal's webhook points at the gateway.
    const seeded2 = await sandbox.control.addSeed({
      body: {
        directDebit: {
          orgId: DD_ORG,
          apiKeys: [],
          customers: [],
          instruments: [],
          webhook: { url: `${stack.gatewayUrl}${DIRECT_DEBIT_WEBHOOK_PATH}`, authorization: ddToken, form: 'current' },
        },
      },
    });
    if (seeded2.status !== 200)
      throw new Error(`the sandbox did not take the direct debit webhook (${seeded2.status})`);

    // Credits for Bodega's account, which the gateway does not know yet: answered 202 and held.
    const held: { id: string; amount: string }[] = [];
    for (let i = 0; i < HELD; i++) {
      const amount = `${3000 + i}.00`;
      const credit = ok(
        await sandbox.control.triggerIncomingSpei({
          body: { beneficiaryClabe: BODEGA_CLABE, amount, numericReference: String(4_400_000 + i) },
        }),
        'held credit',
      );
      held.push({ id: credit.transactionId, amount });
    }

    // Transfers, each written down before it is sent; and transfers whose answer the ledger could
    // not write (the store stopped answering the recorder once the intent was written).
    const sentAt = await clockNow();
    const day = mexicoCity(sentAt).slice(0, 10);
    // Three reports of the day, as the platform generated them at 1, 2 and 3 hours after the
    // transfers: all in progress, half settled, all settled. Names sort newest first. The middle one
    // is imported first, before its event; the newest and oldest after theirs.
    const reported = () => transfers.slice(REJECTED + REVERSED);
    const lines = (statusOf: (i: number) => string) =>
      formatReportCsv(
        reported().map((t, i) => ({
          transactionId: t.id,
          trackingKey: '',
          transactionDate: mexicoCity(sentAt),
          subCategory: 'SPEI_DEBIT',
          amount: t.amount,
          status: statusOf(i),
        })),
      );
    const reportsOf = () =>
      [
        { hex: 'ffffffff', hours: 1, csv: lines(() => 'IN_PROGRESS') },
        { hex: '7fffffff', hours: 2, csv: lines((i) => (i < reported().length / 2 ? 'LIQUIDATED' : 'IN_PROGRESS')) },
        { hex: '00000000', hours: 3, csv: lines(() => 'LIQUIDATED') },
      ].map((r) => ({
        ...r,
        fileName: `TRANSACTIONS_DAILY_${day}_${r.hex}.csv`,
        createdAt: new Date(sentAt.getTime() + r.hours * 3600_000).toISOString(),
      }));
    type Report = ReturnType<typeof reportsOf>[number];
    const announce = (r: Report) =>
      deliver('REPORT', {
        client_id: CLIENT_ID,
        file_type: 'TRANSACTIONS',
        period: 'DAILY',
        file_name: r.fileName,
        created_at: r.createdAt,
      });
    const transfers: { id: string; amount: string }[] = [];
    const stalledBodies: Parameters<CoreClient['transactions']['moneyOut']>[0][] = [];
    const stalledIds: string[] = [];
    const charges: { id: string; reference: string; amount: string }[] = [];
    let unresolvedAfterStall = 0;
    // What the journal holds in suspense for them then (out:unconfirmed), and what their intents say.
    let suspenseAfterStall = { figure: '', intents: '' };
    let heldAnswered = 0;
    let refusedRelease = '';
    let reports: Report[] = [];
    let recordFailures = 0;
    const heldSeqs = await onStore(async (db) => {
      // The operator adds Bodega's account after its credits were held.
      for (const clabe of [ACME_CLABE, BODEGA_CLABE])
        await createAccountStore(db).upsert({ clabe, ownerId: null, status: 'ACTIVE', creditLimit: null });
      for (const r of receivables.before) await registerReceivable(db, r);
      const healthy = createCoreClient({ ...seeded, ...createTransactionRecorder(db, { actor: 'books-scenario' }) });
      for (let i = 0; i < TRANSFERS; i++) {
        const amount = `${100 + i}.00`;
        const answer = await healthy.transactions.moneyOut({
          source_instrument_id: ACME,
          destination_instrument_id: BBVA,
          transaction_request: { amount, currency: 'MXN', external_reference: String(2_000_000 + i) },
        });
        transfers.push({ id: String(answer.id), amount });
      }
      reports = reportsOf();
      await importReport(db, reports[1]!.fileName, reports[1]!.csv);
      // Direct debit charges, each recorded as the client's onChargeCreated records it.
      const recordCharge = createChargeRecorder(db);
      for (let i = 0; i < CHARGES; i++) {
        const response = await fetch(`${sandbox.urls['direct-debit']}/charges`, {
          method: 'POST',
          headers: { 'x-api-key': DD_API_KEY, 'content-type': 'application/json' },
          body: JSON.stringify({
            currency: 'mxn',
            amount: 400 + i,
            reference: `books-charge-${i}`,
            inline_instrument: { type: 'mx_clabe', identifier: '012180015118333755' },
            inline_customer: { name: 'John Doe', document_type: 'mx_rfc', document_number: 'AABB220089' },
          }),
        });
        const charge = (await response.json()) as { id: string; reference: string };
        if (response.status !== 201) throw new Error(`POST /charges answered ${response.status}`);
        await recordCharge({ charge });
        charges.push({ id: charge.id, reference: charge.reference, amount: `${400 + i}.00` });
      }
      const store = stallable(db);
      const hooks = createTransactionRecorder(store.db, {
        actor: 'books-scenario',
        retry: { attempts: 3, baseDelayMs: 20, maxElapsedMs: 200 },
      });
      const stalled = createCoreClient({
        ...seeded,
        ...hooks,
        onTransactionIntent: async (intent) => {
          store.stall(false);
          const id = await hooks.onTransactionIntent(intent);
          store.stall(true);
          return id;
        },
      });
      for (let i = 0; i < STALLED; i++) {
        const body = {
          source_instrument_id: ACME,
          destination_instrument_id: BBVA,
          transaction_request: {
            amount: `${500 + i}.00`,
            currency: 'MXN' as const,
            external_reference: String(2_100_000 + i),
          },
        };
        stalledBodies.push(body);
        // The platform created the transfer; the recorder could not write its answer.
        await stalled.transactions.moneyOut(body).then(
          () => undefined,
          (error: unknown) => {
            if (!(error instanceof TransactionRecordingError)) throw error;
            recordFailures += 1;
            stalledIds.push(String((error.transaction as { id?: unknown }).id));
          },
        );
      }
      store.stall(false);
      const unresolved = await listUnresolvedIntents(db);
      unresolvedAfterStall = unresolved.length;
      suspenseAfterStall = {
        figure: figureOf(await moneyFigures(db), 'out', 'unconfirmed').amount,
        intents: amountOf(unresolved.reduce((sum, intent) => sum + cents(intent.amount), 0)),
      };
      const stored = await db.query<{ seq: string; transaction_id: string; outcome: string }>(
        `SELECT seq::text AS seq, transaction_id, outcome FROM webhook_events WHERE event_type = 'MONEY_IN' AND transaction_id = ANY($1)`,
        [held.map((h) => h.id)],
      );
      heldAnswered = stored.rows.filter((row) => row.outcome === 'stored').length;
      return new Map(stored.rows.map((row) => [row.transaction_id, row.seq] as const));
    });
    // The gateway re-decides each held credit but the last (its admin replay) now that the account
    // is known. The one before the last is returned to its payer by the platform while held.
    const [oldest, middle, newest] = reports as [Report, Report, Report];
    const release = held.slice(0, -2);
    const returnedHeld = held.at(-2)!;
    for (const h of [...release, returnedHeld]) {
      const seq = heldSeqs.get(h.id);
      if (seq === undefined) throw new Error(`credit ${h.id} was not stored`);
      const response = await fetch(`${stack.gatewayUrl}/admin/events/${seq}/replay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_SECRETS.adminToken}`, 'content-type': 'application/json' },
        body: '{}',
      });
      const replayed = (await response.json()) as { outcome?: string };
      if (response.status !== 200 || replayed.outcome !== 'accepted')
        throw new Error(`the gateway's replay of event ${seq} answered ${response.status} ${JSON.stringify(replayed)}`);
    }

    // The platform settles, rejects and reverses them.
    for (const [i, t] of transfers.entries()) {
      if (i < REJECTED) {
        ok(await sandbox.control.triggerSpeiReject({ params: { transactionId: t.id }, body: {} }), 'reject');
        continue;
      }
      ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: t.id }, body: {} }), 'settle');
      expected.outSettled += cents(t.amount);
      if (i < REJECTED + REVERSED) {
        ok(await sandbox.control.triggerSpeiReverse({ params: { transactionId: t.id }, body: {} }), 'reverse');
        expected.outReturned += cents(t.amount);
      }
    }
    for (const [i, id] of stalledIds.entries()) {
      ok(await sandbox.control.triggerSpeiSettle({ params: { transactionId: id }, body: {} }), 'settle');
      expected.outSettled += cents(stalledBodies[i]!.transaction_request.amount);
      // The even ones come back reversed: the REFUND names the reference and amount of the intent.
      if (i % 2 === 0) {
        ok(await sandbox.control.triggerSpeiReverse({ params: { transactionId: id }, body: {} }), 'reverse');
        expected.outReturned += cents(stalledBodies[i]!.transaction_request.amount);
      }
    }

    // The platform confirms every charge but the last, which it declines.
    for (const [i, charge] of charges.entries()) {
      const last = i === charges.length - 1;
      ok(
        await sandbox.control.triggerChargeResult({
          params: { chargeId: charge.id },
          body: { result: last ? 'declined' : 'confirmed' },
        }),
        'charge result',
      );
      if (!last) expected.inSettled += cents(charge.amount);
    }

    // Credits: each pays its receivable (registered before or after it); two pay one in part; the
    // held ones go to an account the gateway does not know.
    const credits: { id: string; amount: string }[] = [];
    for (let i = 0; i < CREDITS; i++) {
      const r = [...receivables.before, ...receivables.after].find((x) => x.id === `INV-BOOKS-${i}`)!;
      const credit = ok(
        await sandbox.control.triggerIncomingSpei({
          body: { beneficiaryClabe: ACME_CLABE, amount: r.amount, numericReference: r.reference! },
        }),
        'credit',
      );
      credits.push({ id: credit.transactionId, amount: r.amount });
      expected.inSettled += cents(r.amount);
      open.set(r.id, 0);
    }
    for (const amount of ['250.00', '300.00']) {
      ok(
        await sandbox.control.triggerIncomingSpei({
          body: { beneficiaryClabe: ACME_CLABE, amount, numericReference: '4300000' },
        }),
        'partial credit',
      );
      expected.inSettled += cents(amount);
      open.set('INV-BOOKS-PARTIAL', open.get('INV-BOOKS-PARTIAL')! - cents(amount));
    }
    await stack.drainDeliveries(scaled(120_000, 60_000));

    // Refunds of credits, straight to the gateway as the platform sends them: after their credit,
    // before it, and a second refund of one credit (a conflict: it books nothing).
    const refundOf = (original: { id: string; amount: string }, at: string) => ({
      id: randomUUID(),
      tracking_key: `RF-${randomUUID().slice(0, 8)}`,
      amount: original.amount,
      transaction_date: at,
      category: 'CREDIT_TRANS',
      sub_category: 'SPEI_REFUNDED_CREDIT',
      original_transaction_id: original.id,
      original_transaction_amount: original.amount,
    });
    // What is returned on each value day, as the refunds' and chargebacks' own times say.
    const returnedOn = new Map<string, number>();
    const returned = (on: string, amount: string) => {
      expected.inReturned += cents(amount);
      returnedOn.set(on, (returnedOn.get(on) ?? 0) + cents(amount));
    };
    const dayBefore = mexicoCity(new Date(sentAt.getTime() - 86_400_000)).slice(0, 10);
    for (const [i, credit] of credits.slice(0, REFUNDED_AFTER).entries()) {
      await deliver('REFUND', refundOf(credit, `${day} 18:00:00`));
      // The refund that stands is the earliest by the platform's time: the second one, dated the
      // day before, where there is one; the first is then the conflict.
      returned(i < SECOND_REFUNDS ? dayBefore : day, credit.amount);
      open.set(`INV-BOOKS-${i}`, cents(credit.amount));
    }
    for (const credit of credits.slice(0, SECOND_REFUNDS))
      await deliver('REFUND', refundOf(credit, `${dayBefore} 19:00:00`));
    // A held credit returned to its payer: never money in, so never money returned either.
    await deliver('REFUND', refundOf(returnedHeld, `${day} 20:00:00`));
    // Chargebacks: the bank takes back confirmed charges (a declined charge_result after the confirmation).
    for (const charge of charges.slice(0, CHARGED_BACK)) {
      await deliverCharge({
        event: 'charge_result',
        timestamp: new Date(sentAt.getTime() + 86_400_000).toISOString(),
        data: {
          charge_id: charge.id,
          charge_result: 'declined',
          charge_reference: charge.reference,
          debt_id: null,
          declined_reason: 'chargeback',
          risk_status: 'ok',
          risk_reason: null,
          ownership_verification_result: null,
          ownership_verification_result_at: null,
          ownership_information: null,
        },
      });
      returned(mexicoCity(new Date(sentAt.getTime() + 86_400_000)).slice(0, 10), charge.amount);
    }
    const early: { id: string; amount: string }[] = [];
    for (let i = 0; i < REFUNDED_BEFORE; i++) {
      const credit = { id: randomUUID(), amount: `${2000 + i}.00` };
      early.push(credit);
      await deliver('REFUND', refundOf(credit, `${day} 18:30:00`));
      returned(day, credit.amount);
      await deliver('MONEY_IN', {
        id: credit.id,
        beneficiary_account: ACME_CLABE,
        payer_account: '002180001234567896',
        payer_name: 'PAGADOR EXTERNO SA DE CV',
        amount: credit.amount,
        transaction_date: `${day} 11:00:00`,
        tracking_key: `EXT-${credit.id.slice(0, 8)}`,
        sub_category: 'SPEI_CREDIT',
        numeric_reference: String(4_200_000 + i),
      });
      expected.inSettled += cents(credit.amount);
    }

    await announce(newest);
    await announce(oldest);
    await announce(middle);
    await applied();

    // Late receivables; the newest report, then the oldest. The operator releases the re-decided
    // held credits. The stalled transfers the platform did not reverse: the request replayed with
    // the same key. Nothing is delivered after this: on PGlite the gateway stays stopped.
    const heldBefore = await onStore(async (db) => {
      const before = await listHeld(db);
      for (const r of receivables.after) await registerReceivable(db, r);
      for (const r of [newest, oldest]) await importReport(db, r.fileName, r.csv);
      for (const h of release) await releaseHeld(db, { credit: h.id, by: 'ana@finance', note: 'account added' });
      refusedRelease = await releaseHeld(db, { credit: returnedHeld.id, by: 'ana@finance' }).then(
        () => 'released',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      const healthy = createCoreClient({ ...seeded, ...createTransactionRecorder(db, { actor: 'books-scenario' }) });
      for (const [i, body] of stalledBodies.entries()) if (i % 2 === 1) await healthy.transactions.moneyOut(body);
      return before;
    }, false);
    for (const h of release) {
      expected.inSettled += cents(h.amount);
      open.set(`INV-HELD-${held.indexOf(h)}`, 0);
    }
    expected.inHeld = cents(held.at(-1)!.amount);
    await applied();

    // What the console shows (its own process; on PGlite, with the worker stopped: one process per folder).
    if (pglite) await stack.stopWorker();
    const consoleApp = await stack.startConsole();
    const consoleText = async (path: string) => {
      const response = await fetch(`${consoleApp.url}${path}?from=${WIDE.from}&to=${WIDE.to}`);
      if (response.status !== 200) throw new Error(`the console's ${path} answered ${response.status}`);
      return response.text();
    };
    const overview = await consoleText('/');
    const volumes = await consoleText('/volumes');
    const shown = (html: string, attribute: string) => {
      const match = new RegExp(`${attribute}[^>]*>([^<]*)<`).exec(html);
      if (!match) throw new Error(`the console shows no ${attribute}`);
      return printed(match[1]!);
    };
    const cards: Record<string, string> = {
      'in settled': shown(overview, 'data-card="money-in"'),
      'in returned': shown(overview, 'data-card="money-in-returned"'),
      'in net': shown(overview, 'data-card="money-in-net"'),
      'in held': shown(overview, 'data-card="held"'),
      'out settled': shown(overview, 'data-card="money-out"'),
      'out returned': shown(overview, 'data-card="money-out-returned"'),
      'out net': shown(overview, 'data-card="money-out-net"'),
      'out in_transit': shown(overview, 'data-card="in-transit"'),
    };
    for (const [direction, figures] of [
      ['in', ['settled', 'returned', 'net', 'held']],
      ['out', ['settled', 'returned', 'net', 'in_transit']],
    ] as const)
      for (const figure of figures)
        cards[`volumes ${direction} ${figure}`] = shown(volumes, `data-money="${direction}\\|${figure}"`);

    const read = await stack.withStore(async (db) => {
      const sums = new Map(
        (
          await db.query<{ account: string; sum: string }>(
            `SELECT account, sum(amount)::text AS sum FROM ledger_journal GROUP BY account`,
          )
        ).rows.map((row) => [row.account, cents(row.sum)] as const),
      );
      const daily = (
        await db.query<{ day: string; account: string; sum: string }>(
          `SELECT value_date::text AS day, account, sum(amount)::text AS sum FROM ledger_journal GROUP BY 1, 2`,
        )
      ).rows.map((row) => ({ day: row.day, account: row.account, sum: cents(row.sum) }));
      const itemIds = [
        ...[...credits, ...early, ...held].map((c) => `tx:${c.id}`),
        ...charges.map((c) => `dd:${c.id}`),
      ];
      const transferIds = [...transfers.map((t) => t.id), ...stalledIds].map((id) => `tx:${id}`);
      const crossed = await db.query<{ credits_out: string; transfers_in: string; held_received: string }>(
        `SELECT count(*) FILTER (WHERE item = ANY($1) AND account LIKE 'out:%')::text AS credits_out,
                count(*) FILTER (WHERE item = ANY($2) AND account LIKE 'in:%')::text AS transfers_in,
                count(*) FILTER (WHERE item = ANY($3) AND account IN ('in:received', 'in:refunded'))::text AS held_received
         FROM ledger_journal`,
        [itemIds, transferIds, [held.at(-1)!, returnedHeld].map((h) => `tx:${h.id}`)],
      );
      const opens = new Map<string, number>();
      for (let after: string | undefined; ; ) {
        const page = await pageReceivables(db, { limit: 500, ...(after ? { after } : {}) });
        for (const row of page.rows) opens.set(row.id, cents(row.open));
        if (!page.next) break;
        after = page.next;
      }
      return {
        sums,
        daily,
        crossed: crossed.rows[0]!,
        opens,
        books: await checkBooks(db),
        figures: await moneyFigures(db, WIDE),
        items: await listItems(db, { limit: 10_000, ...WIDE }),
        conflicts: await conflictCounts(db),
        unresolved: await listUnresolvedIntents(db),
        stillHeld: await listHeld(db),
        releases: await listReleases(db),
        applied: await countApplied(db),
        stored: Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_events')).rows[0]!.n),
        parked: Number(
          (await db.query<{ n: string }>('SELECT count(*)::text AS n FROM ledger_parked_events')).rows[0]!.n,
        ),
      };
    });

    // The journal's own sums, per account and direction, signed as the figures read.
    const sum = (account: string) => read.sums.get(account) ?? 0;
    const journal: Record<string, number> = {
      'in settled': -sum('in:received'),
      'in returned': sum('in:refunded') + sum('in:charged_back'),
      'in held': -sum('in:held'),
      'out settled': sum('out:paid'),
      'out returned': -sum('out:reversed'),
      'out in_transit': sum('out:in_transit'),
    };
    journal['in net'] = journal['in settled']! - journal['in returned']!;
    journal['out net'] = journal['out settled']! - journal['out returned']!;
    const sent: Record<string, number> = {
      'in settled': expected.inSettled,
      'in returned': expected.inReturned,
      'in net': expected.inSettled - expected.inReturned,
      'in held': expected.inHeld,
      'out settled': expected.outSettled,
      'out returned': expected.outReturned,
      'out net': expected.outSettled - expected.outReturned,
      'out in_transit': 0,
    };
    const figureAmounts = Object.fromEntries(
      Object.keys(journal).map((key) => {
        const [direction, figure] = key.split(' ') as ['in' | 'out', MoneyFigure];
        return [key, figureOf(read.figures, direction, figure).amount];
      }),
    );
    const disagreements = Object.keys(journal).flatMap((key) => {
      const [direction, figure] = key.split(' ');
      const of = {
        journal: amountOf(journal[key]!),
        sent: amountOf(sent[key]!),
        moneyFigures: figureAmounts[key],
        card: cards[key],
        volumes: cards[`volumes ${direction} ${figure}`],
      };
      return new Set(Object.values(of)).size === 1 ? [] : [`${key}: ${JSON.stringify(of)}`];
    });
    // Per value day: the journal's sums, moneyFigures' day rows and the console's table by day; and
    // the returned money on the days the refunds and chargebacks name.
    const FIGURES = [
      ['in', 'settled', ['in:received'], -1],
      ['in', 'returned', ['in:refunded', 'in:charged_back'], 1],
      ['in', 'held', ['in:held'], -1],
      ['out', 'settled', ['out:paid'], 1],
      ['out', 'returned', ['out:reversed'], -1],
      ['out', 'in_transit', ['out:in_transit'], 1],
    ] as const;
    const byDayShown = new Map<string, string>();
    const byDay = tableOf(volumes, 'money-by-day');
    for (const cells of byDay.rows)
      byDay.headers.slice(1).forEach((header, i) => {
        const [direction, figure] = header.split(': ') as [string, string];
        byDayShown.set(`${cells[0]} ${direction} ${figure.replace(' ', '_')}`, printed(cells[i + 1] ?? ''));
      });
    // The overview's table of days shows settled money in and out on each day it has.
    const overviewDays = tableOf(overview, 'days');
    const column = (name: string) => overviewDays.headers.indexOf(name);
    for (const cells of overviewDays.rows) {
      byDayShown.set(`overview ${cells[0]} in settled`, printed(cells[column('money in (settled)')] ?? ''));
      byDayShown.set(`overview ${cells[0]} out settled`, printed(cells[column('money out (settled)')] ?? ''));
    }
    const days = [...new Set(read.daily.map((row) => row.day))].filter((d) => !d.startsWith('2030')).sort();
    const dailyOff = days.flatMap((on) =>
      FIGURES.flatMap(([direction, figure, accounts, sign]) => {
        const journalSum = read.daily
          .filter((row) => row.day === on && (accounts as readonly string[]).includes(row.account))
          .reduce((n, row) => n + sign * row.sum, 0);
        const of: Record<string, string | undefined> = {
          journal: amountOf(journalSum),
          moneyFigures: figureOf(read.figures, direction, figure, on).amount,
          volumes: byDayShown.get(`${on} ${direction} ${figure}`) ?? '0.00',
        };
        const onOverview = byDayShown.get(`overview ${on} ${direction} ${figure}`);
        // Every day with settled money is on the overview's table, with or without items of its own.
        if (figure === 'settled') of.overview = onOverview ?? (journalSum === 0 ? '0.00' : 'not listed');
        else if (onOverview !== undefined) of.overview = onOverview;
        if (direction === 'in' && figure === 'returned') of.sent = amountOf(returnedOn.get(on) ?? 0);
        return new Set(Object.values(of)).size === 1 ? [] : [`${on} ${direction} ${figure}: ${JSON.stringify(of)}`];
      }),
    );
    const openOff = [...open].flatMap(([id, owed]) =>
      (read.opens.get(id) ?? 0) === owed
        ? []
        : [`${id} open ${amountOf(read.opens.get(id) ?? 0)}, expected ${amountOf(owed)}`],
    );
    const byId = new Map(read.items.map((item) => [item.id, item] as const));
    const reportedOff = reported().filter((t) => {
      const item = byId.get(t.id);
      return item?.state !== 'matched' || item.report?.fileName !== newest.fileName;
    }).length;
    const stuck = transfers
      .slice(REJECTED + REVERSED)
      .concat(stalledIds.filter((_, i) => i % 2 === 1).map((id) => ({ id, amount: '' })))
      .filter((t) => byId.get(t.id)?.state !== 'matched').length;
    const orphaned =
      read.items.filter((item) => item.state === 'orphan').length +
      credits.slice(REFUNDED_AFTER).filter((c) => byId.get(c.id)?.state !== 'matched').length;
    const refundedStates = [...credits.slice(SECOND_REFUNDS, REFUNDED_AFTER), ...early].filter(
      (c) => byId.get(c.id)?.state !== 'refunded',
    ).length;
    // A charge taken back reads mismatched (chargeback), never matched; the confirmed ones matched.
    const chargesOff = charges.filter((c, i) => {
      const item = byId.get(c.id);
      if (i < CHARGED_BACK) return !(item?.state === 'mismatched' && item.fields.includes('chargeback'));
      return i < charges.length - 1 && item?.state !== 'matched';
    }).length;
    const secondRefunds = read.conflicts.second_refund;
    const conflictsRecorded = read.conflicts.total;
    const non2xx = answers.filter((status) => status < 200 || status >= 300).length;

    recordScenario({
      scenario: 'books',
      sent: answers.length,
      acknowledged: answers.length - non2xx,
      stored: read.stored,
      applied: read.applied,
      lost: 0,
      duplicated: 0,
      badInputs: 0,
      fiveXx: answers.filter((status) => status >= 500).length,
      fiveXxAllowed: false,
      longestAnswerMs: 0,
      money: { stuck, orphaned, conflictsMade: SECOND_REFUNDS, conflictsRecorded },
      notes: [
        `${TRANSFERS} transfers (${REJECTED} rejected, ${REVERSED} reversed), ${STALLED} more whose ledger write failed after the platform moved them (${recordFailures} record errors, ${unresolvedAfterStall} unresolved intents, ${read.unresolved.length} left: ${Math.ceil(STALLED / 2)} attached by their reversal, ${Math.floor(STALLED / 2)} by a replay with the same key)`,
        `${CREDITS + 2} credits to receivables registered before and after them, ${REFUNDED_AFTER} refunded after their credit, ${REFUNDED_BEFORE} before it, ${SECOND_REFUNDS} second refund(s) (${secondRefunds} recorded as second_refund); ${HELD} credits for an unknown account (${heldAnswered} answered 202, ${heldBefore.length} held), ${read.releases.length} released after it was added, 1 returned to its payer while held (its release refused: ${refusedRelease.includes('returned to its payer') ? 'yes' : `NO: ${refusedRelease}`}), ${read.stillHeld.length} still held`,
        `${CHARGES} direct debit charges recorded: ${CHARGES - 1} confirmed, 1 declined, ${CHARGED_BACK} charged back after their confirmation; ${CHARGES - chargesOff} of ${CHARGES} in their expected state`,
        `3 reports of ${day} imported middle, newest, oldest, their events before and after: ${reported().length - reportedOff} of ${reported().length} transfers compared with the newest (${newest.fileName}) and matched`,
        `figures (journal = sent = moneyFigures = console cards = /volumes): ${Object.keys(journal)
          .map((key) => `${key} ${figureAmounts[key]}`)
          .join(', ')}${disagreements.length ? `; DISAGREE: ${disagreements.join('; ')}` : ''}`,
        `by value day (${days.join(', ')}): ${days.length * FIGURES.length - dailyOff.length} of ${days.length * FIGURES.length} figures agree (journal = moneyFigures = /volumes by day = the overview's days, ${overviewDays.rows.length} listed; money returned on the days the refunds and chargebacks name)${dailyOff.length ? `; DISAGREE: ${dailyOff.join('; ')}` : ''}`,
        `receivables: ${open.size - openOff.length} of ${open.size} with their expected open balance (${[...open.values()].filter((v) => v > 0).length} open, ${amountOf([...open.values()].reduce((a, b) => a + b, 0))} owed)${openOff.length ? `; OFF: ${openOff.join('; ')}` : ''}`,
        `books ${read.books.ok ? 'balanced' : 'BROKEN'}: ${read.books.postingsChecked} postings, debits ${read.books.debits} = credits ${read.books.credits}, ${read.books.itemsChecked} items as their facts say; ${read.parked} events parked`,
      ],
      durationMs: performance.now() - startedAt,
    });

    expect(non2xx).toBe(0);
    expect(read.books).toMatchObject({ ok: true, unbalancedPostings: [], itemsOff: [] });
    // Every figure the console shows is the journal's sum, and what the scenario sent.
    expect(disagreements).toEqual([]);
    expect(dailyOff).toEqual([]);
    // Held money is not money in; a refund is not money out, a reversal not money in.
    expect(read.crossed).toEqual({ credits_out: '0', transfers_in: '0', held_received: '0' });
    // Every credit for the unknown account was answered 202 and held until released.
    expect(heldAnswered).toBe(HELD);
    expect(heldBefore.map((h) => h.transactionId).sort()).toEqual(
      held
        .filter((h) => h !== returnedHeld)
        .map((h) => h.id)
        .sort(),
    );
    expect(refusedRelease).toMatch(/was returned to its payer while held/);
    expect(read.stillHeld.map((h) => h.transactionId)).toEqual([held.at(-1)!.id]);
    expect(read.releases).toHaveLength(release.length);
    expect(openOff).toEqual([]);
    expect(reportedOff).toBe(0);
    expect(chargesOff).toBe(0);
    expect(stuck).toBe(0);
    expect(orphaned).toBe(0);
    expect(refundedStates).toBe(0);
    expect(read.parked).toBe(0);
    expect(secondRefunds).toBe(SECOND_REFUNDS);
    expect(conflictsRecorded).toBe(SECOND_REFUNDS);
    // The ledger write failed for every stalled transfer, and none is left unresolved.
    expect(recordFailures).toBe(STALLED);
    expect(unresolvedAfterStall).toBe(STALLED);
    // Money that may have left is in the books meanwhile, as the intents say, and out of suspense at the end.
    expect(suspenseAfterStall.figure).toBe(suspenseAfterStall.intents);
    expect(Number(suspenseAfterStall.figure)).toBeGreaterThan(0);
    expect(figureOf(read.figures, 'out', 'unconfirmed').amount).toBe('0.00');
    expect(stalledIds).toHaveLength(STALLED);
    expect(read.unresolved).toEqual([]);
  });
});
