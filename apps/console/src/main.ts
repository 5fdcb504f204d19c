#!/usr/bin/env node
// `pnpm --filter @paykit/console start`: the finance console on CONSOLE_PORT (4031), reading the
// ledger in the database the worker applies to (DATABASE_URL, or the PGlite folder under
// PAYKIT_DATA_DIR: PGlite is one process per folder, so there the console cannot run beside the
// worker; use PostgreSQL). Migrates the database (its sessions table included), prints
// `listening on <url>` once it answers, then logs with pino (one JSON line each, logging.ts).
// Replicas may run side by side on one PostgreSQL database behind a load balancer: logins are
// kept in the database, so no replica needs sticky sessions.
import { ledgerMigrations } from '@paykit/ledger/migrations';
import { runApp, storeOptions } from '@paykit/service';
import { createOperatorStore, migrate, openDatabase, withLongStatements } from '@paykit/store';
import { bindProblems, CONSOLE, ConfigError, loadConfig } from './config.ts';
import { createConsoleHealth } from './health.ts';
import { createLogger } from './logging.ts';
import { createConsoleMetrics } from './metrics.ts';
import { startConsole } from './server.ts';
import { workerStatusFrom } from './worker-status.ts';

await runApp({
  ...CONSOLE,
  loadConfig,
  async start(config) {
    const logger = createLogger(config);
    const databaseOptions = storeOptions(config);
    const db = await openDatabase(databaseOptions);
    let server;
    const access = { ...config.console, metricsToken: config.metricsToken, operators: false };
    try {
      await withLongStatements(db, databaseOptions, (long) => migrate(long, [ledgerMigrations]));
      access.operators = await createOperatorStore(db).anyActive();
      // Whether the console may open beyond this machine depends on its operators, in the database.
      const problems = bindProblems(config.host, access);
      if (problems.length > 0) throw new ConfigError(CONSOLE, problems);
      const health = createConsoleHealth(db);
      const metrics = createConsoleMetrics(db, health);
      server = await startConsole({
        db,
        port: config.port,
        host: config.host,
        staleAfterSeconds: config.staleAfterSeconds,
        status: config.workerUrl ? workerStatusFrom(config.workerUrl) : undefined,
        health,
        metrics: metrics.registry,
        onLogin: metrics.login,
        access,
        trustProxy: config.trustProxy,
        logger,
      });
    } catch (error) {
      await db.close();
      throw error;
    }
    const who = [
      access.operators ? 'named operators' : '',
      config.console.password ? 'CONSOLE_PASSWORD' : '',
      config.console.identityHeader ? `the ${config.console.identityHeader} header of a trusted proxy` : '',
    ]
      .filter(Boolean)
      .join(' and ');
    logger.info(
      {
        url: server.url,
        store: db.kind,
        login: who !== '',
        worker: config.workerUrl !== undefined,
        metricsToken: config.metricsToken !== undefined,
      },
      'started',
    );
    const metricsAccess = config.metricsToken ? 'bearer token (METRICS_TOKEN)' : 'open';
    const consoleServer = server;
    return {
      listening: [
        // The kind of store only: its description names the database's user, host and name.
        `listening on ${server.url} (store: ${db.kind})`,
        who
          ? `console: login required (${who}), logins of ${config.console.sessionMinutes} min kept in the database; /metrics: ${metricsAccess}`
          : `console: no login, answers this machine only (add an operator with paykit operators add, set CONSOLE_PASSWORD or CONSOLE_IDENTITY_HEADER, to open it to others); /metrics: ${metricsAccess}`,
      ],
      logger,
      close: () => consoleServer.close().then(() => db.close()),
    };
  },
});
