#!/usr/bin/env node
// `pnpm --filter @paykit/webhook-gateway start`: the gateway on GATEWAY_PORT (4020), configured by
// environment variables (README). Prints `listening on <url>` once it takes deliveries; SIGINT or
// SIGTERM stops it after the deliveries in flight are committed and answered, within
// STOP_TIMEOUT_MS whatever the database does (a frozen connection included).
import { ConfigError, loadConfig } from './config.ts';
import { startGateway } from './server.ts';

/**
 * The longest a stop may take (supervisors send SIGKILL after 10 s). Every wait in it is bounded
 * already (the commit deadline, the database's statement deadline); this is the last resort, and
 * what it cuts short was never answered 2xx, so the platform redelivers it.
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
  const gateway = await startGateway({ config });
  // The kind of store only: its description names the database's user, host and name.
  console.log(
    `listening on ${gateway.url} (store: ${gateway.database.kind}; /metrics: ${config.metricsToken ? 'bearer token (METRICS_TOKEN)' : 'open'})`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'stopping');
    setTimeout(() => {
      console.error(
        `The gateway did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting now (nothing unanswered was acknowledged)`,
      );
      process.exit(1);
    }, STOP_TIMEOUT_MS).unref();
    gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`The gateway did not stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  // `on`, and stop() runs once: through pnpm, Ctrl-C arrives twice (from the terminal, and passed on
  // by pnpm), and a second signal must not end the process before what is in flight is committed.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  console.error(`The webhook gateway could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
