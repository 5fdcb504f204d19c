// Structured logs (pino), one JSON line each, on stdout: start-up, every reconcile round that
// applied or parked something (its counts; an idle round at debug), report files fetched,
// imported or refused, and every error. Nothing secret is handed to the logger (ids, counts,
// file names and error messages, which the store and the clients keep free of secrets); the
// redaction paths are the second line of defence should someone log a config object later.
import { createAppLogger } from '@paykit/service';
import type { DestinationStream, Logger } from 'pino';
import type { WorkerConfig } from './config.ts';
import type { WorkerOptions } from './worker.ts';

export const REDACT_PATHS = [
  'databaseUrl',
  'password',
  'apiKey',
  'clientSecret',
  'metricsToken',
  'authorization',
  'token',
  'headers.authorization',
  'headers.cookie',
  'config.databaseUrl',
  'config.metricsToken',
  'config.reports.core.apiKey',
  'config.reports.core.clientSecret',
];

export function createLogger(config: Pick<WorkerConfig, 'logLevel'>, destination?: DestinationStream): Logger {
  return createAppLogger({ name: 'reconciliation-worker', level: config.logLevel, redact: REDACT_PATHS, destination });
}

/** An error as a log field: its message only (a stack or a `cause` could carry what a message leaves out). */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The worker's hooks as log lines: a round's counts (info when it applied or parked something, else debug), report files, errors. */
export function loggedEvents(
  logger: Logger,
): Pick<
  WorkerOptions,
  | 'onError'
  | 'onRound'
  | 'onBelowFloor'
  | 'onReportError'
  | 'onReportImported'
  | 'onReportDuplicate'
  | 'onArchived'
  | 'onRetentionError'
> {
  return {
    onError: (error) => logger.error({ err: errorText(error) }, 'reconcile round failed (retrying)'),
    onRound: (round) =>
      logger[round.applied + round.parked > 0 ? 'info' : 'debug'](
        { applied: round.applied, parked: round.parked, batches: round.batches, ms: round.ms },
        'reconcile round',
      ),
    onBelowFloor: ({ seqs, floor }) =>
      logger.warn(
        { events: seqs.length, first: seqs[0], floor },
        'events below the claim floor were neither applied nor parked: the floor was lowered so they are applied',
      ),
    onReportError: (fileName, error) =>
      logger.warn({ fileName, err: errorText(error) }, 'report file not imported yet (retrying later)'),
    onReportImported: (fileName, lines) => logger.info({ fileName, lines }, 'report file imported'),
    onReportDuplicate: (fileName, original) =>
      logger.info(
        { fileName, original },
        'report file already imported under another name (same content): its lines are not counted again',
      ),
    onArchived: ({ archived, kept }) => {
      for (const month of archived)
        logger.info(
          { partition: month.partition, events: month.events, file: month.file },
          'month of events archived and dropped',
        );
      for (const month of kept)
        logger.warn(
          { partition: month.partition, events: month.events, reason: month.reason },
          'month past the retention kept',
        );
    },
    onRetentionError: (error) =>
      logger.error(
        { err: errorText(error) },
        'event store upkeep failed (partitions, retention); retrying on schedule',
      ),
  };
}
