// The third leg of the three-way match, fetched from the platform: after a REPORT event is applied
// (its row in ledger_reports, not yet imported), ask the platform where the file is, fetch it and
// import it with the store's importReport. Each file is tried on its own schedule: a platform that
// is down, a file not ready yet or a bad file is tried again later with a growing delay, and
// nothing else waits on it (events are never parked for a report). Importing is idempotent (the
// store keeps one import per file name), so two workers fetching the same file import it once.
import { importReport } from '@paykit/ledger';
import type { Database } from '@paykit/store';

export type ReportType = 'DAILY' | 'MONTHLY' | 'DAILY_ACCOUNT_STATEMENT' | 'MONTHLY_ACCOUNT_STATEMENT';

/** What the worker needs of the core client's `reports` (an interface, so the client is built once, in config). */
export interface ReportSource {
  download(
    input: { reportType: ReportType; operationDate: string },
    requestOptions?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<{ fileName: string; downloadUrl: string; found: boolean }>;
  fetchFile(
    downloadUrl: string,
    options?: { timeoutMs?: number; maxBytes?: number; signal?: AbortSignal },
  ): Promise<string>;
}

export interface ReportFetchOptions {
  /** How often the worker looks for announced files not imported yet. */
  pollMs: number;
  /** Each call (the download answer, then the file) must finish within this. */
  timeoutMs: number;
  maxBytes: number;
  /** The first retry of a file waits this long; each failure doubles it, up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Files looked at per round. */
  batch?: number;
  onError?: (fileName: string, error: unknown) => void;
  onImported?: (fileName: string, lines: number) => void;
  /** The file's content was imported before under another name (`original`): its lines are not counted again. */
  onDuplicate?: (fileName: string, original: string) => void;
  /** For tests: the clock retries are scheduled on (performance-style ms). */
  now?: () => number;
}

export interface ReportFetcher {
  readonly imported: number;
  readonly failures: number;
  /** The last failure, by file (cleared when the file is imported). */
  readonly lastErrors: ReadonlyMap<string, string>;
  /** The last round that could not read the database (null once one could). */
  readonly lastRoundError: string | null;
  /** One round: every announced file not imported yet whose retry is due. Resolves with the files imported. */
  runOnce(): Promise<string[]>;
  /** Stops the loop (and a round in flight, between files). */
  stop(): Promise<void>;
}

interface PendingReport {
  file_name: string;
  file_type: string | null;
  period: string | null;
  created_at: Date | null;
}

interface Backoff {
  attempts: number;
  nextAt: number;
}

const OFFSET_MS = -6 * 3600 * 1000;

/** The download's report_type of an announced TRANSACTIONS file; account statements are not fetched (see README). */
export function reportTypeOf(fileType: string | null, period: string | null): ReportType | undefined {
  if (fileType !== 'TRANSACTIONS') return undefined;
  return period === 'MONTHLY' ? 'MONTHLY' : period === 'DAILY' ? 'DAILY' : undefined;
}

/**
 * The day to ask for: the date the file's name carries (`transactions_daily_20260224.csv`,
 * `TRANSACTIONS_DAILY_2026-02-24.csv`; a month alone, `…_2026-02.csv`, is its first day: the
 * platform moves monthly dates to the month's end), else the Mexico City day of created_at.
 */
export function operationDateOf(fileName: string, createdAt: Date | null): string | undefined {
  const day = [...fileName.matchAll(/(?<!\d)(\d{4})-?(\d{2})-?(\d{2})(?!\d)/g)].at(-1);
  if (day && validDate(day[1]!, day[2]!, day[3]!)) return `${day[1]}-${day[2]}-${day[3]}`;
  const month = [...fileName.matchAll(/(?<!\d)(\d{4})-(\d{2})(?![\d-])/g)].at(-1);
  if (month && validDate(month[1]!, month[2]!, '01')) return `${month[1]}-${month[2]}-01`;
  if (createdAt === null || Number.isNaN(createdAt.getTime())) return undefined;
  return new Date(createdAt.getTime() + OFFSET_MS).toISOString().slice(0, 10);
}

function validDate(y: string, m: string, d: string): boolean {
  const date = new Date(`${y}-${m}-${d}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === `${y}-${m}-${d}`;
}

/** The fetcher without its loop (`runOnce` by hand); startReportFetcher runs it every pollMs. */
export function createReportFetcher(db: Database, source: ReportSource, options: ReportFetchOptions): ReportFetcher {
  const now = options.now ?? (() => performance.now());
  const controller = new AbortController();
  const backoff = new Map<string, Backoff>();
  const lastErrors = new Map<string, string>();
  let imported = 0;
  let failures = 0;
  let lastRoundError: string | null = null;

  const fail = (fileName: string, error: unknown) => {
    failures++;
    const previous = backoff.get(fileName)?.attempts ?? 0;
    const delay = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** previous);
    backoff.set(fileName, { attempts: previous + 1, nextAt: now() + delay });
    lastErrors.set(fileName, error instanceof Error ? error.message : String(error));
    options.onError?.(fileName, error);
  };

  const fetchOne = async (report: PendingReport): Promise<boolean> => {
    const fileName = report.file_name;
    const reportType = reportTypeOf(report.file_type, report.period);
    const operationDate = operationDateOf(fileName, report.created_at);
    if (!reportType || !operationDate) return false;
    try {
      const signal = controller.signal;
      const answer = await source.download({ reportType, operationDate }, { timeoutMs: options.timeoutMs, signal });
      if (!answer.found) throw new Error(`the platform has no ${reportType} file for ${operationDate} yet`);
      // Another name is another file (a later one of the same day): importing it under this name would misfile it.
      if (answer.fileName !== fileName)
        throw new Error(
          `the platform serves ${answer.fileName.slice(0, 200)} for ${reportType} ${operationDate}, not this file`,
        );
      const text = await source.fetchFile(answer.downloadUrl, {
        timeoutMs: options.timeoutMs,
        maxBytes: options.maxBytes,
        signal,
      });
      const result = await importReport(db, fileName, text);
      backoff.delete(fileName);
      lastErrors.delete(fileName);
      if (result.imported) {
        imported++;
        options.onImported?.(fileName, result.lines);
      } else if (result.duplicateOf !== null) {
        options.onDuplicate?.(fileName, result.duplicateOf);
      }
      return result.imported;
    } catch (error) {
      if (controller.signal.aborted) return false;
      fail(fileName, error);
      return false;
    }
  };

  const runOnce = async (): Promise<string[]> => {
    const { rows } = await db.query<PendingReport>(
      `SELECT file_name, file_type, period, created_at FROM ledger_reports
       WHERE imported_at IS NULL AND event_seq IS NOT NULL AND file_type = 'TRANSACTIONS'
       ORDER BY created_at NULLS LAST, file_name LIMIT $1`,
      [options.batch ?? 100],
    );
    const done: string[] = [];
    for (const report of rows) {
      if (controller.signal.aborted) break;
      const wait = backoff.get(report.file_name);
      if (wait && wait.nextAt > now()) continue;
      if (await fetchOne(report)) done.push(report.file_name);
    }
    return done;
  };

  const runRound = async (): Promise<string[]> => {
    try {
      const done = await runOnce();
      lastRoundError = null;
      return done;
    } catch (error) {
      // The database is down: the apply loop reports it too; the next round tries again.
      lastRoundError = error instanceof Error ? error.message : String(error);
      return [];
    }
  };

  return {
    get imported() {
      return imported;
    },
    get failures() {
      return failures;
    },
    get lastRoundError() {
      return lastRoundError;
    },
    lastErrors,
    runOnce: runRound,
    async stop() {
      controller.abort();
    },
  };
}

/** createReportFetcher, run every pollMs until stopped. */
export function startReportFetcher(db: Database, source: ReportSource, options: ReportFetchOptions): ReportFetcher {
  const fetcher = createReportFetcher(db, source, options);
  const stopped = new AbortController();
  const running = (async () => {
    while (!stopped.signal.aborted) {
      await fetcher.runOnce();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        stopped.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  })();
  return {
    get imported() {
      return fetcher.imported;
    },
    get failures() {
      return fetcher.failures;
    },
    get lastRoundError() {
      return fetcher.lastRoundError;
    },
    lastErrors: fetcher.lastErrors,
    runOnce: () => fetcher.runOnce(),
    async stop() {
      stopped.abort();
      await fetcher.stop();
      await running;
    },
  };
}
