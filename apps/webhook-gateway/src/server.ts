// The gateway's HTTP server, started in named steps: open and migrate the store, build what
// deliveries are decided with, build the HTTP app and its refusals (http-app.ts), register the
// webhook routes (webhook-routes.ts, handled in deliveries.ts) and the probes, metrics and admin
// API (ops.ts), then listen (listen.ts). Each delivery is authenticated before its body is read,
// evaluated (evaluate.ts), committed (intake.ts) and only then answered.
import type { AccountStore, Database, EventStore } from '@paykit/store';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import { decisionDeps } from './account-cache.ts';
import { deliveryHandlers } from './deliveries.ts';
import { createHttpApp } from './http-app.ts';
import { listen, stopper } from './listen.ts';
import { createLogger } from './logging.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { registerOps } from './ops.ts';
import { defaultRules, type MoneyInRule } from './policy.ts';
import { openGatewayDatabase, openStores } from './store-setup.ts';
import { registerWebhookRoutes } from './webhook-routes.ts';

export interface GatewayOptions {
  config: GatewayConfig;
  /** An open database (tests); otherwise opened from config (DATABASE_URL, or PGlite under PAYKIT_DATA_DIR). Migrated either way. */
  database?: Database;
  /** Where logs go (tests); otherwise GATEWAY_LOG_FILE or stdout. */
  logDestination?: DestinationStream;
  /** MONEY_IN rules; default defaultRules(config.policy). */
  rules?: readonly MoneyInRule[];
  /** The clock for the cash timestamp tolerance (tests). */
  now?: () => Date;
  /** Node process metrics on /metrics (default true). */
  processMetrics?: boolean;
}

export interface Gateway {
  url: string;
  port: number;
  app: FastifyInstance;
  database: Database;
  events: EventStore;
  accounts: AccountStore;
  metrics: GatewayMetrics;
  logger: Logger;
  /** Stops taking deliveries, waits for those in flight and their commits, closes the store. */
  close(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const { config } = options;
  const logger = createLogger(config, options.logDestination);
  const { database, release } = await openGatewayDatabase(config, options.database, logger);
  const metrics = createMetrics({
    defaultMetrics: options.processMetrics ?? true,
    connections: () => database.connections?.(),
  });
  const { events, accounts } = openStores(database, metrics);
  const decisions = decisionDeps(accounts, options.rules ?? defaultRules(config.policy), metrics);

  const http = createHttpApp(config, metrics, logger);
  const { app, refuse, refusal, invalidRequest } = http;
  const handlers = deliveryHandlers({
    config,
    events,
    metrics,
    logger,
    decisions,
    refusal,
    now: options.now ?? (() => new Date()),
  });
  await registerWebhookRoutes(app, config, http, handlers);
  await app.register(async (ops) =>
    registerOps(ops, {
      config,
      database,
      events,
      metrics,
      deps: decisions.replayDeps,
      refuse,
      refusal,
      invalidRequest,
    }),
  );

  let address: { url: string; port: number };
  try {
    address = await listen(app, config);
  } catch (error) {
    await events.close();
    await release();
    throw error;
  }
  logger.info({ url: address.url, store: database.kind }, 'webhook gateway listening');
  return { ...address, app, database, events, accounts, metrics, logger, close: stopper(app, events, release, logger) };
}
