// @paykit/store: PostgreSQL for every paykit app (PGlite in-process without DATABASE_URL).
export { openDatabase, StoreConfigError, StoreInputError, StoreUnavailableError, withLongStatements } from './database.ts';
export type { ConnectionStats, Database, DatabaseOptions, QueryResult, Queryable } from './database.ts';
export { MigrationError } from './errors.ts';
export { loadMigrations, migrate, MIGRATIONS_DIR } from './migrate.ts';
export type { MigrateOptions, Migration } from './migrate.ts';
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
// The reconciliation ledger (migration 0003): recording what we send and expect, applying stored
// events exactly once, reading the reconciliation.
export { createTransactionRecorder, outboundFromApi, recordOutbound } from './ledger-outbound.ts';
export type { CreatedTransactionLike, OutboundOperation, OutboundRecord } from './ledger-outbound.ts';
export { chargeFromApi, createChargeRecorder, recordCharge } from './ledger-dd-charges.ts';
export type { ChargeRecord, CreatedChargeLike } from './ledger-dd-charges.ts';
export { registerReceivable } from './ledger-receivables.ts';
export type { NewReceivable, Receivable } from './ledger-receivables.ts';
export { DEFAULT_BATCH_SIZE, reconcileOnce } from './reconcile-run.ts';
export type { ReconcileOptions, ReconcileResult } from './reconcile-run.ts';
export { addDecimals, ITEM_STATES, listItems, pendingAging, PRODUCTS, reconciliationSummary } from './reconcile-read.ts';
export type { AgingBucket, ItemFilter, ItemState, Product, ReconcileView, ReconItem, StateFigures, SummaryRow } from './reconcile-read.ts';
export { decideOwnership, normaliseName, normaliseRfc } from './reconcile-ownership.ts';
export type { Ownership, OwnershipEvidence } from './reconcile-ownership.ts';
export { listParked, retryParked } from './reconcile-parked.ts';
export { CONFLICT_KINDS, conflictCounts, listConflicts } from './ledger-conflicts.ts';
export type { Conflict, ConflictKind } from './ledger-conflicts.ts';
export type { ParkedEvent } from './reconcile-parked.ts';
export { formatReportCsv, parseReportCsv, REPORT_CSV_HEADER, ReportFormatError } from './report-csv.ts';
export type { ReportLine } from './report-csv.ts';
export { importReport, reportMatches } from './report-import.ts';
export type { ReportImportResult, ReportMatch } from './report-import.ts';
export { listDrift, pathToPointer } from './drift-read.ts';
export type { DriftFilter, DriftRecord } from './drift-read.ts';
export { withTimeout } from './timeout.ts';
