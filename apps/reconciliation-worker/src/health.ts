// What the worker's /healthz says: the truth about its progress and its store, read fresh: how
// many events wait, whether the last round failed, whether it is caught up (never while events
// wait), and the connections in use. It never names the database (user, host, name, address).
import { conflictCounts, countWaiting, type Waiting } from '@paykit/ledger';
import { withTimeout, type ConnectionStats, type Database } from '@paykit/store';
import { WAITING_COUNT_CAP, type ApplyLoop, type BooksStatus, type FloorAuditStatus } from './loop.ts';
import type { Retention } from './retention.ts';

/** The longest /healthz waits for the count before it says the store does not answer. */
const COUNT_DEADLINE_MS = 2_000;

export interface WorkerHealth {
  /** The last round did not fail and the store answered the count. */
  ok: boolean;
  /** Events this process applied since it started. */
  applied: number;
  lastError: string | null;
  lastAttemptFailed: boolean;
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  /** How long the round in progress has run (0 between rounds). */
  roundRunningMs: number;
  /** The last round found nothing left to claim and no event waits now. */
  caughtUp: boolean;
  /** Events stored and not yet applied (null: the store did not answer); capped at WAITING_COUNT_CAP. */
  waiting: number | null;
  waitingCapped: boolean;
  /** How long ago the oldest waiting event was received, in seconds (null when none waits or the store did not answer). */
  oldestWaitingSeconds: number | null;
  /** The audit of the claim floor: sweeps done, how far the current one got, events it found unapplied below the floor. */
  floorAudit: FloorAuditStatus | null;
  /** Why `waiting` is null. */
  storeError: string | null;
  connections: ConnectionStats | null;
  /** Conflicting facts the ledger holds (the figure to alert on); null when the ledger did not answer in time. */
  conflicts: number | null;
  /** The books' invariants (debits equal credits in every posting, every item's entries what its facts say); null before the first check. */
  books: { ok: boolean; checkedAt: string; throughPosting: string; failure: BooksStatus['failure'] } | null;
  /**
   * The event store's upkeep (null with WORKER_APPLY=off): months with a partition from this one
   * on (alert below 1: new events land in the default partition), months archived since start, the
   * months past the retention kept on the last run and why, the last failure.
   */
  storeUpkeep: {
    lastRunAt: string | null;
    monthsAhead: number;
    archived: number;
    kept: Array<{ partition: string; events: number; reason: string }>;
    lastError: string | null;
  } | null;
}

/** `work`, or a rejection saying what did not answer once COUNT_DEADLINE_MS has passed: a frozen store must not hold a probe. */
export function withinProbeDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  return withTimeout(work, COUNT_DEADLINE_MS, () => new Error(`${what} within ${COUNT_DEADLINE_MS} ms`));
}

/**
 * The words of DATABASE_URL that name where the database is and who connects (host, user, database
 * name, socket folder): a driver's message may carry them (`connect ECONNREFUSED 10.0.0.5:5432`,
 * `getaddrinfo ENOTFOUND db.internal`). Words of fewer than 3 characters, or equal to the kind of
 * store, are left: replacing them would garble the message more than they tell.
 */
function connectionWords(databaseUrl: string | undefined, kind: string): string[] {
  if (!databaseUrl) return [];
  try {
    const url = new URL(databaseUrl);
    const words = [
      url.host,
      url.hostname,
      decodeURIComponent(url.username),
      decodeURIComponent(url.pathname.slice(1)),
      url.searchParams.get('host') ?? '',
    ];
    return words.filter((word) => word.length >= 3 && word !== kind).sort((a, b) => b.length - a.length);
  } catch {
    return [];
  }
}

export function createHealth(
  db: Database,
  loop: ApplyLoop | undefined,
  options: { databaseUrl?: string | undefined; now?: () => Date; retention?: Retention | undefined } = {},
): () => Promise<WorkerHealth> {
  const now = options.now ?? (() => new Date());
  // Probes that arrive while a count runs share it: a backlog is costly to count, and polled often.
  let counting: Promise<Waiting> | undefined;
  const waiting = (): Promise<Waiting> => {
    counting ??= countWaiting(db, WAITING_COUNT_CAP).finally(() => {
      counting = undefined;
    });
    return counting;
  };
  // The description names the user, host and database: an answer says only which kind of store,
  // and no address or word of DATABASE_URL that a driver's message repeats.
  const words = connectionWords(options.databaseUrl, db.kind);
  const anonymous = (message: string) =>
    words.reduce(
      (text, word) => text.replaceAll(word, '(the database)'),
      message
        .replaceAll(db.description, `the ${db.kind} store`)
        .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d{1,5})?\b|\[[0-9a-f:]+\](:\d{1,5})?/gi, '(the database address)'),
    );
  return async () => {
    // Counted beside the waiting events, each within the probe deadline: a frozen store holds the probe once, not twice.
    const conflicts = withinProbeDeadline(conflictCounts(db), 'the ledger did not count its conflicts').then(
      (counts) => counts.total,
      () => null,
    );
    let count: number | null = null;
    let oldestWaitingSeconds: number | null = null;
    let storeError: string | null = null;
    try {
      const waits = await withinProbeDeadline(waiting(), `the ${db.kind} store did not count the waiting events`);
      count = waits.count;
      if (waits.oldestReceivedAt !== null)
        oldestWaitingSeconds = Math.max(0, Math.round((now().getTime() - waits.oldestReceivedAt.getTime()) / 1000));
    } catch (error) {
      storeError = anonymous(error instanceof Error ? error.message : String(error));
    }
    const lastError = loop?.lastError ?? null;
    const books = loop?.books ?? null;
    return {
      ok: storeError === null && lastError === null && books?.ok !== false,
      applied: loop?.totals.applied ?? 0,
      lastError: lastError === null ? null : anonymous(lastError),
      lastAttemptFailed: lastError !== null,
      lastAttemptAt: loop?.lastAttemptAt?.toISOString() ?? null,
      lastSuccessAt: loop?.lastSuccessAt?.toISOString() ?? null,
      roundRunningMs: loop?.roundRunningMs ?? 0,
      caughtUp: (loop?.caughtUp ?? false) && count === 0,
      waiting: count,
      waitingCapped: count === WAITING_COUNT_CAP,
      oldestWaitingSeconds,
      floorAudit: loop ? { ...loop.floorAudit } : null,
      storeError,
      connections: db.connections?.() ?? null,
      conflicts: await conflicts,
      books: books === null ? null : { ...books, checkedAt: books.checkedAt.toISOString() },
      storeUpkeep: upkeep(options.retention, anonymous),
    };
  };
}

function upkeep(retention: Retention | undefined, anonymous: (message: string) => string): WorkerHealth['storeUpkeep'] {
  if (retention === undefined) return null;
  const { lastRunAt, monthsAhead, archived, kept, lastError } = retention.status;
  return {
    lastRunAt: lastRunAt?.toISOString() ?? null,
    monthsAhead,
    archived,
    kept: kept.map(({ partition, events, reason }) => ({ partition, events, reason })),
    lastError: lastError === null ? null : anonymous(lastError),
  };
}
