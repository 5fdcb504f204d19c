// What the scenario expects, checked in the shared store: every event it caused stored by the
// gateway (with its outcome), and every reconciliation item in the state it should end in. Only
// what the store gained during this run counts: an earlier run's events cannot stand in for this one's.
import {
  checkBooks,
  figureOf,
  listItems,
  moneyFigures,
  reconcileOnce,
  reportMatches,
  type MoneyFigure,
  type ReconItem,
} from '@paykit/ledger';
import type { Database, EventListFilter, EventStore, StoredEvent } from '@paykit/store';
import type { Results } from './output.ts';

/** An event the gateway should have stored once deliveries settle. */
export interface ExpectedEvent {
  what: string;
  eventType: string;
  match: (payload: Record<string, unknown>) => boolean;
  outcome?: string;
}

/** The reconciliation state an item should end in: by transaction id, or found by a predicate. */
export interface ExpectedItem {
  what: string;
  find: (items: ReconItem[]) => ReconItem | undefined;
  want: Partial<ReconItem>;
}

export interface Expectations {
  events: ExpectedEvent[];
  items: ExpectedItem[];
  /** Transaction ids this run created or caused: their items are this run's even before an event arrives. */
  ownIds: Set<string>;
  /** The report file the sandbox announced, once it has. */
  reportFile: string;
}

export const newExpectations = (): Expectations => ({ events: [], items: [], ownIds: new Set(), reportFile: '' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The seq of the newest stored event (0n: none). */
export async function newestSeq(events: EventStore): Promise<bigint> {
  const [newest] = await events.list({ limit: 1 });
  return newest === undefined ? 0n : BigInt(newest.seq);
}

/** Every event stored after `seq` (newest first), read a page at a time back to it. */
export async function eventsSince(
  events: EventStore,
  seq: bigint,
  filter: Omit<EventListFilter, 'before' | 'limit'> = {},
): Promise<StoredEvent[]> {
  const found: StoredEvent[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await events.list({ ...filter, limit: 1000, ...(before === undefined ? {} : { before }) });
    const newer = page.filter((event) => BigInt(event.seq) > seq);
    found.push(...newer);
    if (page.length < 1000 || newer.length < page.length) return found;
    before = page.at(-1)!.seq;
  }
}

export async function checkStoredEvents(
  events: EventStore,
  startSeq: bigint,
  expected: ExpectedEvent[],
  results: Results,
): Promise<void> {
  // Deliveries the API (not the control API) caused are sent after it answers: give them a moment.
  let missing = expected;
  for (let i = 0; i < 50 && missing.length > 0; i++) {
    // Each event type read once per pass, however many expectations look at it.
    const stored = new Map<string, { payload: Record<string, unknown>; outcome: string }[]>();
    for (const eventType of new Set(missing.map((e) => e.eventType))) {
      stored.set(
        eventType,
        (await eventsSince(events, startSeq, { eventType })).map((e) => ({
          payload: e.payload as Record<string, unknown>,
          outcome: e.outcome,
        })),
      );
    }
    missing = missing.filter((e) => {
      const found = stored.get(e.eventType)!.find((s) => e.match(s.payload));
      return !found || (e.outcome !== undefined && found.outcome !== e.outcome);
    });
    if (missing.length > 0) await sleep(100);
  }
  for (const e of expected) {
    const held = !missing.includes(e);
    results.add({
      step: `stored: ${e.what}`,
      ok: held,
      detail: held ? (e.outcome ?? 'stored') : 'not stored as expected',
    });
    if (!held) console.log(`  ✖ stored: ${e.what}`);
  }
  const counts = new Map<string, number>();
  const gained = await eventsSince(events, startSeq);
  for (const event of gained)
    counts.set(`${event.eventType} ${event.outcome}`, (counts.get(`${event.eventType} ${event.outcome}`) ?? 0) + 1);
  console.log(
    `  ${expected.length - missing.length} of ${expected.length} expected events stored as expected during this run`,
  );
  console.log(
    `  the store gained ${gained.length} event(s) during this run: ${[...counts].map(([key, n]) => `${key} ${n}`).join(', ')}`,
  );
}

export async function checkReconciliation(
  db: Database,
  startSeq: bigint,
  expected: Expectations,
  results: Results,
  clientId: string,
): Promise<void> {
  // The worker applies on its own; one more pass here makes sure nothing waits before reading.
  await reconcileOnce(db);
  // Only the items this run's events made or moved: an earlier run's must not stand in for them.
  const items = (await listItems(db, { limit: 10_000, from: '2000-01-01', to: '2100-01-01' })).filter(
    (item) => item.eventSeqs.some((seq) => BigInt(seq) > startSeq) || expected.ownIds.has(item.id),
  );
  for (const e of expected.items) {
    const item = e.find(items);
    const held =
      item !== undefined &&
      Object.entries(e.want).every(
        ([key, value]) => JSON.stringify(item[key as keyof ReconItem]) === JSON.stringify(value),
      );
    const seen = item ? `${item.state}${item.fields.length > 0 ? ` (${item.fields.join(', ')})` : ''}` : 'no item';
    results.add({ step: `reconciled: ${e.what}`, ok: held, detail: seen });
    console.log(`  ${held ? '✓' : '✖'} ${e.what}: ${seen}${held ? '' : ` (expected ${JSON.stringify(e.want)})`}`);
  }
  // The books hold over everything the store holds (this run's and earlier runs'): every posting
  // balances, every item's entries are what its facts say. The money figures are the journal's.
  const books = await checkBooks(db);
  results.add({ step: 'the books balance', ok: books.ok, detail: `debits ${books.debits}, credits ${books.credits}` });
  console.log(
    `  ${books.ok ? '✓' : '✖'} the books: ${books.postingsChecked} postings, debits ${books.debits} = credits ${books.credits}; ${books.itemsChecked} items as their facts say${books.ok ? '' : ` (unbalanced postings ${books.unbalancedPostings.join(', ') || 'none'}; items off ${books.itemsOff.map((i) => `${i.item} ${i.account}`).join(', ') || 'none'})`}`,
  );
  const figures = await moneyFigures(db);
  const figure = (direction: 'in' | 'out', name: MoneyFigure) => figureOf(figures, direction, name).amount;
  console.log(
    `  money in: settled ${figure('in', 'settled')}, returned ${figure('in', 'returned')}, net ${figure('in', 'net')}, held ${figure('in', 'held')}; money out: paid ${figure('out', 'settled')}, reversed ${figure('out', 'returned')}, net ${figure('out', 'net')}, in transit ${figure('out', 'in_transit')}, unconfirmed ${figure('out', 'unconfirmed')}`,
  );
  // The worker fetches the announced report file and imports it: the console's three-way match reads its lines.
  const reportFile = expected.reportFile;
  if (reportFile === '') return;
  await results.check('reconciled: the daily report, matched three ways', async () => {
    for (let i = 0; i < 50; i++) {
      const lines = await reportMatches(db, reportFile);
      if (lines.length > 0)
        return `${lines.length} lines of ${reportFile}, ${lines.filter((l) => l.state === 'matched').length} matched`;
      await sleep(100);
    }
    throw new Error(
      `${reportFile} was not imported within 5 s (the worker fetches it from the sandbox as client ${clientId})`,
    );
  });
}
