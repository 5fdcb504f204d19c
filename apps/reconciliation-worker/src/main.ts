#!/usr/bin/env node
// `pnpm --filter @paykit/reconciliation-worker start`: applies stored events continuously and
// answers /healthz and /metrics on WORKER_PORT (4030); the finance console is apps/console. Prints
// `listening on <url>` once the probes are up,
// then logs with pino (one JSON line each, logging.ts): each round's counts, report files, errors.
// A stop cut short by the deadline (9 s) loses nothing: the round in flight is rolled back by
// PostgreSQL, and its events are claimed again.
import { runApp } from '@paykit/service';
import { loadConfig, WORKER } from './config.ts';
import { createLogger, loggedEvents } from './logging.ts';
import { startWorker } from './worker.ts';

await runApp({
  ...WORKER,
  shortName: 'worker',
  stopTimeoutNote: '(the batch in flight is rolled back and claimed again)',
  loadConfig,
  async start(config) {
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
    return {
      listening: [
        // The kind of store only: its description names the database's user, host and name.
        `listening on ${worker.url} (store: ${worker.database.kind})`,
        `/healthz: open; /metrics: ${config.metricsToken ? 'bearer token (METRICS_TOKEN)' : 'open'} (the finance console is apps/console)`,
        worker.reports
          ? `report files: fetched from the ${config.reports!.core.environment} core service as client ${config.reports!.core.clientId}, every ${config.reports!.pollMs / 1000} s`
          : config.apply
            ? 'report files: not fetched (set WORKER_CORE_CLIENT_ID and WORKER_CORE_API_KEY to fetch them; `reconcile reports import` imports one by hand)'
            : 'report files: not fetched (WORKER_APPLY=off)',
      ],
      logger,
      close: () => worker.close(),
    };
  },
});
