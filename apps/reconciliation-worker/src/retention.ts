// The event store's upkeep, on a schedule (at start, then every WORKER_RETENTION_EVERY_MS): the
// month partitions of this month and the next three are made where missing, and, with
// WORKER_RETENTION_DAYS set, the months that ended more than that many days ago are archived to
// WORKER_ARCHIVE_DIR and dropped (@paykit/ledger's archiveEvents: a month the ledger still reads
// stays, with the reason, and is tried again next time). Several workers may run it: making a
// partition is idempotent, and a month two of them archive at once is written by both (the same
// bytes, each to a file of its own until renamed) and dropped by one.
import { archiveEvents, type ArchiveResult } from '@paykit/ledger';
import { ensureEventPartitions, withLongStatements, type Database, type DatabaseOptions } from '@paykit/store';

export interface RetentionOptions {
  /** Archive months that ended more than this many days ago; undefined: partitions only, nothing archived. */
  retentionDays: number | undefined;
  archiveDir: string;
  dedupeWindowDays: number;
  everyMs: number;
  /**
   * How to open a connection of its own for the archive (withLongStatements): removing a month's
   * markers and keys and dropping it can take longer than the deadline of serving statements.
   * Empty: the archive runs on `db` (PGlite, or a database the caller opened).
   */
  connection: DatabaseOptions;
  now?: () => Date;
  onArchived?: (result: ArchiveResult) => void;
  onError?: (error: unknown) => void;
}

export interface RetentionStatus {
  /** When the upkeep last ran to the end (null before it has). */
  lastRunAt: Date | null;
  /** The months covered by a partition from this one on, as of the last run. */
  monthsAhead: number;
  /** Months archived since start; months kept on the last run, with why. */
  archived: number;
  kept: ArchiveResult['kept'];
  lastError: string | null;
}

export interface Retention {
  readonly status: RetentionStatus;
  /** Runs the upkeep now (the schedule keeps going). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

export function startRetention(db: Database, options: RetentionOptions): Retention {
  const now = options.now ?? (() => new Date());
  const status: RetentionStatus = { lastRunAt: null, monthsAhead: 0, archived: 0, kept: [], lastError: null };
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    try {
      const at = now();
      status.monthsAhead = (await ensureEventPartitions(db, { now: at })).length - 1;
      if (options.retentionDays !== undefined) {
        const days = options.retentionDays;
        const result = await withLongStatements(db, options.connection, (long) =>
          archiveEvents(long, {
            before: new Date(at.getTime() - days * DAY_MS),
            dir: options.archiveDir,
            now: at,
            dedupeWindowDays: options.dedupeWindowDays,
          }),
        );
        status.archived += result.archived.length;
        status.kept = result.kept;
        if (result.archived.length > 0 || result.kept.length > 0) options.onArchived?.(result);
      }
      status.lastRunAt = at;
      status.lastError = null;
    } catch (error) {
      status.lastError = (error as Error).message;
      options.onError?.(error);
    }
  };
  const runOnce = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
  void runOnce();
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, options.everyMs);
  timer.unref();
  return {
    status,
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
