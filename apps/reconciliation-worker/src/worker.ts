// The worker as one object: the database (migrated), the apply loop, the report files fetched
// from the platform (when core credentials are configured), the event store's upkeep (partitions
// ahead, retention) and its probes (/healthz, /metrics).
import { createCoreClient } from '@paykit/core-client';
import { ledgerMigrations, type ArchiveResult, type ReconcileResult } from '@paykit/ledger';
import { storeOptions } from '@paykit/service';
import { migrate, openDatabase, withLongStatements, type Database } from '@paykit/store';
import type { WorkerConfig } from './config.ts';
import { createHealth } from './health.ts';
import { startApplyLoop, type ApplyLoop } from './loop.ts';
import { createWorkerMetrics } from './metrics.ts';
import { startProbes, type ProbeServer } from './probes.ts';
import { startReportFetcher, type ReportFetcher } from './report-fetch.ts';
import { startRetention, type Retention } from './retention.ts';

/** How long a stop waits for the round in progress before it closes the database under it. */
const STOP_GRACE_MS = 3_000;

export interface Worker {
  url: string;
  database: Database;
  /** Fetches announced report files; undefined without core credentials or with WORKER_APPLY=off. */
  reports: ReportFetcher | undefined;
  /** The event store's upkeep; undefined with WORKER_APPLY=off. */
  retention: Retention | undefined;
  close(): Promise<void>;
}

export interface WorkerOptions {
  database?: Database;
  onError?: (error: unknown) => void;
  /** After each apply round that succeeded: its counts and how long it took. */
  onRound?: (round: ReconcileResult & { ms: number }) => void;
  /** Stored events found below the claim floor neither applied nor parked: the floor was lowered so they are applied. */
  onBelowFloor?: (found: { seqs: string[]; floor: string }) => void;
  /** A report file that could not be fetched or imported (it is tried again later). */
  onReportError?: (fileName: string, error: unknown) => void;
  onReportImported?: (fileName: string, lines: number) => void;
  /** A report file whose content was imported before under another name. */
  onReportDuplicate?: (fileName: string, original: string) => void;
  /** The upkeep archived months, or kept some it was due to archive (with why). */
  onArchived?: (result: ArchiveResult) => void;
  onRetentionError?: (error: unknown) => void;
  /** The clock of the upkeep (tests). */
  now?: () => Date;
}

export async function startWorker(config: WorkerConfig, options: WorkerOptions = {}): Promise<Worker> {
  const databaseOptions = storeOptions(config);
  const db = options.database ?? (await openDatabase(databaseOptions));
  let loop: ApplyLoop | undefined;
  let reports: ReportFetcher | undefined;
  let retention: Retention | undefined;
  let server: ProbeServer | undefined;
  try {
    // Not under the deadline of a batch's statements: a migration may rewrite a large table.
    await withLongStatements(db, options.database ? {} : databaseOptions, (long) => migrate(long, [ledgerMigrations]));
    if (config.apply)
      loop = startApplyLoop(db, {
        batchSize: config.batchSize,
        pollMs: config.pollMs,
        leaseSeconds: config.leaseSeconds,
        onError: options.onError,
        onRound: options.onRound,
        onBelowFloor: options.onBelowFloor,
      });
    if (config.apply)
      retention = startRetention(db, {
        retentionDays: config.retention.days,
        archiveDir: config.retention.archiveDir,
        dedupeWindowDays: config.retention.dedupeWindowDays,
        everyMs: config.retention.everyMs,
        connection: options.database ? {} : databaseOptions,
        now: options.now,
        onArchived: options.onArchived,
        onError: options.onRetentionError,
      });
    if (config.apply && config.reports) {
      const { core, pollMs, timeoutMs, maxBytes, retryMaxMs } = config.reports;
      const client = createCoreClient({ ...core, timeoutMs });
      reports = startReportFetcher(db, client.reports, {
        pollMs,
        timeoutMs,
        maxBytes,
        retryBaseMs: Math.min(pollMs, retryMaxMs),
        retryMaxMs,
        onError: options.onReportError,
        onImported: options.onReportImported,
        onDuplicate: options.onReportDuplicate,
      });
    }
    const health = createHealth(db, loop, { databaseUrl: config.databaseUrl, retention });
    server = await startProbes({
      port: config.port,
      host: config.host,
      health,
      metrics: createWorkerMetrics(db, health),
      metricsToken: config.metricsToken,
    });
  } catch (error) {
    await reports?.stop();
    await retention?.stop();
    await loop?.stop();
    if (!options.database) await db.close();
    throw error;
  }
  const probes = server;
  return {
    url: probes.url,
    database: db,
    reports,
    retention,
    async close() {
      await probes.close();
      await reports?.stop();
      await retention?.stop();
      const stopped = loop?.stop();
      // A round on a frozen connection would wait out its statement deadline: past a grace, closing
      // the database ends it (PostgreSQL rolls the batch back; its events are claimed again).
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref())]);
      if (!options.database) await db.close();
      await stopped;
    },
  };
}
