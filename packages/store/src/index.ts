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
export { addDecimals, allItems, ITEM_SORTS, ITEM_STATES, listItems, OUTCOMES, pageItems, pendingAging, PRODUCTS, reconciliationSummary, stateTotals, volumesByOutcome } from './reconcile-read.ts';
export type { AgingBucket, ItemFilter, ItemState, MoneyOutcome, Product, ReconcileView, ReconItem, StateFigures, SummaryRow, VolumeRow } from './reconcile-read.ts';
export { allReceivables, pageReceivables, RECEIVABLE_AGES, RECEIVABLE_SORTS, receivablesByAge } from './receivables-read.ts';
export type { OpenReceivable, ReceivableAge, ReceivableAgeBucket, ReceivableFilter } from './receivables-read.ts';
export { allRows, keysetPage, pickOrder } from './keyset.ts';
export type { KeyColumn, KeysetOrder, KeysetQuery, Page, PageRequest, PageWithTotals } from './keyset.ts';
export { decideOwnership, normaliseName, normaliseRfc } from './reconcile-ownership.ts';
export type { Ownership, OwnershipEvidence } from './reconcile-ownership.ts';
export { allParked, listParked, pageParked, PARKED_SORTS, retryParked } from './reconcile-parked.ts';
export { allConflicts, CONFLICT_KINDS, CONFLICT_SORTS, conflictCounts, listConflicts, pageConflicts } from './ledger-conflicts.ts';
export type { Conflict, ConflictKind } from './ledger-conflicts.ts';
export type { ParkedEvent } from './reconcile-parked.ts';
export { formatReportCsv, parseReportCsv, REPORT_CSV_HEADER, ReportFormatError } from './report-csv.ts';
export type { ReportLine } from './report-csv.ts';
export { allReportMatches, importReport, pageReportFiles, pageReportMatches, REPORT_FILE_SORTS, REPORT_LINE_SORTS, reportContentHash, reportMatches } from './report-import.ts';
export type { ReportFile, ReportImportResult, ReportMatch } from './report-import.ts';
export { allDrift, DRIFT_SORTS, listDrift, pageDrift, pathToPointer } from './drift-read.ts';
export type { DriftFilter, DriftRecord } from './drift-read.ts';
export { withTimeout } from './timeout.ts';
export { acquireDataDirLock } from './data-dir-lock.ts';
