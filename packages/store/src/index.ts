// @paykit/store: PostgreSQL for every paykit app (PGlite in-process without DATABASE_URL).
export { openDatabase, StoreConfigError, StoreInputError, StoreUnavailableError } from './database.ts';
export type { Database, DatabaseOptions, QueryResult, Queryable } from './database.ts';
export { MigrationError } from './errors.ts';
export { loadMigrations, migrate, MIGRATIONS_DIR } from './migrate.ts';
export type { MigrateOptions, Migration } from './migrate.ts';
export { createEventStore } from './events.ts';
export type {
  AppendResult,
  CommitInfo,
  DriftNote,
  EventListFilter,
  EventSource,
  EventStore,
  EventStoreOptions,
  NewEvent,
  Outcome,
  ReplayRecord,
  StoredEvent,
} from './events.ts';
export { createAccountStore } from './accounts.ts';
export type { Account, AccountStatus, AccountStore } from './accounts.ts';
