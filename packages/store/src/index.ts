// @paykit/store: PostgreSQL for every paykit app (PGlite in-process without DATABASE_URL).
export {
  openDatabase,
  StoreConfigError,
  StoreInputError,
  StoreUnavailableError,
  withLongStatements,
} from './database.ts';
export type { ConnectionStats, Database, DatabaseOptions, QueryResult, Queryable } from './database.ts';
export { AccountChangedError, MigrationError } from './errors.ts';
export { loadFunctions, loadMigrations, migrate, migrationSet, MIGRATIONS_DIR, storeMigrations } from './migrate.ts';
export type { MigrateOptions, MigrateResult, Migration, MigrationSet, SqlFunction } from './migrate.ts';
export { createEventStore } from './events.ts';
export type {
  AccountGuard,
  AppendResult,
  CommitInfo,
  DriftNote,
  EventDecision,
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
// The console's named operators: roles and scrypt-hashed passwords (the console logs them in, the CLI manages them).
export {
  checkPassword,
  createOperatorStore,
  hashPassword,
  MIN_OPERATOR_PASSWORD,
  OPERATOR_NAME,
  OPERATOR_ROLES,
  PASSWORD_OPERATOR,
  verifyPassword,
} from './operators.ts';
export type { Operator, OperatorActor, OperatorRole, OperatorStatus, OperatorStore } from './operators.ts';
// Keyset paging (and checked offset pages) for every list a console or an export reads.
export { allRows, keysetPage, pageLimit, pageOf, pickOrder } from './keyset.ts';
export type { KeyColumn, KeysetQuery, KeysetOrder, Page, PageRequest, PageWithTotals } from './keyset.ts';
// Reading a database failure: its SQLSTATE, whether it means the database is not there, its message.
export { isUnavailable, messageOf, sqlState } from './connection-errors.ts';
export { allDrift, DRIFT_SORTS, listDrift, pageDrift, pathToPointer } from './drift-read.ts';
export type { DriftFilter, DriftRecord } from './drift-read.ts';
export { withTimeout } from './timeout.ts';
export { acquireDataDirLock } from './data-dir-lock.ts';
// The event store's month partitions and the archives that replaced dropped months.
export {
  archiveOfEvent,
  ensureEventPartitions,
  listEventArchives,
  listEventPartitions,
  MONTHS_AHEAD,
} from './partitions.ts';
export type { EventArchive, EventPartition } from './partitions.ts';
