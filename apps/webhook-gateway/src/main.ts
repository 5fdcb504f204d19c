#!/usr/bin/env node
// `pnpm --filter @paykit/webhook-gateway start`: the gateway on GATEWAY_PORT (4020), configured by
// environment variables (README). Prints `listening on <url>` once it takes deliveries; SIGINT or
// SIGTERM stops it after the deliveries in flight are committed and answered, within the stop
// deadline (9 s) whatever the database does (a frozen connection included): every wait in the
// stop is bounded already (the commit deadline, the database's statement deadline), and what the
// deadline cuts short was never answered 2xx, so the platform redelivers it.
import { runApp } from '@paykit/service';
import { GATEWAY, loadConfig } from './config.ts';
import { startGateway } from './server.ts';

await runApp({
  ...GATEWAY,
  shortName: 'gateway',
  stopTimeoutNote: '(nothing unanswered was acknowledged)',
  loadConfig,
  async start(config) {
    const gateway = await startGateway({ config });
    return {
      // The kind of store only: its description names the database's user, host and name.
      listening: [
        `listening on ${gateway.url} (store: ${gateway.database.kind}; /metrics: ${config.metricsToken ? 'bearer token (METRICS_TOKEN)' : 'open'})`,
      ],
      logger: gateway.logger,
      close: () => gateway.close(),
    };
  },
});
