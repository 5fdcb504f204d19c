#!/usr/bin/env node
// `pnpm --filter @paykit/reconciliation-worker start`: applies stored events continuously and
// answers /healthz and /metrics on WORKER_PORT (4030); the finance console is apps/console. Prints
// `listening on <url>` once the probes are up,
// then logs with pino (one JSON line each, logging.ts): each round's counts, report files, errors.
import { ConfigError, loadConfig } from './config.ts';
import { createLogger, loggedEvents } from './logging.ts';
import { startWorker } from './worker.ts';

/**
 * The longest a stop may take (supervisors send SIGKILL after 10 s). A round cut short is rolled
 * back by PostgreSQL (its events are claimed again), so nothing is lost by exiting mid-batch.
 */
const STOP_TIMEOUT_MS = 9_000;

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}

try {
  const logger = createLogger(config);
  const worker = await startWorker(config, loggedEvents(logger));
  logger.info(
    {
      url: worker.url,
      store: worker.database.kind,
      apply: config.apply,
      reports: worker.reports !== undefined,
      pollMs: config.pollMs,
      batchSize: config.batchSize,
      metricsToken: config.metricsToken !== undefined,
    },
    'started',
  );
  // The kind of store only: its description names the database's user, host and name.
  console.log(`listening on ${worker.url} (store: ${worker.database.kind})`);
  console.log(
    `/healthz: open; /metrics: ${config.metricsToken ? 'bearer token (METRICS_TOKEN)' : 'open'} (the finance console is apps/console)`,
  );
  console.log(
    worker.reports
      ? `report files: fetched from the ${config.reports!.core.environment} core service as client ${config.reports!.core.clientId}, every ${config.reports!.pollMs / 1000} s`
      : config.apply
        ? 'report files: not fetched (set WORKER_CORE_CLIENT_ID and WORKER_CORE_API_KEY to fetch them; `reconcile reports import` imports one by hand)'
        : 'report files: not fetched (WORKER_APPLY=off)',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    setTimeout(() => {
      console.error(
        `The worker did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting now (the batch in flight is rolled back and claimed again)`,
      );
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    worker.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`The worker did not stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  // `on`, and stop() runs once: through pnpm, Ctrl-C arrives twice (from the terminal, and passed on
  // by pnpm), and a second signal must not end the process before what is in flight is committed.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  console.error(`The reconciliation worker could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
