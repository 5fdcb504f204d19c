// Order independence, as a property: for any ordering of the facts of a few ledger items, each
// fact possibly delivered twice and applied after any of them (alone or batched with the ones
// before), every item ends in the state the canonical order gives. The facts: transfers recorded
// and updated (by id, and by tracking key in the older form), a settlement disagreement, a refund
// and a second refund, a penny validation and its CEP, a credit and its receivable, a credit
// repeated with other content, an update for a transfer never recorded. The journal too: every
// posting balances and each item's books (net per account and value day) are the same in any order.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEventStore, type Database, type EventStore, type NewEvent } from '@paykit/store';
import { listItems, reconcileOnce, recordOutbound, registerReceivable } from '../src/index.ts';
import { testDatabases } from '@paykit/store/testing';
import { ledgerMigrations } from '../src/migrations.ts';
import { coreEvent, outbound } from './support/ledger.ts';
import { redelivered } from './support/ledger-race.ts';

type Fact = { name: string; run: (db: Database, store: EventStore) => Promise<unknown> };

interface Scenario {
  facts: Fact[];
  /** Item id → the name the comparison uses. */
  names: Map<string, string>;
}

/** The facts of one run, with fresh ids (every run shares the database). */
function scenario(): Scenario {
  const names = new Map<string, string>();
  const transfer = (name: string, extra: Parameters<typeof outbound>[0] = {}) => {
    const record = outbound({ status: 'INITIALIZED', ...extra });
    names.set(record.transactionId, name);
    return record;
  };
  const a = transfer('A');
  const b = transfer('B');
  const c = transfer('C');
  const d = transfer('D');
  const p = transfer('P', {
    operation: 'penny_validation',
    amount: '0.01',
    expectedHolder: 'Juan Pérez López',
    expectedRfc: null,
  });
  const creditE = randomUUID();
  const creditF = randomUUID();
  const unknown = randomUUID();
  const refund1 = randomUUID();
  const refund2 = randomUUID();
  for (const [id, name] of [
    [creditE, 'E'],
    [creditF, 'F'],
    [unknown, 'U'],
    [refund1, 'R'],
    [refund2, 'R'],
  ] as const)
    names.set(id, name);
  const update = (id: string, trackingKey: string | null, status: string) =>
    coreEvent('STATUS_UPDATE', {
      id,
      tracking_key: trackingKey,
      message_type: 'SPEI',
      status,
      update_at: '2026-11-21T10:16:00-06:00',
    });
  const account = `6461800000${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const credit = (id: string, amount: string) =>
    coreEvent('MONEY_IN', {
      id,
      beneficiary_account: account,
      payer_account: '012180000045678907',
      amount,
      transaction_date: '20261121',
      tracking_key: `EXT-${id.slice(0, 6)}`,
      sub_category: 'SPEI_CREDIT',
    });
  const refund = (id: string) =>
    coreEvent('REFUND', {
      id,
      amount: d.amount,
      transaction_date: '2026-11-21 12:00:00',
      sub_category: 'SPEI_REFUNDED_CREDIT',
      original_transaction_id: d.transactionId,
      original_transaction_amount: d.amount,
    });
  const aSettled = update(a.transactionId, a.trackingKey, 'LIQUIDATED');
  const eCredit = credit(creditE, '1234.50');
  const event = (name: string, e: NewEvent): Fact => ({ name, run: (_db, store) => store.append(e) });
  const facts: Fact[] = [
    { name: 'record A', run: (db) => recordOutbound(db, a) },
    event('A in progress', update(a.transactionId, a.trackingKey, 'IN_PROGRESS')),
    event('A settled', aSettled),
    event('A settled again', redelivered(aSettled)),
    { name: 'record B', run: (db) => recordOutbound(db, b) },
    // The older documented form: no id, matched by tracking key; update_at without an offset.
    event(
      'B settled',
      coreEvent('STATUS_UPDATE', {
        tracking_key: b.trackingKey,
        status: 'LIQUIDATED',
        update_at: '2026-11-21 10:16:00',
      }),
    ),
    { name: 'record C', run: (db) => recordOutbound(db, c) },
    event('C rejected', update(c.transactionId, c.trackingKey, 'REJECTED')),
    event('C settled', update(c.transactionId, c.trackingKey, 'LIQUIDATED')),
    { name: 'record D', run: (db) => recordOutbound(db, d) },
    event('D settled', update(d.transactionId, d.trackingKey, 'LIQUIDATED')),
    event('D refunded', refund(refund1)),
    event('D refunded twice', refund(refund2)),
    { name: 'record P', run: (db) => recordOutbound(db, p) },
    event(
      'P CEP',
      coreEvent('CEP', {
        id: p.transactionId,
        status: 'COMPLETED',
        beneficiary_name: 'PEREZ LOPEZ JUAN',
        processed_at: '2026-11-21 10:20:00',
      }),
    ),
    event('E credit', eCredit),
    event('E credit again', redelivered(eCredit)),
    {
      name: 'E receivable',
      run: (db) =>
        registerReceivable(db, {
          id: `INV-${creditE}`,
          beneficiaryAccount: account,
          amount: '1234.50',
          dueDate: '2026-11-30',
        }),
    },
    event('F credit', credit(creditF, '777.77')),
    event('F credit, other amount', credit(creditF, '7777.70')),
    event('U update', update(unknown, null, 'LIQUIDATED')),
  ];
  return { facts, names };
}

/** Each item's state (and, for the items whose facts agree, status and amount), by name; then its books. */
async function outcome(db: Database, names: Map<string, string>): Promise<string[]> {
  const items = await listItems(db, { limit: 10_000, now: new Date('2026-11-21T18:00:00Z') });
  const states = items
    .filter((item) => names.has(item.id))
    .map((item) => {
      const name = names.get(item.id)!;
      return item.state === 'conflict' || item.state === 'mismatched'
        ? `${name} ${item.state}`
        : `${name} ${item.state} ${item.status} ${item.amount}`;
    })
    .sort();
  return [...states, ...(await books(db, names))];
}

/**
 * The journal's net per item, account and value day, by name (the run's own CLABE read as CLABE):
 * the same facts must give the same books in any order. Every posting must balance.
 */
async function books(db: Database, names: Map<string, string>): Promise<string[]> {
  const { rows } = await db.query<{ item: string; account: string; day: string; amount: string }>(
    `SELECT item, account, value_date::text AS day, sum(amount)::text AS amount FROM ledger_journal
     WHERE item = ANY($1::text[]) GROUP BY 1, 2, 3 HAVING sum(amount) <> 0`,
    [[...names.keys()].flatMap((id) => [`tx:${id}`, `rcv:INV-${id}`])],
  );
  const unbalanced = await db.query(
    'SELECT posting_id FROM ledger_journal GROUP BY posting_id HAVING sum(amount) <> 0',
  );
  expect(unbalanced.rows).toEqual([]);
  return rows
    .map((row) => {
      const [kind, id] = [row.item.slice(0, row.item.indexOf(':')), row.item.slice(row.item.indexOf(':') + 1)];
      const name = kind === 'rcv' ? `receivable of ${names.get(id.slice('INV-'.length))}` : names.get(id);
      const account = row.account
        .replace(/^platform:\d{18}$/, 'platform:CLABE')
        .replace(/^receivable:.*$/, 'receivable:INV');
      return `books ${name} ${account} ${row.day} ${row.amount}`;
    })
    .sort();
}

async function play(db: Database, facts: Fact[], applyAfter: boolean[]): Promise<void> {
  const store = createEventStore(db);
  try {
    for (const [i, fact] of facts.entries()) {
      await fact.run(db, store);
      if (applyAfter[i]) await reconcileOnce(db);
    }
  } finally {
    await store.close();
  }
  await reconcileOnce(db);
}

// What the books must say: A and B paid, C paid (its settlement is the status that stands), D paid
// and reversed once (its second refund is a conflict, not money), the penny validation in transit,
// E received and paying its receivable; F, whose two credits disagree, and U unbooked.
const expectedBooks = [
  'books A out:paid 2026-11-21 300.00',
  'books A platform:CLABE 2026-11-21 -300.00',
  'books B out:paid 2026-11-21 300.00',
  'books B platform:CLABE 2026-11-21 -300.00',
  'books C out:paid 2026-11-21 300.00',
  'books C platform:CLABE 2026-11-21 -300.00',
  'books D out:paid 2026-11-21 300.00',
  'books D out:reversed 2026-11-21 -300.00',
  'books E in:received 2026-11-21 -1234.50',
  'books E platform:CLABE 2026-11-21 1234.50',
  'books P out:in_transit 2026-11-21 0.01',
  'books P platform:CLABE 2026-11-21 -0.01',
  'books receivable of E receivable:INV 2026-11-21 -1234.50',
  'books receivable of E receivable:INV 2026-11-30 1234.50',
  'books receivable of E receivables:expected 2026-11-21 1234.50',
  'books receivable of E receivables:expected 2026-11-30 -1234.50',
];

for (const kind of testDatabases([ledgerMigrations])) {
  describe(`order independence on ${kind.name}`, () => {
    it('ends every item in the same state whatever the order, duplicates and batching of its facts', {
      timeout: 300_000,
    }, async () => {
      const opened = await kind.open();
      try {
        const canonical = scenario();
        await play(
          opened.db,
          canonical.facts,
          canonical.facts.map(() => true),
        );
        const expected = await outcome(opened.db, canonical.names);
        expect(expected).toEqual([
          'A matched LIQUIDATED 300.00',
          'B matched LIQUIDATED 300.00',
          'C mismatched',
          'D conflict',
          'E matched LIQUIDATED 1234.50',
          'F conflict',
          'P matched INITIALIZED 0.01',
          'R conflict',
          'R conflict',
          'U orphan LIQUIDATED null',
          ...expectedBooks,
        ]);
        const count = canonical.facts.length;
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.nat(count - 1), { maxLength: 6 }),
            fc.array(fc.boolean(), { minLength: count + 6, maxLength: count + 6 }),
            fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
            async (repeats, applyAfter, keys) => {
              const run = scenario();
              const order = [...run.facts, ...repeats.map((i) => run.facts[i]!)];
              const sortKeys = order.map(() => keys.next().value as number);
              const shuffled = order
                .map((fact, i) => ({ fact, key: sortKeys[i]! }))
                .sort((x, y) => x.key - y.key)
                .map((entry) => entry.fact);
              await play(opened.db, shuffled, applyAfter);
              expect(await outcome(opened.db, run.names), shuffled.map((fact) => fact.name).join(' → ')).toEqual(
                expected,
              );
            },
          ),
          { numRuns: kind.name === 'postgres' ? 40 : 25, seed: 18 },
        );
      } finally {
        await opened.drop();
      }
    });
  });
}
