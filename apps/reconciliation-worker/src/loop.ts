// The worker's loop: apply what is waiting, then wait `pollMs` (or less, when a batch came back
// full). Several workers may run it against one PostgreSQL: claims never overlap. A round that
// fails (the database unreachable, or a connection frozen past its statement deadline) is tried
// again after `pollMs`, on a fresh connection: the worker resumes by itself once the database answers.
// After each round the books' invariants are checked over the postings written since the last check
// (the first check, at start, covers the whole journal); a break stays reported until the worker restarts.
import { checkBooks, reconcileOnce, type BooksCheck, type ReconcileResult } from '@paykit/ledger';
import type { Database } from '@paykit/store';

export interface ApplyLoop {
  /** Totals since start. */
  readonly totals: ReconcileResult;
  /** The last error, if the last round failed (the loop keeps going). */
  readonly lastError: string | null;
  /** The last round ended because nothing was left to claim (false until a round has done so, and after a failed one). */
  readonly caughtUp: boolean;
  /** When the last round ended, failed or not (null before the first). */
  readonly lastAttemptAt: Date | null;
  /** When a round last succeeded (null before the first). */
  readonly lastSuccessAt: Date | null;
  /** How long the round in progress has run, in ms (0 between rounds). */
  readonly roundRunningMs: number;
  /** The books' invariants as last checked (null before the first check); `ok` false once any check failed. */
  readonly books: BooksStatus | null;
  stop(): Promise<void>;
}

export interface BooksStatus {
  ok: boolean;
  /** When the books were last checked, and up to which posting. */
  checkedAt: Date;
  throughPosting: string;
  /** The first check that failed, kept: what broke (postings that do not balance, items off their facts). */
  failure: Pick<BooksCheck, 'unbalancedPostings' | 'itemsOff' | 'debits' | 'credits'> | null;
}

export function startApplyLoop(
  db: Database,
  options: {
    batchSize: number;
    pollMs: number;
    leaseSeconds: number;
    onError?: (error: unknown) => void;
    /** After each round that succeeded: its counts and how long it took. */
    onRound?: (round: ReconcileResult & { ms: number }) => void;
    now?: () => Date;
  },
): ApplyLoop {
  const now = options.now ?? (() => new Date());
  const controller = new AbortController();
  const totals: ReconcileResult = { batches: 0, applied: 0, parked: 0 };
  let lastError: string | null = null;
  let caughtUp = false;
  let lastAttemptAt: Date | null = null;
  let lastSuccessAt: Date | null = null;
  let roundStartedAt: number | undefined;
  let books: BooksStatus | null = null;
  const checkTheBooks = async () => {
    const check = await checkBooks(db, books === null ? {} : { sincePosting: books.throughPosting });
    // The first failure is kept: later checks cover later postings only.
    const { unbalancedPostings, itemsOff, debits, credits } = check;
    const failure = books?.failure ?? (check.ok ? null : { unbalancedPostings, itemsOff, debits, credits });
    books = { ok: failure === null, checkedAt: now(), throughPosting: check.throughPosting, failure };
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      controller.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  const running = (async () => {
    while (!controller.signal.aborted) {
      roundStartedAt = performance.now();
      try {
        const round = await reconcileOnce(db, {
          batchSize: options.batchSize,
          leaseSeconds: options.leaseSeconds,
          maxBatches: 20,
          signal: controller.signal,
        });
        totals.batches += round.batches;
        totals.applied += round.applied;
        totals.parked += round.parked;
        await checkTheBooks();
        lastError = null;
        lastSuccessAt = lastAttemptAt = now();
        caughtUp = round.batches < 20;
        options.onRound?.({ ...round, ms: Math.round(performance.now() - roundStartedAt) });
        if (!caughtUp) continue;
      } catch (error) {
        caughtUp = false;
        lastAttemptAt = now();
        lastError = error instanceof Error ? error.message : String(error);
        options.onError?.(error);
      } finally {
        roundStartedAt = undefined;
      }
      await sleep(options.pollMs);
    }
  })();
  return {
    totals,
    get lastError() {
      return lastError;
    },
    get caughtUp() {
      return caughtUp;
    },
    get lastAttemptAt() {
      return lastAttemptAt;
    },
    get lastSuccessAt() {
      return lastSuccessAt;
    },
    get books() {
      return books;
    },
    get roundRunningMs() {
      return roundStartedAt === undefined ? 0 : Math.round(performance.now() - roundStartedAt);
    },
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** Counts stop here: /healthz answers fast on any backlog ("at least 100,000"). */
export const WAITING_COUNT_CAP = 100_000;

/**
 * Events stored but neither applied nor parked (retried parked ones included), up to
 * WAITING_COUNT_CAP: what the worker still has to do. Only events above the claim floor can wait,
 * besides parked ones asked to be retried (those above the floor are in the first count).
 */
export async function countWaiting(db: Database): Promise<number> {
  const { rows } = await db.query<{ waiting: string }>(
    `SELECT ((SELECT count(*) FROM (
               SELECT 1 FROM webhook_events e, webhook_events_progress pr
               WHERE e.seq > pr.floor_seq
                 AND NOT EXISTS (SELECT 1 FROM webhook_events_applied a WHERE a.seq = e.seq)
                 AND NOT EXISTS (SELECT 1 FROM ledger_parked_events p WHERE p.seq = e.seq AND NOT p.retry)
               LIMIT $1) w)
            + (SELECT count(*) FROM ledger_parked_events p, webhook_events_progress pr WHERE p.retry AND p.seq <= pr.floor_seq))::text AS waiting`,
    [WAITING_COUNT_CAP],
  );
  return Math.min(Number(rows[0]!.waiting), WAITING_COUNT_CAP);
}
