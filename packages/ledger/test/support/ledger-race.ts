// The race between recording and applying, as a workload: transfers recorded by several recorders
// while their status updates (and refunds) are stored and several workers apply them, credits
// stored while their receivables are registered, every fact 0–`maxDelayMs` late on its own, in a
// shuffled order, and some redelivered under a new id_msg with the same content (duplicates, not
// conflicts). Then the verdict: transfers whose settlement is known but not shown (stuck), credits
// whose receivable exists but was not matched (owned orphans), and conflicts recorded.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEventStore, type Database, type NewEvent } from '@paykit/store';
import { listItems, reconcileOnce, recordOutbound, registerReceivable, type OutboundRecord } from '../../src/index.ts';
import { coreEvent, outbound } from './ledger.ts';

export interface RaceOptions {
  transfers: number;
  credits: number;
  /** Databases (pools) the recorders use, one recorder per entry (the same one repeated is fine). */
  recorders: Database[];
  /** One worker per entry. */
  workers: Database[];
  maxDelayMs: number;
  /** Deterministic shuffles and delays. */
  seed: number;
}

export interface RaceVerdict {
  transfers: number;
  credits: number;
  /** Transfers with a settlement among their facts that do not read matched or refunded. */
  stuck: number;
  /** Credits with a receivable registered for them that do not read matched. */
  orphaned: number;
  conflicts: number;
  parked: number;
  /** Seconds from the last fact stored to the ledger applying everything. */
  drainSeconds: number;
}

/** A small, seeded generator (mulberry32): the same seed gives the same run. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle<T>(items: T[], next: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/** The same fact delivered again under a new id_msg (the platform's retransmission). */
export function redelivered(event: NewEvent): NewEvent {
  const payload = JSON.parse(new TextDecoder().decode(event.rawBody)) as {
    id_msg: string;
    body: Record<string, unknown>;
  };
  const idMsg = randomUUID();
  return {
    ...event,
    idMsg,
    dedupeKey: `core:${event.eventType}:${idMsg}`,
    rawBody: new TextEncoder().encode(JSON.stringify({ ...payload, id_msg: idMsg })),
  };
}

/** A task runs on the database (pool) of the lane that runs it. */
type Task = (db: Database) => Promise<unknown>;

export async function runRace(db: Database, options: RaceOptions): Promise<RaceVerdict> {
  const next = random(options.seed);
  const store = createEventStore(db);
  const transfers = Array.from({ length: options.transfers }, (_, i) =>
    outbound({ amount: `${100 + (i % 900)}.00`, status: 'INITIALIZED' }),
  );
  const refunded = new Set(transfers.filter((_, i) => i % 10 === 0).map((t) => t.transactionId));
  // Each credit its own amount on one of four accounts, so one receivable fits each.
  const credits = Array.from({ length: options.credits }, (_, i) => ({
    id: randomUUID(),
    account: `64618000000000001${i % 4}`,
    amount: `${1000 + i}.${String(i % 100).padStart(2, '0')}`,
  }));

  // A unit: a transfer's record and its facts, or a credit and its receivable's registration. The
  // tasks of a unit start together and each is 0–maxDelayMs late on its own, as answers and
  // deliveries are on a loaded network; units run 24 at a time, in a shuffled order.
  const late = (task: Task): Task => {
    const delay = Math.floor(next() * options.maxDelayMs);
    return async (laneDb) => {
      await sleep(delay);
      return task(laneDb);
    };
  };
  const append =
    (event: NewEvent): Task =>
    () =>
      store.append(event);
  const units: Task[][] = [];
  for (const t of transfers) {
    const updates = ['IN_PROGRESS', 'LIQUIDATED'].map((status) => statusFor(t, status));
    const facts = [...updates, redelivered(updates[1]!)];
    if (refunded.has(t.transactionId)) facts.push(coreEvent('REFUND', refundBody(t)));
    units.push([(recorder) => recordOutbound(recorder, t), ...facts.map(append)]);
  }
  for (const [i, c] of credits.entries()) {
    const event = coreEvent('MONEY_IN', creditBody(c));
    const register: Task = (recorder) =>
      registerReceivable(recorder, {
        id: `INV-${options.seed}-${i}`,
        beneficiaryAccount: c.account,
        amount: c.amount,
        dueDate: '2026-11-30',
      });
    units.push([register, append(event), append(redelivered(event))]);
  }
  const queue = shuffle(units, next).map((unit) => unit.map(late));
  const laneDbs = Array.from({ length: 24 }, (_, lane) => options.recorders[lane % options.recorders.length]!);

  let producing = true;
  const workers = options.workers.map(async (worker) => {
    for (;;) {
      const result = await reconcileOnce(worker, { batchSize: 256 });
      if (result.applied + result.parked === 0) {
        if (!producing) return;
        await sleep(2);
      }
    }
  });
  await Promise.all(
    laneDbs.map(async (laneDb, lane) => {
      for (let i = lane; i < queue.length; i += laneDbs.length)
        await Promise.all(queue[i]!.map((task) => task(laneDb)));
    }),
  );
  const lastFact = performance.now();
  producing = false;
  await Promise.all(workers);
  const drainSeconds = (performance.now() - lastFact) / 1000;
  await store.close();

  const items = await listItems(db, { limit: 10_000, now: new Date('2026-11-21T18:00:00Z') });
  const byId = new Map(items.map((item) => [item.id, item]));
  const stuck = transfers.filter(
    (t) => !['matched', 'refunded'].includes(byId.get(t.transactionId)?.state ?? 'missing'),
  ).length;
  const orphaned = credits.filter((c) => byId.get(c.id)?.state !== 'matched').length;
  const count = async (sql: string) => Number((await db.query<{ n: string }>(sql)).rows[0]!.n);
  return {
    transfers: transfers.length,
    credits: credits.length,
    stuck,
    orphaned,
    conflicts: await count('SELECT count(*) AS n FROM ledger_conflicts'),
    parked: await count('SELECT count(*) AS n FROM ledger_parked_events'),
    drainSeconds,
  };
}

function statusFor(t: OutboundRecord, status: string): NewEvent {
  return coreEvent('STATUS_UPDATE', {
    id: t.transactionId,
    tracking_key: t.trackingKey,
    message_type: 'SPEI',
    status,
    update_at: '2026-11-21T10:16:00-06:00',
  });
}

function refundBody(t: OutboundRecord): Record<string, unknown> {
  return {
    id: randomUUID(),
    tracking_key: `RF-${t.transactionId.slice(0, 8)}`,
    amount: t.amount,
    transaction_date: '2026-11-21 12:00:00',
    category: 'CREDIT_TRANS',
    sub_category: 'SPEI_REFUNDED_CREDIT',
    original_transaction_id: t.transactionId,
    original_transaction_amount: t.amount,
  };
}

function creditBody(c: { id: string; account: string; amount: string }): Record<string, unknown> {
  return {
    id: c.id,
    beneficiary_account: c.account,
    payer_account: '012180000045678907',
    payer_institution: '40012',
    amount: c.amount,
    transaction_date: '2026-11-21 10:15:00',
    tracking_key: `EXT-${c.id.slice(0, 8)}`,
    sub_category: 'SPEI_CREDIT',
    owner_id: 'o',
  };
}
