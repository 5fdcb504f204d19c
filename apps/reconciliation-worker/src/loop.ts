// The worker's loop: apply what is waiting, then wait `pollMs` (or less, when a batch came back
// full). Several workers may run it against one PostgreSQL: claims never overlap. A round that
// fails (the database unreachable, or a connection frozen past its statement deadline) is tried
// again after `pollMs`, on a fresh connection: the worker resumes by itself once the database answers.
// After each round the books' invariants are checked over the postings written since the last check
// (the first check, at start, covers the whole journal); a break stays reported until the worker restarts.
// Then one step of the floor audit checks the claim floor's promise over the next FLOOR_AUDIT_SPAN
// events below it, so an event that is neither applied nor parked is found wherever it lies.
import { auditFloor, checkBooks, reconcileOnce, type BooksCheck, type ReconcileResult } from '@paykit/ledger';

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
  /** The floor audit's progress. */
  readonly floorAudit: FloorAuditStatus;
  stop(): Promise<void>;
}

/** Events below the claim floor checked per round: one index range scan, whatever the store's size. */
export const FLOOR_AUDIT_SPAN = 50_000;

export interface FloorAuditStatus {
  /** Sweeps from seq 0 to the floor completed since start. */
  sweeps: number;
  /** The highest seq the sweep in progress has checked. */
  through: string;
  /** Events found below the floor neither applied nor parked since start (each then claimed and applied). */
  found: number;
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
    /** Events the floor audit found below the floor, neither applied nor parked, and the floor lowered below them. */
    onBelowFloor?: (found: { seqs: string[]; floor: string }) => void;
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
  const floorAudit: FloorAuditStatus = { sweeps: 0, through: '0', found: 0 };
  let auditFrom = '0';
  const auditTheFloor = async () => {
    const step = await auditFloor(db, auditFrom, FLOOR_AUDIT_SPAN);
    floorAudit.through = step.through;
    auditFrom = step.next;
    if (step.found.length > 0) {
      floorAudit.found += step.found.length;
      options.onBelowFloor?.({ seqs: step.found, floor: step.floor });
    } else if (step.sweepDone) floorAudit.sweeps += 1;
  };
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
        await auditTheFloor();
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
    floorAudit,
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
