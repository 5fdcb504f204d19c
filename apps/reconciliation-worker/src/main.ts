#!/usr/bin/env node
// `pnpm --filter @paykit/reconciliation-worker start`: applies stored events continuously and
// serves the console on WORKER_PORT (4030). Prints `listening on <url>` once the console is up.
import { ConfigError, loadConfig } from './config.ts';
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
  const worker = await startWorker(config, { onError: (error) => console.error(`reconcile round failed (retrying): ${error instanceof Error ? error.message : String(error)}`) });
  console.log(`listening on ${worker.url} (store: ${worker.database.description})`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      console.error(`The worker did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting now (the batch in flight is rolled back and claimed again)`);
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
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  console.error(`The reconciliation worker could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
