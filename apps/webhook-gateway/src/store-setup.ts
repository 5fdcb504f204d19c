// The gateway's store, opened and migrated before anything listens: the database (the one given,
// or one opened from config), the event store whose commits feed the metrics, and the accounts.
import {
  createAccountStore,
  createEventStore,
  ensureEventPartitions,
  migrate,
  openDatabase,
  withLongStatements,
  type AccountStore,
  type CommitInfo,
  type Database,
  type EventStore,
} from '@paykit/store';
import { ledgerMigrations } from '@paykit/ledger/migrations';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config.ts';
import type { GatewayMetrics } from './metrics.ts';

export interface OpenedDatabase {
  database: Database;
  /** Closes the database when the gateway opened it; a database given to it stays open. */
  release(): Promise<void>;
}

/** Opens (unless given) and migrates the database; closes it again if the migration fails. */
export async function openGatewayDatabase(
  config: GatewayConfig,
  given: Database | undefined,
  logger: Logger,
): Promise<OpenedDatabase> {
  const owned = given === undefined;
  const databaseOptions = {
    databaseUrl: config.databaseUrl,
    dataDir: `${config.dataDir}/pglite`,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  };
  const database = given ?? (await openDatabase(databaseOptions));
  const release = async (): Promise<void> => {
    if (owned) await database.close();
  };
  try {
    // Not under the deadline of deliveries' statements: a migration may rewrite a large table. The
    // ledger's set too: the batch append records a redelivery with another body in ledger_conflicts.
    const migrated = await withLongStatements(database, owned ? databaseOptions : {}, (db) =>
      migrate(db, [ledgerMigrations]),
    );
    if (migrated.applied.length > 0) logger.info({ applied: migrated.applied }, 'store migrated');
    // This month's partition and the next ones (the worker keeps them ahead hourly); without them,
    // events land in the default partition, which takes them all the same.
    await ensureEventPartitions(database);
  } catch (error) {
    await release();
    throw error;
  }
  return { database, release };
}

/** The event store (each commit timed and its batch size counted) and the account store. */
export function openStores(
  database: Database,
  metrics: GatewayMetrics,
): { events: EventStore; accounts: AccountStore } {
  const events = createEventStore(database, {
    onCommit: ({ events: size, ms, ok }: CommitInfo) => {
      metrics.commitSeconds.observe({ ok: String(ok) }, ms / 1000);
      if (ok) metrics.batchSize.observe(size);
    },
  });
  return { events, accounts: createAccountStore(database) };
}
